// `infergap invariance`: each sample alone and inside batches, bit for bit. The reference backend
// computes every row the same way whatever the batch; libtorch 1.13's MatMul does not (one row
// goes through a matrix-vector kernel, a batch through GEMM), and the traced runs name the node.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../support/cli.h"
#include "../support/mini_resnet.h"
#include "model/npy.h"

namespace ig {
namespace {

using testing::run_cli;
using testing::TempDir;

// Makes the first dim of the graph's first input and output the symbol N.
onnx::ModelProto with_open_batch(onnx::ModelProto m) {
  auto* g = m.mutable_graph();
  for (auto* vi : {g->mutable_input(0), g->mutable_output(0)})
    vi->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("N");
  return m;
}

// X float[N,1024] -> MatMul (1024x256) -> Relu -> Gemm (256x16) -> Y float[N,16].
onnx::ModelProto matmul_model() {
  onnx::ModelProto m = testing::empty_model("mlp");
  auto* g = m.mutable_graph();
  testing::add_tensor_value(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 1024});
  testing::add_tensor_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 16});
  testing::fill_weights(g->add_initializer(), "W1", {1024, 256}, 1);
  testing::fill_weights(g->add_initializer(), "W2", {256, 16}, 2);
  testing::add_node(g, "MatMul", "mm1", {"X", "W1"}, {"h"});
  testing::add_node(g, "Relu", "relu", {"h"}, {"r"});
  testing::add_node(g, "Gemm", "fc", {"r", "W2"}, {"Y"});
  return with_open_batch(m);
}

TEST(InvarianceCli, TheReferenceIsInvariantOnEverySample) {
  TempDir dir;
  const std::string model =
      testing::write_model(with_open_batch(testing::mini_resnet(8, 8)), dir.file("m.onnx"));
  const auto j = testing::cli_json("invariance " + model + " --batch 1,2,8 -p ref --json");
  EXPECT_EQ(j.at("batch_symbol"), "N");
  EXPECT_EQ(j.at("samples"), 8);
  EXPECT_EQ(j.at("inputs")[0].at("shape"), nlohmann::json::array({8, 3, 8, 8}));
  const auto& ref = j.at("platforms")[0];
  EXPECT_EQ(ref.at("verdict"), "ok");
  EXPECT_EQ(ref.at("invariant"), true);
  EXPECT_TRUE(ref.at("node").is_null());
  EXPECT_EQ(ref.at("runs"), 8 + 4 + 1);  // alone, in pairs, all together
}

TEST(InvarianceCli, TorchMatMulDependsOnTheBatchAndTheTraceNamesIt) {
  TempDir dir;
  const std::string model = testing::write_model(matmul_model(), dir.file("mlp.onnx"));
  const auto r = run_cli("invariance " + model + " -p ref -p torch --json");
  if (r.out.find("unknown backend") != std::string::npos ||
      r.err.find("unknown backend") != std::string::npos)
    GTEST_SKIP() << "built without libtorch";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("platforms")[0].at("invariant"), true);
  const auto& torch = j.at("platforms")[1];
  ASSERT_EQ(torch.at("verdict"), "ok") << torch.dump();
  ASSERT_EQ(torch.at("invariant"), false) << torch.dump();
  EXPECT_EQ(torch.at("node"), "mm1");
  const auto& d = torch.at("differences")[0];
  EXPECT_EQ(d.at("batch"), 8);
  EXPECT_EQ(d.at("output"), "Y");
  EXPECT_GT(d.at("elements_differing").get<int>(), 0);
  EXPECT_EQ(d.at("op_type"), "MatMul");
}

TEST(InvarianceCli, ModelsAndInputsWithoutABatchAreRefusedByName) {
  TempDir dir;
  const std::string fixed = testing::write_model(testing::mini_resnet(8, 8), dir.file("f.onnx"));
  auto r = run_cli("invariance " + fixed + " -p ref");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(fixed + ": no input leaves its first (batch) dimension open"),
            std::string::npos)
      << r.err;
  const std::string open =
      testing::write_model(with_open_batch(testing::mini_resnet(8, 8)), dir.file("o.onnx"));
  r = run_cli("invariance " + open + " --batch 3,8 -p ref");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("3 does not divide 8"), std::string::npos) << r.err;
  const std::string four = dir.file("x4.npy");
  ASSERT_TRUE(write_npy(Tensor(DType::kFloat32, {4, 3, 8, 8}), four).ok());
  r = run_cli("invariance " + open + " --input X=" + four + " --batch 1,8 -p ref");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("input 'X' holds 4 sample(s)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ig
