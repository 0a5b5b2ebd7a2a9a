#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../support/cli.h"
#include "model/onnx_model.h"
#include "synth/mutate.h"

namespace ig {
namespace {

namespace fs = std::filesystem;

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class QuantizeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("infergap-quantize-cli-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    model_ = (dir_ / "m.onnx").string();
    ASSERT_EQ(testing::run_cli("zoo export Cifar10-small -o " + model_).exit_code, 0);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  std::string model_;
};

TEST_F(QuantizeCli, WritesTheSameBytesForTheSameSeedAndSummarisesAsJson) {
  auto run = [&](const std::string& out, int seed) {
    return testing::run_cli("quantize " + model_ + " -o " + (dir_ / out).string() +
                            " --samples 2 --seed " + std::to_string(seed) + " --json");
  };
  auto a = run("a.onnx", 3), b = run("b.onnx", 3);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.err.find("calibration sample 2/2"), std::string::npos) << a.err;
  const auto j = nlohmann::json::parse(a.out);
  EXPECT_EQ(j.at("output"), (dir_ / "a.onnx").string());
  EXPECT_EQ(j.at("nodes_quantized"), 7);
  EXPECT_EQ(j.at("samples"), 2);
  EXPECT_EQ(j.at("activation_scales"), j.at("activations").size());
  EXPECT_EQ(bytes_of(dir_ / "a.onnx"), bytes_of(dir_ / "b.onnx"));
  auto q = read_model_proto((dir_ / "a.onnx").string());
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(check_model_proto(*q).ok());
  auto parent = read_model_proto(model_);
  ASSERT_TRUE(parent.ok());
  EXPECT_EQ(lineage_from_model(*q)->parent_hash, content_hash(*parent));

  auto again = testing::run_cli("quantize " + (dir_ / "a.onnx").string() + " -o " +
                                (dir_ / "c.onnx").string());
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("already quantized"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("a.onnx"), std::string::npos) << again.err;
  auto bad = testing::run_cli("quantize " + model_ + " -o " + (dir_ / "d.onnx").string() +
                              " --calibration median");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--calibration"), std::string::npos) << bad.err;
}

TEST_F(QuantizeCli, ConvertWritesFp16AndBf16) {
  auto fp16 = testing::run_cli("convert " + model_ + " --to fp16 --keep-io -o " +
                               (dir_ / "h.onnx").string() + " --json");
  ASSERT_EQ(fp16.exit_code, 0) << fp16.err;
  const auto j = nlohmann::json::parse(fp16.out);
  EXPECT_EQ(j.at("casts"), 2);
  EXPECT_TRUE(j.at("kept_float32").empty());
  auto run = testing::run_cli("run " + (dir_ / "h.onnx").string() + " -p ref --in-process");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  auto bf16 = testing::run_cli("convert " + model_ + " --to bf16 -o " + (dir_ / "b.onnx").string());
  ASSERT_EQ(bf16.exit_code, 0) << bf16.err;
  EXPECT_NE(bf16.out.find("float32: conv"), std::string::npos) << bf16.out;
  auto bad = testing::run_cli("convert " + model_ + " --to int4 -o " + (dir_ / "x.onnx").string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("fp16 or bf16"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace ig

namespace ig {
namespace {

// A quantized model and its float parent studied together: `compare --parent` gives, per layer
// both traced, the SQNR against the parent on each platform; the int8 model is tens of dB from
// its parent, not equal to it and not noise; its output's top-1 is judged; an unknown parent is
// an error naming it.
TEST_F(QuantizeCli, CompareWithTheParentGivesSqnrPerLayerAndPlatform) {
  const std::string q = (dir_ / "q.onnx").string(), db = (dir_ / "s.db").string();
  ASSERT_EQ(testing::run_cli("quantize " + model_ + " -o " + q + " --samples 2").exit_code, 0);
  auto study = testing::run_cli("study --model " + model_ + " --model " + q +
                                " -p ref -p ref:qdq=int --oracle none --no-report --store " + db);
  ASSERT_EQ(study.exit_code, 0) << study.err;
  auto cmp = testing::run_cli("compare --store " + db + " --model q --parent m --json");
  ASSERT_EQ(cmp.exit_code, 0) << cmp.err;
  const auto j = nlohmann::json::parse(cmp.out);
  ASSERT_EQ(j.at("cases").size(), 1u);
  const auto& layers = j["cases"][0].at("layers");
  int convs = 0, outputs = 0;
  for (const auto& row : layers) {
    for (const auto& [platform, v] : row.at("platforms").items()) {
      ASSERT_TRUE(v.at("sqnr_db").is_number()) << row.dump();
      EXPECT_GT(v["sqnr_db"].get<double>(), 10) << row.dump();
      EXPECT_LT(v["sqnr_db"].get<double>(), 80) << row.dump();
    }
    convs += row.at("op_type") == "Conv" && row["platforms"].contains("ref");
    if (row.at("graph_output").get<bool>()) {
      ++outputs;
      EXPECT_TRUE(row["platforms"]["ref"].contains("top1_agrees"));
    }
  }
  EXPECT_GT(convs, 0);
  EXPECT_EQ(outputs, 1);
  auto bad = testing::run_cli("compare --store " + db + " --model q --parent nope");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("no model 'nope'"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace ig
