// Bad and hostile models: every case is a clear error naming the file and the problem.
#include <gtest/gtest.h>

#include "../support/expect_error.h"

#include <filesystem>
#include <fstream>

#include "../support/onnx_builder.h"
#include "backends/ref/ref_backend.h"
#include "model/tensor_proto.h"

namespace ig {
namespace {

using testing::relu_model;
using testing::TempDir;

std::string save(const TempDir& dir, const onnx::ModelProto& m,
                 const std::string& name = "model.onnx") {
  const std::string path = dir.file(name);
  EXPECT_TRUE(save_model_proto(m, path).ok());
  return path;
}

TEST(BadModel, MissingFile) {
  testing::expect_error(load_model("/nonexistent/model.onnx").status(),
                        {"/nonexistent/model.onnx", "no such file"});
}

TEST(BadModel, EmptyFile) {
  TempDir dir;
  std::ofstream(dir.file("empty.onnx")).close();
  testing::expect_error(load_model(dir.file("empty.onnx")).status(), {"empty.onnx", "empty"});
}

TEST(BadModel, TruncatedFile) {
  TempDir dir;
  std::string bytes;
  ASSERT_TRUE(relu_model().SerializeToString(&bytes));
  ASSERT_TRUE(write_file_bytes(dir.file("cut.onnx"), bytes.substr(0, bytes.size() / 2)).ok());
  testing::expect_error(load_model(dir.file("cut.onnx")).status(),
                        {"cut.onnx", "not a valid ONNX protobuf"});
}

TEST(BadModel, NotProtobufAtAll) {
  TempDir dir;
  ASSERT_TRUE(write_file_bytes(dir.file("text.onnx"), "this is a text file, not a model\n").ok());
  auto st = load_model(dir.file("text.onnx")).status();
  testing::expect_error(st, {"text.onnx"});
}

TEST(BadModel, UnknownOperatorIsNamed) {
  TempDir dir;
  auto m = relu_model();
  m.mutable_graph()->mutable_node(0)->set_op_type("Frobnicate");
  testing::expect_error(load_model(save(dir, m)).status(), {"model.onnx", "Frobnicate"});
}

TEST(BadModel, OperatorKnownToOnnxButNotImplementedIsUnsupportedNotACrash) {
  TempDir dir;
  auto m = relu_model();
  m.mutable_graph()->mutable_node(0)->set_op_type("Det");  // valid ONNX, maybe not implemented
  auto model = load_model(save(dir, m));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  RefBackend ref;
  for (const auto& [node, st] : ref.unsupported_nodes_of(*model)) {
    EXPECT_EQ(st.code(), StatusCode::kUnsupported);
    EXPECT_NE(st.message().find("Det"), std::string::npos);
  }
}

TEST(BadModel, MissingInitializerNamesTheValueAndNode) {
  TempDir dir;
  auto m = relu_model();
  auto* n = m.mutable_graph()->mutable_node(0);
  n->set_op_type("Add");
  n->add_input("W");  // never provided
  auto st = load_model(save(dir, m)).status();
  testing::expect_error(st, {"model.onnx", "W"});
  LoadOptions no_checker;
  no_checker.run_checker = false;
  testing::expect_error(load_model(dir.file("model.onnx"), no_checker).status(),
                        {"model.onnx", "Add 'relu0' reads 'W'", "no node, input or initializer"});
}

TEST(BadModel, CycleIsDetected) {
  TempDir dir;
  auto m = relu_model();
  auto* g = m.mutable_graph();
  g->mutable_node(0)->set_input(0, "B");
  g->mutable_node(0)->set_output(0, "A");
  auto* n2 = g->add_node();
  n2->set_op_type("Relu");
  n2->set_name("relu1");
  n2->add_input("A");
  n2->add_output("B");
  auto* n3 = g->add_node();
  n3->set_op_type("Relu");
  n3->add_input("X");
  n3->add_output("Y");
  LoadOptions no_checker;
  no_checker.run_checker = false;
  testing::expect_error(load_model(save(dir, m), no_checker).status(), {"model.onnx", "cycle"});
  testing::expect_error(load_model(dir.file("model.onnx")).status(), {"model.onnx"});
}

TEST(BadModel, BadInitializerSizeNamesTheTensor) {
  TempDir dir;
  auto m = relu_model();
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("W");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(1000);
  init->set_raw_data(std::string(8, '\0'));
  LoadOptions no_checker;
  no_checker.run_checker = false;
  testing::expect_error(load_model(save(dir, m), no_checker).status(),
                        {"model.onnx", "tensor 'W'", "raw_data has 8 bytes"});
}

TEST(BadModel, AbsurdDimsAreRefusedBeforeAllocating) {
  TempDir dir;
  auto m = relu_model();
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("W");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(int64_t{1} << 20);
  init->add_dims(int64_t{1} << 20);
  LoadOptions no_checker;
  no_checker.run_checker = false;
  testing::expect_error(load_model(save(dir, m), no_checker).status(),
                        {"model.onnx", "tensor 'W'", "over the limit"});
}

// Paddle2ONNX's conventions on the graph's inputs (PaddleOCR's models): -1 for a dynamic size,
// "?" for an unnamed one; both read as unknown, each "?" its own. Other negatives stay refused.
TEST(BadModel, PaddleDynamicDimsAreUnknownOtherNegativesRefused) {
  TempDir dir;
  auto m = relu_model();
  auto* shape =
      m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->mutable_dim(0)->set_dim_value(-1);
  shape->add_dim()->set_dim_param("?");
  shape->add_dim()->set_dim_param("?");
  auto loaded = load_model(save(dir, m));
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  const auto& dims = loaded->graph.inputs.at(0).dims;
  ASSERT_EQ(dims.size(), 3u);
  for (const Dim& d : dims) {
    EXPECT_EQ(d.value, -1);
    EXPECT_EQ(d.symbol, "");  // not one symbol that ties the two "?" dims together
  }
  shape->mutable_dim(0)->set_dim_value(-3);
  testing::expect_error(load_model(save(dir, m, "minus3.onnx")).status(),
                        {"minus3.onnx", "value 'X' declares negative dimension -3"});
}

onnx::ModelProto model_with_external(const std::string& location) {
  auto m = relu_model();
  auto* init = m.mutable_graph()->add_initializer();
  init->set_name("W");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(2);
  init->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* kv = init->add_external_data();
  kv->set_key("location");
  kv->set_value(location);
  return m;
}

class ExternalData : public ::testing::Test {
 protected:
  TempDir outer;
  std::string model_dir;
  void SetUp() override {
    model_dir = outer.file("model");
    std::filesystem::create_directories(model_dir);
    ASSERT_TRUE(write_file_bytes(outer.file("secret.bin"), std::string(8, '\x01')).ok());
    ASSERT_TRUE(write_file_bytes(model_dir + "/weights.bin", std::string(8, '\0')).ok());
  }
  Status load(const std::string& location) {
    const std::string path = model_dir + "/model.onnx";
    EXPECT_TRUE(save_model_proto(model_with_external(location), path).ok());
    LoadOptions no_checker;  // our own guard must hold even where the checker would not look
    no_checker.run_checker = false;
    return load_model(path, no_checker).status();
  }
};

TEST_F(ExternalData, InsideTheFolderLoads) { EXPECT_TRUE(load("weights.bin").ok()); }

TEST_F(ExternalData, AbsolutePathIsRefused) {
  testing::expect_error(load(outer.file("secret.bin")), {"tensor 'W'", "absolute"});
}

TEST_F(ExternalData, DotDotIsRefused) {
  testing::expect_error(load("../secret.bin"), {"tensor 'W'", "'..'"});
}

TEST_F(ExternalData, SymlinkEscapeIsRefused) {
  std::filesystem::create_symlink(outer.file("secret.bin"), model_dir + "/link.bin");
  testing::expect_error(load("link.bin"), {"tensor 'W'", "outside the model's folder"});
}

TEST_F(ExternalData, RangeOutsideTheFileIsRefused) {
  auto m = model_with_external("weights.bin");
  auto* kv = m.mutable_graph()->mutable_initializer(0)->add_external_data();
  kv->set_key("offset");
  kv->set_value("4");
  kv = m.mutable_graph()->mutable_initializer(0)->add_external_data();
  kv->set_key("length");
  kv->set_value("8");
  const std::string path = model_dir + "/model.onnx";
  ASSERT_TRUE(save_model_proto(m, path).ok());
  LoadOptions no_checker;
  no_checker.run_checker = false;
  testing::expect_error(load_model(path, no_checker).status(), {"tensor 'W'", "outside the file"});
}

TEST(BadFeeds, WrongShapeAndDtypeNameTheInput) {
  TempDir dir;
  auto model = load_model(save(dir, relu_model()));
  ASSERT_TRUE(model.ok());
  RefBackend ref;
  testing::expect_error(ref.run(*model, {{"X", Tensor(DType::kFloat32, {3})}}, nullptr).status(),
                        {"input 'X'", "X: float[2]", "float[3]"});
  testing::expect_error(ref.run(*model, {{"X", Tensor(DType::kInt64, {2})}}, nullptr).status(),
                        {"input 'X'", "int64[2]"});
  testing::expect_error(ref.run(*model, {}, nullptr).status(), {"input 'X'", "was not given"});
  testing::expect_error(
      ref.run(*model, {{"X", Tensor(DType::kFloat32, {2})}, {"Z", Tensor(DType::kFloat32, {2})}},
              nullptr)
          .status(),
      {"no input 'Z'"});
  auto ok = ref.run(*model, {{"X", Tensor::from_vector<float>({-1, 2}, {2})}}, nullptr);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)[0].tensor.data<float>()[0], 0.0f);
  EXPECT_EQ((*ok)[0].tensor.data<float>()[1], 2.0f);
}

}  // namespace
}  // namespace ig
