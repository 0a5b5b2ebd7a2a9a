// Limits checked before allocating: declared sizes against the memory budget (--max-memory),
// protobuf size, subgraph nesting depth and the per-run timeout. Each error names the file, the
// node or tensor, and the size.
#include <gtest/gtest.h>

#include "../support/expect_error.h"

#include <nlohmann/json.hpp>

#include "../support/cli.h"
#include "../support/mini_resnet.h"
#include "../support/onnx_builder.h"
#include "model/limits.h"
#include "model/npy.h"
#include "model/onnx_model.h"
#include "model/tensor_proto.h"

namespace ig {
namespace {

using testing::add_node;
using testing::add_tensor_value;
using testing::TempDir;

constexpr uint64_t kGiB = uint64_t{1} << 30;

Status load(const onnx::ModelProto& m, const std::string& path, uint64_t budget,
            int max_depth = 32) {
  testing::write_model(m, path);
  LoadOptions options;
  options.max_memory_bytes = budget;
  options.max_subgraph_depth = max_depth;
  return load_model(path, options).status();
}

TEST(Limits, ParsesSizesWithUnits) {
  EXPECT_EQ(*parse_byte_size("4G"), 4 * kGiB);
  EXPECT_EQ(*parse_byte_size("512M"), uint64_t{512} << 20);
  EXPECT_EQ(*parse_byte_size("1.5GiB"), 3 * kGiB / 2);
  EXPECT_EQ(*parse_byte_size("64K"), uint64_t{65536});
  EXPECT_EQ(*parse_byte_size("1048576"), uint64_t{1048576});
  testing::expect_error(parse_byte_size("12Q").status(), {"'12Q'", "unknown unit 'Q'"});
  testing::expect_error(parse_byte_size("lots").status(), {"'lots' is not a size"});
  testing::expect_error(parse_byte_size("0").status(), {"not a usable size"});
  testing::expect_error(parse_byte_size("-1G").status(), {"not a usable size"});
  EXPECT_GT(default_memory_budget(), uint64_t{0});
  EXPECT_EQ(describe_bytes(3 * kGiB / 2), "1.5 GiB (1610612736 bytes)");
}

TEST(Limits, InitializerOverTheBudgetNamesFileTensorAndSize) {
  TempDir dir;
  auto m = testing::relu_model();
  auto* w = m.mutable_graph()->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(100000);
  w->add_dims(100000);
  w->set_raw_data(std::string(4, '\0'));  // the declaration alone must be refused
  testing::expect_error(load(m, dir.file("big.onnx"), kGiB),
                        {"big.onnx", "initializer tensor 'W' float[100000,100000]",
                         "needs 37.3 GiB (40000000000 bytes)", "limit of 1.0 GiB", "--max-memory"});
}

TEST(Limits, InitializersTogetherOverTheBudget) {
  TempDir dir;
  auto m = testing::relu_model();
  for (const char* name : {"A", "B", "C"}) {
    auto* w = m.mutable_graph()->add_initializer();
    w->set_name(name);
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(100);
    w->set_raw_data(std::string(400, '\0'));
  }
  testing::expect_error(
      load(m, dir.file("three.onnx"), 1000),
      {"three.onnx", "the initializers together needs 1.2 KiB (1200 bytes)", "limit of 1000"});
  EXPECT_TRUE(load(m, dir.file("three.onnx"), 1200).ok());
}

TEST(Limits, GraphInputDeclaredOverTheBudget) {
  TempDir dir;
  auto m = testing::relu_model();
  auto* shape =
      m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->mutable_dim(0)->set_dim_value(3);
  for (int i = 0; i < 2; ++i) shape->add_dim()->set_dim_value(100000);
  testing::expect_error(load(m, dir.file("in.onnx"), 4 * kGiB),
                        {"in.onnx", "graph input 'X' declared as float[3,100000,100000]",
                         "111.8 GiB", "limit of 4.0 GiB"});
}

TEST(Limits, ShapeInferredValueOverTheBudgetNamesItsNode) {
  TempDir dir;
  auto m = testing::empty_model("expand");
  auto* g = m.mutable_graph();
  add_tensor_value(g->add_input(), "X", onnx::TensorProto::FLOAT, {1});
  testing::add_symbolic_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, 3);
  auto* shape = g->add_initializer();
  shape->set_name("S");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(3);
  for (int64_t d : {2000, 1000, 1000}) shape->add_int64_data(d);
  add_node(g, "Expand", "grow", {"X", "S"}, {"E"});
  add_node(g, "Relu", "relu", {"E"}, {"Y"});
  testing::expect_error(
      load(m, dir.file("expand.onnx"), kGiB),
      {"expand.onnx", "output of Expand 'grow', value 'E' declared as float[2000,1000,1000]",
       "7.5 GiB", "limit of 1.0 GiB"});
}

TEST(Limits, ConstantAttributeTensorOverTheBudgetNamesTheNode) {
  TempDir dir;
  auto m = testing::relu_model();
  auto* c = add_node(m.mutable_graph(), "Constant", "huge", {}, {"K"});
  auto* a = c->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::DOUBLE);
  a->mutable_t()->add_dims(int64_t{1} << 28);
  testing::expect_error(
      load(m, dir.file("const.onnx"), kGiB),
      {"const.onnx", "Constant 'huge', attribute 'value' tensor", "double[268435456]", "2.0 GiB"});
}

onnx::ModelProto nested_ifs(int depth) {
  auto m = testing::empty_model("nest");
  auto* g = m.mutable_graph();
  add_tensor_value(g->add_input(), "C", onnx::TensorProto::BOOL, {});
  add_tensor_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, {});
  for (int d = 0; d < depth; ++d) {
    auto* n = add_node(g, "If", "if" + std::to_string(d), {"C"}, {"Y"});
    auto* a = n->add_attribute();
    a->set_name("then_branch");
    a->set_type(onnx::AttributeProto::GRAPH);
    g = a->mutable_g();
    g->set_name("level" + std::to_string(d));
  }
  return m;
}

TEST(Limits, SubgraphsNestedTooDeepNameTheNodes) {
  TempDir dir;
  testing::expect_error(load(nested_ifs(5), dir.file("nest.onnx"), kGiB, 3),
                        {"nest.onnx", "If 'if0' subgraph 'then_branch'",
                         "If 'if3' subgraph 'then_branch'", "nested deeper than 3 levels"});
  testing::expect_error(load(nested_ifs(34), dir.file("nest34.onnx"), kGiB),
                        {"nest34.onnx", "nested deeper than 32 levels"});
  // Far deeper: refused by the parser's recursion limit, before anything recurses.
  testing::expect_error(
      load(nested_ifs(300), dir.file("nest300.onnx"), kGiB),
      {"nest300.onnx", "not a valid ONNX protobuf", "nested more than 116 levels"});
}

TEST(Limits, ProtobufSizeIsCheckedBeforeReading) {
  TempDir dir;
  testing::write_model(testing::mini_resnet(), dir.file("m.onnx"));
  LoadOptions options;
  options.max_file_bytes = 1000;
  testing::expect_error(load_model(dir.file("m.onnx"), options).status(),
                        {"m.onnx", "over the limit of 1000 bytes"});
}

TEST(Limits, RunAndStudyTakeMaxMemory) {
  TempDir dir;
  const std::string model = testing::write_model(testing::mini_resnet(), dir.file("m.onnx"));
  // The mini ResNet's weights are about 3.5 KiB: refused under 1K, run under the default.
  auto r = testing::run_cli("run " + model + " --max-memory 1K");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("m.onnx: initializer tensor"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("limit of 1.0 KiB (1024 bytes) set by the memory budget"), std::string::npos)
      << r.err;
  r = testing::run_cli("run " + model + " --max-memory 12Q");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("unknown unit 'Q'"), std::string::npos) << r.err;
  r = testing::run_cli("study --model " + model + " -p ref --oracle none --max-memory 1K --store " +
                       dir.file("s.db"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("set by the memory budget"), std::string::npos) << r.err;
  r = testing::run_cli("run " + model + " --max-memory 64M --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Limits, TensorsComputedAtRunTimeObeyTheBudget) {
  TempDir dir;
  auto m = testing::empty_model("expand");
  auto* g = m.mutable_graph();
  add_tensor_value(g->add_input(), "X", onnx::TensorProto::FLOAT, {1});
  add_tensor_value(g->add_input(), "S", onnx::TensorProto::INT64, {2});
  testing::add_symbolic_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, 2);
  add_node(g, "Expand", "grow", {"X", "S"}, {"Y"});
  const std::string model = testing::write_model(m, dir.file("grow.onnx"));
  const std::string shape = dir.file("s.npy");
  ASSERT_TRUE(
      write_file_bytes(shape, encode_npy(Tensor::from_vector<int64_t>({4096, 4096}, {2}))).ok());
  // 64 MiB of output under a 16 MiB budget: a clear verdict from the worker, not an OOM kill.
  auto r = testing::run_cli("run " + model + " --input S=" + shape + " --max-memory 16M --json");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("float[4096,4096]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("over the limit of 16777216 bytes"), std::string::npos) << r.err;
  r = testing::run_cli("run " + model + " --input S=" + shape + " --max-memory 128M --json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Limits, StudyTimeoutKillsAHangingRun) {
  TempDir dir;
  const std::string model = testing::write_model(testing::mini_resnet(), dir.file("m.onnx"));
  const auto r = testing::run_cli("study --model " + model +
                                      " -p crashtest:signal=hang --oracle none --timeout 0.5 "
                                      "--json --store " +
                                      dir.file("t.db"),
                                  "timeout 60");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_EQ(j["verdicts"]["timeout"], 1) << r.out;
}

}  // namespace
}  // namespace ig
