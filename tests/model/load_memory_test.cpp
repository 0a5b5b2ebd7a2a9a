// Loading holds a model's weights once: the file is parsed as it is read, the parsed message's
// initializers give up their data as they are converted, and the ONNX helper is sent the model
// without its large weights. None of that may change what is loaded or what inference declares.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <vector>

#include "../support/onnx_builder.h"
#include "model/onnx_model.h"
#include "model/tensor_proto.h"

namespace ig {
namespace {

constexpr int64_t kRows = 128, kCols = 256;  // 128 KiB of float weights: sent without its data

std::vector<float> weights() {
  std::vector<float> w(static_cast<size_t>(kRows * kCols));
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i % 97) * 0.25f - 3.0f;
  return w;
}

// X float[1,128] -> MatMul W[128,256] -> Reshape to shape [16,16] -> R -> Relu -> Y (shape
// symbolic), so only inference, reading the int64 shape initializer, can declare R's shape.
onnx::ModelProto matmul_reshape_model() {
  onnx::ModelProto m = testing::empty_model("matmul_reshape");
  auto* g = m.mutable_graph();
  testing::add_tensor_value(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, kRows});
  testing::add_symbolic_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, 2);
  auto* w = g->add_initializer();
  w->set_name("W");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(kRows);
  w->add_dims(kCols);
  const auto values = weights();
  w->set_raw_data(
      std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  auto* shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(2);
  shape->add_int64_data(16);
  shape->add_int64_data(16);
  auto* mm = g->add_node();
  mm->set_op_type("MatMul");
  mm->set_name("mm");
  mm->add_input("X");
  mm->add_input("W");
  mm->add_output("H");
  auto* r = g->add_node();
  r->set_op_type("Reshape");
  r->set_name("reshape");
  r->add_input("H");
  r->add_input("shape");
  r->add_output("R");
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name("relu");
  relu->add_input("R");
  relu->add_output("Y");
  return m;
}

std::vector<int64_t> dims_of(const ValueInfo& v) {
  std::vector<int64_t> out;
  for (const auto& d : v.dims) out.push_back(d.value);
  return out;
}

void expect_weights(const Model& model) {
  const Tensor& w = model.graph.initializers.at("W");
  const auto values = weights();
  ASSERT_EQ(w.nbytes(), values.size() * sizeof(float));
  EXPECT_EQ(std::memcmp(w.raw(), values.data(), w.nbytes()), 0);
}

TEST(LoadMemory, HelperInfersShapesWithoutTheWeightsAndTheWeightsLoadIntact) {
  testing::TempDir dir;
  const std::string path = dir.file("mm.onnx");
  ASSERT_TRUE(save_model_proto(matmul_reshape_model(), path).ok());
  LoadOptions options;
  options.onnx_in_this_process = false;  // through the helper, as the study process loads
  auto model = load_model(path, options);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  ASSERT_TRUE(model->graph.value_info.count("R"));
  EXPECT_EQ(dims_of(model->graph.value_info.at("R")), (std::vector<int64_t>{16, 16}));
  ASSERT_TRUE(model->graph.value_info.count("H"));
  EXPECT_EQ(dims_of(model->graph.value_info.at("H")), (std::vector<int64_t>{1, kCols}));
  expect_weights(*model);
}

TEST(LoadMemory, ModelFromProtoReleasesInitializerDataOnlyWhenAsked) {
  for (const bool release : {false, true}) {
    onnx::ModelProto proto = matmul_reshape_model();
    LoadOptions options;
    options.onnx_in_this_process = true;
    options.release_initializer_data = release;
    auto model = model_from_proto(proto, "mm", "", options);
    ASSERT_TRUE(model.ok()) << model.status().to_string();
    expect_weights(*model);
    EXPECT_EQ(proto.graph().initializer(0).raw_data().empty(), release);
  }
}

// A worker whose backend runs the file itself (ORT) keeps large weights' dtype and shape only;
// small initializers (shape tensors) keep their data.
TEST(LoadMemory, WithoutInitializerDataLargeWeightsKeepDtypeAndShapeOnly) {
  testing::TempDir dir;
  const std::string path = dir.file("mm.onnx");
  ASSERT_TRUE(save_model_proto(matmul_reshape_model(), path).ok());
  LoadOptions options;
  options.initializer_data = false;
  auto model = load_model(path, options);
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  const Tensor& w = model->graph.initializers.at("W");
  EXPECT_EQ(w.dtype(), DType::kFloat32);
  EXPECT_EQ(w.shape(), (Shape{kRows, kCols}));
  EXPECT_EQ(w.nbytes(), static_cast<size_t>(kRows * kCols) * sizeof(float));
  EXPECT_EQ(w.raw(), nullptr);
  const Tensor& shape = model->graph.initializers.at("shape");
  ASSERT_NE(shape.raw(), nullptr);
  EXPECT_EQ(shape.to_int64_vector(), (std::vector<int64_t>{16, 16}));
  // And with data, as every other backend loads it.
  auto full = load_model(path);
  ASSERT_TRUE(full.ok());
  expect_weights(*full);
}

TEST(LoadMemory, ReadErrorsStillNameTheFile) {
  testing::TempDir dir;
  auto missing = load_model(dir.file("absent.onnx"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("absent.onnx: no such file"), std::string::npos)
      << missing.status().message();
  const std::string empty = dir.file("empty.onnx");
  ASSERT_TRUE(write_file_bytes(empty, "").ok());
  auto e = load_model(empty);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("empty.onnx: file is empty"), std::string::npos);
  const std::string junk = dir.file("junk.onnx");
  ASSERT_TRUE(write_file_bytes(junk, std::string("\xff\xff\xff\xff garbage", 12)).ok());
  auto j = load_model(junk);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find("junk.onnx: not a valid ONNX protobuf"), std::string::npos)
      << j.status().message();
  LoadOptions small;
  small.max_file_bytes = 4;
  auto big = load_model(junk, small);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("over the limit of 4 bytes"), std::string::npos);
}

}  // namespace
}  // namespace ig
