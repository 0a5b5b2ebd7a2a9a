// A deep-learning compiler as a platform (openvino, iree, torch2): the model file goes to the
// compiler whole, in a runner process (src/backends/pyrunner/compiler_runner.py); what runs is
// the compiler's own program. A traced run takes the layer values the compiler can give without
// changing what runs (OpenVINO: the edges of its runtime model's layers, from a second compilation
// whose graph outputs must be the plain one's, bit for bit); every other node is covered by the
// group of the next value reported, and with IREE and Inductor that is the whole graph: `origins`
// then stops at the group, and `reduce`/triage find the operator by compiling cut models.
// Compiled programs are cached per model hash and knobs (default_cache_dir()/NAME).
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "backends/backend.h"
#include "backends/runner_process.h"

namespace ig {

class CompilerBackend : public Backend {
 public:
  // `knobs`: the platform's options as the adapter reads them; `cache`: the folder for compiled
  // programs ("" for none).
  CompilerBackend(std::string name, std::map<std::string, std::string> knobs, std::string cache,
                  std::unique_ptr<RunnerProcess> runner);
  std::string name() const override { return name_; }
  LibraryVersion library() const override;
  // The compiler decides when it compiles: its refusal comes from check_loads and run_values.
  Status supports(const Node&, const Model&) const override { return Status::Ok(); }
  Status check_loads(const Model& model) override { return program(model).status(); }
  bool reads_initializers() const override { return false; }
  Expected<std::vector<Value>> run_values(const Model& model,
                                          const std::map<std::string, Value>& feeds,
                                          const NodeCallback& on_node) override;
  // What the compiler said it runs, where it says: "layers ran in 21 bf16, 3 f32 (inference
  // precision bf16, mode PERFORMANCE)" from OpenVINO's runtime model.
  std::string run_note() const override;

 private:
  struct Program {
    std::string key;          // the runner's name for it
    nlohmann::json executed;  // what the compiler says it runs (OpenVINO: its runtime model)
  };
  // The compiled program of the model's current file (compiled on first use).
  Expected<const Program*> program(const Model& model);
  // What a traced run says of the compiled program, beside each fused group.
  std::string executed_note(const Program& program) const;
  static std::string precision_note(const nlohmann::json& executed);

  std::string name_;
  std::map<std::string, std::string> knobs_;
  std::string cache_;
  std::unique_ptr<RunnerProcess> runner_;
  std::map<std::string, Program> programs_;  // by model file identity
  // A compiler's refusal of a model file, kept so that its other runs (a campaign's inputs) do
  // not compile it again to be refused again.
  std::map<std::string, Status> refused_;
  int next_key_ = 0;
  const Program* last_ = nullptr;  // the program of the last run
};

// Reports every node with an output in `values` (graph outputs, and the values a compiler exposed)
// as one group covering the nodes upstream of it reached through values not exposed and not
// covered by an earlier group, in execution order; its note is `notes` of its output, else `note`.
void report_exposed(const Model& model, const std::map<std::string, Value>& values,
                    const std::map<std::string, std::string>& notes, const NodeCallback& on_node,
                    const std::string& note);

}  // namespace ig
