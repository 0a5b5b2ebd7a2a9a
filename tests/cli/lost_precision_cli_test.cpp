// A lost-precision finding end to end: a campaign over Sigmoid variants whose inputs the edge
// mutation drew from [-80, -10] finds ONNX Runtime's logistic returning results with none of
// their bits right (0 for sigmoid(-18) = 1.5e-8), which the campaign's absolute tolerance hides;
// triage names it with its verdict, ref has no such finding, and repro.sh shows it. On inputs in
// [-4, 4] nothing is lost. Skipped where ONNX Runtime does not run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../support/cli.h"
#include "../support/onnx_builder.h"
#include "inputs/variant_inputs.h"
#include "model/onnx_model.h"

namespace ig {
namespace lost_precision_cli_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void write_sigmoid(const std::string& path, const std::string& input_spec) {
  onnx::ModelProto m = testing::empty_model("gate");
  auto* g = m.mutable_graph();
  testing::add_tensor_value(g->add_input(), "x", onnx::TensorProto::FLOAT, {1, 256});
  testing::add_tensor_value(g->add_output(), "y", onnx::TensorProto::FLOAT, {1, 256});
  auto* n = g->add_node();
  n->set_op_type("Sigmoid");
  n->set_name("gate");
  n->add_input("x");
  n->add_output("y");
  set_variant_inputs(m, {{"x", input_spec}});
  ASSERT_TRUE(save_model_proto(m, path).ok());
}

int sh(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

class LostPrecisionCli : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto list = testing::run_cli("platforms -p ort");
    if (list.exit_code != 0 || list.out.find(" yes") == std::string::npos)
      GTEST_SKIP() << "ort does not run here: " << list.out;
    fs::create_directories(dir_.file("variants"));
    write_sigmoid(dir_.file("variants/tail.onnx"), "random:uniform,lo=-80,hi=-10");
    write_sigmoid(dir_.file("variants/middle.onnx"), "random:uniform,lo=-4,hi=4");
    store_ = dir_.file("c.db");
    auto c = testing::run_cli("campaign --models " + dir_.file("variants") +
                              " -p ort -p ref --store " + store_ + " --jobs 2 --no-report --json");
    ASSERT_LE(c.exit_code, 1) << c.err;
    campaign_ = json::parse(c.out, nullptr, false);
  }
  testing::TempDir dir_;
  std::string store_;
  json campaign_;
};

TEST_F(LostPrecisionCli, TriageNamesOrtsSigmoidTailAndNothingElse) {
  const json t =
      testing::cli_json("triage --store " + store_ + " -o " + dir_.file("findings") + " --json");
  const json* lost = nullptr;
  for (const auto& f : t.at("findings")) {
    EXPECT_NE(f.at("family"), "ref") << f.dump(2);
    if (f.at("kind") == "lost-precision") lost = &f;
  }
  ASSERT_NE(lost, nullptr) << t.dump(2);
  EXPECT_EQ(lost->at("family"), "ort");
  EXPECT_EQ(lost->at("op"), "Sigmoid");
  EXPECT_EQ(lost->at("variant_count"), 1);  // the tail variant; [-4, 4] keeps its bits
  EXPECT_EQ(lost->at("verdict"), "library defect");
  const std::string folder = dir_.file("findings") + "/" + lost->at("folder").get<std::string>();
  std::ifstream readme(folder + "/README.md");
  std::stringstream text;
  text << readme.rdbuf();
  EXPECT_NE(text.str().find("significant bits right"), std::string::npos) << text.str();
  EXPECT_EQ(sh(folder + "/repro.sh >/dev/null 2>&1"), 0);
}

TEST_F(LostPrecisionCli, TheCampaignCountsItBesideTheDiscrepancies) {
  ASSERT_TRUE(campaign_.contains("analysis")) << campaign_.dump(2);
  const json& d = campaign_["analysis"]["discrepancy"];
  EXPECT_EQ(d["ort"]["discrepant"], 0);  // within the absolute tolerance
  EXPECT_EQ(d["ort"]["relative"]["judged"], 2);
  EXPECT_EQ(d["ort"]["relative"]["lost"], 1);
  EXPECT_EQ(d["ort"]["relative"]["by_op"]["Sigmoid"], 1);
  EXPECT_EQ(d["ref"]["relative"]["lost"], 0);
}

}  // namespace
}  // namespace lost_precision_cli_test
}  // namespace ig
