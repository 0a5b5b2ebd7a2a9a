// The campaign's exceptional-value verdicts end to end, on hand-made single-op variants whose right
// answer is known: FLT_MAX + FLT_MAX overflows to Inf on every correct fp32 platform (the fp64
// oracle holds 6.8e38, which rounds to Inf in fp32), and a denormal product is kept by ref and
// flushed by ref:ftz=on.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "../support/cli.h"
#include "../support/onnx_builder.h"
#include "inputs/variant_inputs.h"

namespace ig {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Y = OP(A, B) on float[1,16], carrying its own inputs.
void write_binary_model(const std::string& path, const std::string& op,
                        const std::map<std::string, std::string>& inputs) {
  onnx::ModelProto m = testing::empty_model(op);
  auto* g = m.mutable_graph();
  testing::add_tensor_value(g->add_input(), "A", onnx::TensorProto::FLOAT, {1, 16});
  testing::add_tensor_value(g->add_input(), "B", onnx::TensorProto::FLOAT, {1, 16});
  testing::add_tensor_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 16});
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(op + "0");
  n->add_input("A");
  n->add_input("B");
  n->add_output("Y");
  set_variant_inputs(m, inputs);
  ASSERT_TRUE(save_model_proto(m, path).ok());
}

std::vector<std::string> sorted(json list) {
  std::vector<std::string> out = list.get<std::vector<std::string>>();
  std::sort(out.begin(), out.end());
  return out;
}

TEST(CampaignExceptional, CorrectOverflowIsAsOracleAndFlushIsNamed) {
  const fs::path dir = fs::temp_directory_path() / ("infergap-exc-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "variants");
  write_binary_model(
      (dir / "variants" / "add_huge.onnx").string(), "Add",
      {{"A", "random:uniform,inject=huge@0/3"}, {"B", "random:uniform,inject=huge@0/3"}});
  write_binary_model((dir / "variants" / "mul_denormal.onnx").string(), "Mul",
                     {{"A", "random:uniform,inject=denormal@1/2"}, {"B", "random:uniform"}});
  const std::vector<std::string> platforms = {"ref", "ref:ftz=on", "onednn:isa=avx2,threads=1",
                                              "opencv"};
  std::string args = "campaign --models " + (dir / "variants").string() + " --store " +
                     (dir / "c.db").string() + " --jobs 2 --json";
  for (const auto& p : platforms) args += " -p '" + p + "'";
  auto r = testing::run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json a = json::parse(r.out).at("analysis");

  bool add = false, mul = false;
  for (const auto& e : a.at("exceptional")) {
    if (e.at("op") == "Add" && e.at("value") == "huge") {
      add = true;
      // Every platform overflowed exactly where the rounded oracle does: one behaviour.
      ASSERT_EQ(e.at("behaviours").size(), 1u) << e.dump();
      EXPECT_EQ(
          sorted(e.at("behaviours").at("overflow-as-oracle")),
          (std::vector<std::string>{"onednn:isa=avx2,threads=1", "opencv", "ref", "ref:ftz=on"}))
          << e.dump();
    }
    if (e.at("op") == "Mul" && e.at("value") == "denormal") {
      mul = true;
      const json& b = e.at("behaviours");
      ASSERT_TRUE(b.contains("flush")) << e.dump();
      EXPECT_NE(std::find(b["flush"].begin(), b["flush"].end(), "ref:ftz=on"), b["flush"].end());
      ASSERT_TRUE(b.contains("as-oracle")) << e.dump();
      EXPECT_NE(std::find(b["as-oracle"].begin(), b["as-oracle"].end(), "ref"),
                b["as-oracle"].end());
    }
  }
  EXPECT_TRUE(add && mul) << a.at("exceptional").dump();
  // The correct overflows are neither failures (nan-inf) nor discrepancies.
  for (const auto& p : platforms) {
    EXPECT_EQ(a.at("failures").at(p).at("nan-inf"), 0) << p;
    EXPECT_EQ(a.at("failures").at(p).at("ok"), 2) << p;
    EXPECT_EQ(a.at("discrepancy").at(p).at("discrepant"), 0) << p;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ig
