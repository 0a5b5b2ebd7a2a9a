// ONNX bytes -> parse, checker, shape inference, declared-size limits, IR build and topological
// sort. Property: either a clear error naming the file, or a graph whose nodes only read values
// defined before them.
#include <unordered_set>

#include "fuzz_common.h"
#include "model/onnx_model.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool ready = ig::fuzz::init();
  (void)ready;
  ig::LoadOptions options;
  options.max_memory_bytes = ig::fuzz::kBudget;
  // No base folder: external data must be refused without touching the file system.
  auto model = ig::load_model_from_bytes(ig::fuzz::bytes_of(data, size), "fuzz.onnx", "", options);
  if (!model.ok()) {
    ig::fuzz::expect_named(model.status(), "fuzz.onnx");
    return 0;
  }
  const ig::Graph& g = model->graph;
  std::unordered_set<std::string> defined;
  for (const auto& v : g.inputs) defined.insert(v.name);
  for (const auto& [name, t] : g.initializers) defined.insert(name);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ig::Node& n = g.nodes[i];
    if (n.index != i) ig::fuzz::fail("node index is not its position", n.label());
    for (const auto& in : n.inputs) {
      if (!in.empty() && !defined.count(in))
        ig::fuzz::fail("node reads a value defined later or nowhere", n.label() + " reads " + in);
    }
    defined.insert(n.outputs.begin(), n.outputs.end());
  }
  return 0;
}
