// ORT 1.31 (python) writes a session's outputs straight into the file it shares with the worker
// from its second run on (IOBinding), and the worker's tensors borrow them from there: every run
// gives the first run's bits, plain and traced, and tensors kept from one run keep their bits
// through the runs after it.
#include <unistd.h>

#include "backend_test_util.h"
#include "core/venv.h"

namespace ig::testing {
namespace {

struct Run {
  std::vector<Value> outputs;
  std::map<std::string, Tensor> trace;
};

Expected<Run> run_once(Backend& backend, const Model& model, const Tensor& x, bool traced) {
  Run r;
  NodeCallback on_node;
  if (traced)
    on_node = [&](const Node& n, const std::vector<Value>& v) {
      for (size_t i = 0; i < v.size(); ++i)
        if (v[i].is_tensor()) r.trace[n.outputs[i]] = v[i].tensor;
    };
  IG_ASSIGN_OR_RETURN(r.outputs, backend.run(model, {{"X", x}}, on_node));
  return r;
}

TEST(OrtBoundOutputs, EveryRunGivesTheFirstRunsBitsAndKeptTensorsKeepTheirs) {
  if (::access(venv_python().c_str(), X_OK) != 0) GTEST_SKIP() << "no python venv";
  TempDir dir;
  auto model = load_model(save(small_convnet(3, 32, 16), dir.path.string(), "convnet.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  auto backend = make_backend(*parse_platform_spec("ort:version=1.31,threads=1"));
  if (!backend.ok()) GTEST_SKIP() << backend.status().to_string();
  const Tensor x = random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 7);
  const Tensor other = random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 8);
  for (bool traced : {false, true}) {
    SCOPED_TRACE(traced ? "traced" : "plain");
    auto first = run_once(**backend, *model, x, traced);
    ASSERT_TRUE(first.ok()) << first.status().to_string();
    const Tensor first_copy = first->outputs[0].tensor.clone();
    ASSERT_EQ(first->trace.empty(), !traced);
    for (int i = 0; i < 10; ++i) {  // a traced run is checked against a plain one every 8th
      auto again = run_once(**backend, *model, i % 2 ? other : x, traced);
      ASSERT_TRUE(again.ok()) << again.status().to_string();
      EXPECT_EQ(again->outputs[0].tensor.bitwise_equal(first_copy), i % 2 == 0) << "run " << i;
      if (i % 2 == 0) {
        for (const auto& [value, t] : first->trace)
          EXPECT_TRUE(again->trace.at(value).bitwise_equal(t)) << value << ", run " << i;
      }
      // The first run's tensors, still held, were not written over by this one.
      EXPECT_TRUE(first->outputs[0].tensor.bitwise_equal(first_copy)) << "run " << i;
    }
  }
}

}  // namespace
}  // namespace ig::testing
