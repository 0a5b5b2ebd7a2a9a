// `infergap reduce`: the smallest part of a model on which two platforms still differ (delta
// debugging over nodes). Every candidate is a model of its own, cut from the original with the
// values entering it captured from one run of the whole model, and run whole on both platforms
// in their workers, so differences that only exist when a library compiles several nodes together
// (ORT's fusions, oneDNN's post-ops) reduce too.
#pragma once

#include <onnx/onnx_pb.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "model/graph.h"
#include "worker/worker_pool.h"

namespace ig {

enum class ReduceCriterion { kBitwise, kTolerance, kLabel };
Expected<ReduceCriterion> parse_reduce_criterion(const std::string& text);
const char* reduce_criterion_name(ReduceCriterion c);

struct ReduceOptions {
  std::string a, b;                  // platform specs
  std::string capture_from = "ref";  // whose run of the whole model feeds the cut inputs
  ReduceCriterion criterion = ReduceCriterion::kBitwise;
  double rtol = 1e-5, atol = 1e-6;  // kTolerance: differ where |a - b| > atol + rtol * |b|
  double timeout_seconds = 300;
  uint64_t max_memory_bytes = 0;
  std::string work_dir;  // candidate models are written here
  // After the nodes: zero as many elements of the reduced model's floating inputs as possible
  // while A and B still differ, in at most this many runs (0: leave the inputs as captured).
  int input_budget = 0;
  std::function<void(const std::string&)> progress;
};

struct ReduceResult {
  bool agree = false;  // the whole model does not differ under the criterion: nothing reduced
  std::vector<std::string> nodes, ops;   // the reduced model's nodes, in order
  onnx::ModelProto model;                // the reduced model
  std::map<std::string, Tensor> inputs;  // its graph inputs
  std::vector<std::string> outputs;      // its graph outputs
  std::string a_vs_b;                    // how A and B differ on it, in words
  // With input_budget: per input, nonzero elements left and elements in all.
  std::map<std::string, std::pair<int64_t, int64_t>> input_elements;
  int64_t original_nodes = 0;
  int64_t tests = 0;  // candidate models run (each on A and B)
};

// `feeds`: the whole model's inputs. `agree` (and nothing else) when the whole model does not
// differ under the criterion; an error when a platform fails on the whole model.
Expected<ReduceResult> reduce_model(const std::string& model_path, const Model& model,
                                    const std::map<std::string, Tensor>& feeds, WorkerPool& pool,
                                    const ReduceOptions& options);

}  // namespace ig
