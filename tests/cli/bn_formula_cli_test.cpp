// Where BatchNormalization's bits come from: oneDNN computes (x - mean) * f + B with
// f = scale / sqrt(var + eps), ONNX Runtime x * f + (B - mean * f) with f = (1 / sqrt(var + eps))
// * scale; the emulator's bn=folded and bn=affine reproduce each bit for bit, in their workers.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../support/cli.h"
#include "../support/mini_resnet.h"

namespace ig {
namespace {

using testing::run_cli;
using testing::TempDir;

TEST(BnFormulaCli, OnednnAndOrtAreTheFoldedAndAffineFormulas) {
  onnx::ModelProto m = testing::empty_model("bn");
  auto* g = m.mutable_graph();
  testing::add_tensor_value(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 8, 12, 12});
  testing::add_tensor_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 8, 12, 12});
  testing::fill_weights(g->add_initializer(), "scale", {8}, 1);
  testing::fill_weights(g->add_initializer(), "bias", {8}, 2);
  testing::fill_weights(g->add_initializer(), "mean", {8}, 3);
  auto* var = g->add_initializer();
  testing::fill_weights(var, "var", {8}, 4);
  for (int i = 0; i < var->float_data_size(); ++i)
    var->set_float_data(i, var->float_data(i) + 0.6f);  // positive variances
  testing::add_node(g, "BatchNormalization", "bn", {"X", "scale", "bias", "mean", "var"}, {"Y"});
  TempDir dir;
  const std::string model = testing::write_model(m, dir.file("bn.onnx"));
  const auto r = run_cli("run " + model +
                         " -p onednn -p 'ref:bn=folded' -p 'ort:opt=disabled,threads=1' "
                         "-p 'ref:bn=affine' -p ref --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::map<std::string, int> group;
  for (const auto& p : j["platforms"]) group[p["spec"]] = p["group"];
  EXPECT_EQ(group["onednn"], group["ref:bn=folded"]);
  EXPECT_EQ(group["ort:opt=disabled,threads=1"], group["ref:bn=affine"]);
  EXPECT_NE(group["onednn"], group["ref"]);
  EXPECT_NE(group["ort:opt=disabled,threads=1"], group["ref"]);
}

}  // namespace
}  // namespace ig
