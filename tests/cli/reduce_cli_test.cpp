// `infergap reduce`: delta debugging to the smallest cut of a model on which two platforms still
// differ, run as whole models (so a library's fusion reduces too); agreement and bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "../support/cli.h"
#include "../support/mini_resnet.h"
#include "../support/onnx_builder.h"

namespace ig {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;
using testing::TempDir;

nlohmann::json reduce_json(const std::string& args, int expect_exit = 0) {
  const auto r = run_cli("reduce " + args + " --json");
  EXPECT_EQ(r.exit_code, expect_exit) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

// Running the reduced model again, as its repro line says: the two platforms still differ.
void expect_still_differs(const nlohmann::json& j) {
  std::string args = "run " + j["reduced_model"].get<std::string>();
  for (const auto& [name, path] : j["inputs"].items()) {
    args += " --input '" + name + "=" + path.get<std::string>() + "'";
  }
  args += " -p '" + j["a"].get<std::string>() + "' -p '" + j["b"].get<std::string>() + "' --json";
  const auto r = run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rj = nlohmann::json::parse(r.out);
  EXPECT_EQ(rj["groups"].size(), 2u) << r.out;
}

TEST(ReduceCli, TwoSummationOrdersReduceToTheFirstConvolution) {
  TempDir dir;
  const std::string model =
      testing::write_model(testing::mini_resnet(16, 12), dir.file("mini_resnet.onnx"));
  const auto j = reduce_json(model + " -p ref -p 'ref:acc=lanes8' -o " + dir.file("out"));
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["criterion"], "bitwise");
  EXPECT_GT(j["original_nodes"].get<int>(), 5);
  ASSERT_EQ(j["nodes"].size(), 1u) << j.dump();
  EXPECT_EQ(j["nodes"][0], "conv1");
  EXPECT_EQ(j["ops"][0], "Conv");
  EXPECT_TRUE(fs::exists(j["reduced_model"].get<std::string>()));
  EXPECT_TRUE(fs::exists(dir.file("out/repro.sh")));
  expect_still_differs(j);
}

// ONNX Runtime's optimizer folds a zero Pad into MaxPool's padding, which pads with -inf: on
// negative inputs the border windows change (ORT 1.30). Only a whole-model run shows it: the
// cut keeps both nodes, and the tolerance criterion ignores the bit-level noise elsewhere.
TEST(ReduceCli, AFusionReducesToTheNodesItFuses) {
  onnx::ModelProto m = testing::empty_model("padpool");
  auto* g = m.mutable_graph();
  testing::add_tensor_value(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 4, 16, 16});
  testing::add_tensor_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 4, 8, 8});
  testing::add_node(g, "Neg", "negate", {"X"}, {"n"});
  testing::add_node(g, "Exp", "exp", {"n"}, {"e"});
  testing::add_node(g, "Neg", "negate2", {"e"}, {"m"});  // -exp(-x): negative everywhere
  auto* pads = g->add_initializer();
  pads->set_name("pads");
  pads->set_data_type(onnx::TensorProto::INT64);
  pads->add_dims(8);
  for (int64_t v : {0, 0, 1, 1, 0, 0, 1, 1}) pads->add_int64_data(v);
  testing::add_node(g, "Pad", "zeropad", {"m", "pads"}, {"p"});
  auto* mp = testing::add_node(g, "MaxPool", "pool", {"p"}, {"q"});
  testing::add_ints(mp, "kernel_shape", {3, 3});
  testing::add_ints(mp, "strides", {2, 2});
  testing::add_node(g, "Sigmoid", "sigmoid", {"q"}, {"Y"});
  TempDir dir;
  const std::string model = testing::write_model(m, dir.file("padpool.onnx"));
  const auto j = reduce_json(model +
                             " -p ort:opt=all -p ort:opt=disabled --criterion tolerance "
                             "--rtol 1e-3 --atol 1e-4 -o " +
                             dir.file("out"));
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["original_nodes"], 6);
  EXPECT_EQ(j["ops"], nlohmann::json({"Pad", "MaxPool"})) << j.dump();
  EXPECT_NE(j["a_vs_b"].get<std::string>().find("q: "), std::string::npos) << j.dump();
  expect_still_differs(j);

  // Then the input's elements: most zeroed, the written input still shows the difference.
  const auto k = reduce_json(model +
                             " -p ort:opt=all -p ort:opt=disabled --criterion tolerance "
                             "--rtol 1e-3 --atol 1e-4 --reduce-inputs 30 -o " +
                             dir.file("out2"));
  ASSERT_FALSE(k.is_discarded());
  ASSERT_EQ(k["input_elements"].size(), 1u) << k.dump();
  const auto& counts = k["input_elements"].begin().value();
  EXPECT_EQ(counts["total"], 4 * 16 * 16);
  EXPECT_LT(counts["nonzero"].get<int>(), 4 * 16 * 16 / 4) << k.dump();
  EXPECT_GT(counts["nonzero"].get<int>(), 0);
  expect_still_differs(k);
}

// Control flow: an If whose branch does the long sum is kept whole, its branch reading a value of
// the main graph and an initializer from the enclosing scope.
TEST(ReduceCli, AnIfIsKeptWholeWithWhatItsBranchReads) {
  onnx::ModelProto m = testing::empty_model("ifmodel");
  auto* g = m.mutable_graph();
  testing::add_tensor_value(g->add_input(), "X", onnx::TensorProto::FLOAT, {4, 64});
  testing::add_tensor_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, {4, 8});
  testing::fill_weights(g->add_initializer(), "W", {64, 8}, 3);
  auto* cond = g->add_initializer();
  cond->set_name("cond");
  cond->set_data_type(onnx::TensorProto::BOOL);
  cond->add_int32_data(1);
  testing::add_node(g, "Relu", "relu", {"X"}, {"r"});
  auto* n = testing::add_node(g, "If", "branch", {"cond"}, {"z"});
  for (const char* name : {"then_branch", "else_branch"}) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* body = a->mutable_g();
    body->set_name(name);
    const std::string op = std::string(name) == "then_branch" ? "MatMul" : "Add";
    auto* bn = body->add_node();
    bn->set_op_type("MatMul");
    bn->set_name(op + "_in_branch");
    bn->add_input("r");
    bn->add_input("W");
    bn->add_output(std::string(name) + "_out");
    testing::add_tensor_value(body->add_output(), std::string(name) + "_out",
                              onnx::TensorProto::FLOAT, {4, 8});
  }
  testing::add_node(g, "Sigmoid", "sigmoid", {"z"}, {"Y"});
  TempDir dir;
  const std::string model = testing::write_model(m, dir.file("if.onnx"));
  const auto j = reduce_json(model + " -p ref -p 'ref:acc=lanes8' -o " + dir.file("out"));
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["ops"], nlohmann::json({"If"})) << j.dump();
  expect_still_differs(j);
}

TEST(ReduceCli, PlatformsThatAgreeWriteNothing) {
  TempDir dir;
  const std::string model =
      testing::write_model(testing::mini_resnet(8, 8), dir.file("mini_resnet.onnx"));
  const auto r = run_cli("reduce " + model +
                         " -p ref -p 'ref:acc=lanes8' --criterion tolerance "
                         "--rtol 1e-3 --atol 1e-5 -o " +
                         dir.file("out"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("ref and ref:acc=lanes8 agree on " + model + " under tolerance"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir.file("out")));
}

TEST(ReduceCli, BadInputIsAClearError) {
  TempDir dir;
  const std::string model =
      testing::write_model(testing::mini_resnet(8, 8), dir.file("mini_resnet.onnx"));
  const auto one = run_cli("reduce " + model + " -p ref -o " + dir.file("out"));
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.err.find("exactly two platforms"), std::string::npos) << one.err;
  const auto crit =
      run_cli("reduce " + model + " -p ref -p ref:fma=on --criterion ulp -o " + dir.file("out"));
  EXPECT_EQ(crit.exit_code, 2);
  EXPECT_NE(crit.err.find("criterion 'ulp'"), std::string::npos) << crit.err;
  const auto missing =
      run_cli("reduce " + dir.file("nope.onnx") + " -p ref -p ref:fma=on -o " + dir.file("out"));
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.onnx"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace ig
