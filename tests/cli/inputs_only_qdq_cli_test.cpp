// An int8 model whose Q/DQ pairs sit on the inputs of Conv and Gemm only (`quantize --layout
// inputs`, the layout of TensorRT's explicit quantization and ModelOpt): oneDNN runs every group
// as an integer kernel with a float destination, `ref:qdq=int` is those kernels bit for bit (on
// avx2 with madd=sat16), the self-check does not blame a fusion for what integer arithmetic does,
// and `explain` reproduces the group.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../support/cli.h"
#include "../support/mini_resnet.h"

namespace ig {
namespace {

using testing::run_cli;
using testing::TempDir;

struct InputsOnlyQdq : ::testing::Test {
  static inline TempDir* dir = nullptr;
  static inline std::string model, db;
  static void SetUpTestSuite() {
    dir = new TempDir;
    const std::string parent =
        testing::write_model(testing::mini_resnet(16, 12), dir->file("mini_resnet.onnx"));
    model = dir->file("inputs_only.onnx");
    const auto q = run_cli("quantize " + parent + " -o " + model +
                           " --layout inputs --samples 2 --input X=random:uniform,lo=0,hi=4");
    ASSERT_EQ(q.exit_code, 0) << q.err;
    db = dir->file("s.db");
    const auto s = run_cli("study --model " + model +
                           " -p 'onednn:isa=avx2,threads=1' -p 'ref:qdq=int,madd=sat16'"
                           " -p ref:qdq=int -p ref --input X=random:uniform,lo=0,hi=4"
                           " --store " +
                           db + " --no-report");
    ASSERT_EQ(s.exit_code, 0) << s.err;
  }
  static void TearDownTestSuite() { delete dir; }
};

TEST_F(InputsOnlyQdq, QuantizerWritesQdqOnWeightedInputsOnly) {
  const auto j = testing::cli_json("inspect " + model + " --json -p ref");
  std::map<std::string, int> ops;
  for (const auto& op : j.at("ops")) ops[op.at("op_type")] = op.at("count").get<int>();
  // mini_resnet: conv1, conv2 and fc read X, r1 and f: one QuantizeLinear each, and a
  // DequantizeLinear for each of those, each weight and each bias.
  EXPECT_EQ(ops["QuantizeLinear"], 3) << j.at("ops").dump();
  EXPECT_EQ(ops["DequantizeLinear"], 9) << j.at("ops").dump();
  EXPECT_EQ(ops["Add"], 1);
}

TEST_F(InputsOnlyQdq, OnednnAvx2IsTheSaturatingEmulatorBitForBit) {
  // The int8 model only: its float parent, studied beside it, has oneDNN's float kernels.
  const auto j = testing::cli_json("compare --store " + db + " --model inputs_only --json");
  std::map<std::string, std::string> cls;
  // The letters without the first-seen mark.
  for (const auto& [platform, row] : j.at("eqc_matrix").items()) {
    std::string letters;
    for (const auto& c : row) letters += c.get<std::string>().substr(0, 1);
    cls[platform] = letters;
  }
  ASSERT_TRUE(cls.count("onednn:isa=avx2,threads=1")) << j.at("eqc_matrix").dump();
  EXPECT_EQ(cls["onednn:isa=avx2,threads=1"], cls["ref:madd=sat16,qdq=int"]);
  EXPECT_NE(cls["ref:qdq=int"], cls["ref"]);  // the float-output groups run on integers
}

TEST_F(InputsOnlyQdq, ExplainReproducesTheFirstGroupAndTheSelfCheckBlamesNoFusion) {
  const auto o = testing::cli_json("origins --store " + db + " --oracle --json");
  // The first group saturates (61 steps off, measured): its origin is an integer kernel whose
  // float re-run unfused is right, which is no fusion's fault.
  int integer_kernels = 0;
  for (const auto& origin : o.at("oracle_origins")) {
    const std::string verdict = origin.at("self_check").at("verdict");
    EXPECT_NE(verdict, "suspect-fusion") << origin.dump();
    if (origin.at("platform") == "onednn:isa=avx2,threads=1") {
      EXPECT_EQ(verdict, "integer-kernel") << origin.dump();
      integer_kernels += verdict == "integer-kernel";
    }
  }
  EXPECT_GE(integer_kernels, 1) << o.dump();
  const auto r = run_cli("explain --store " + db +
                         " --platform 'onednn:isa=avx2,threads=1' --node conv1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto e = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_EQ(e.value("match", ""), "exact") << r.out;
  EXPECT_NE(e.value("emulator", "").find("qdq=int"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace ig
