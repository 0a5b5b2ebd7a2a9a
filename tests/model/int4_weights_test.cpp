// int4/uint4 weights read by DequantizeLinear are held as int8/uint8 with the same values
// (model/int4_weights.h); packed data of the wrong size is an error naming the initializer, and
// an int4 tensor anything else reads stays int4 (core/narrow_types.h), unpacked one a byte.
#include <gtest/gtest.h>

#include "../support/onnx_builder.h"
#include "model/onnx_model.h"

namespace ig {
namespace int4_weights_test {

using testing::add_tensor_value;
using testing::TempDir;

constexpr int kInt4 = 22, kUInt4 = 21;

// W (4 elements of `type`, packed as given) -> `op` 'reader' -> Y float[4].
onnx::ModelProto int4_model(int type, const std::string& packed, bool as_int32,
                            const std::string& op = "DequantizeLinear") {
  onnx::ModelProto m = testing::empty_model("w4");
  auto* g = m.mutable_graph();
  add_tensor_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, {4});
  auto* w = g->add_initializer();
  w->set_name("W");
  w->set_data_type(type);
  w->add_dims(4);
  if (as_int32) {
    for (char c : packed) w->add_int32_data(static_cast<uint8_t>(c));
  } else {
    w->set_raw_data(packed);
  }
  auto* s = g->add_initializer();
  s->set_name("s");
  s->set_data_type(onnx::TensorProto::FLOAT);
  s->add_float_data(0.5f);
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name("reader");
  n->add_input("W");
  if (op == "DequantizeLinear") n->add_input("s");
  if (op == "Cast") {
    auto* to = n->add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(onnx::TensorProto::FLOAT);
  }
  n->add_output("Y");
  return m;
}

Expected<Model> load_w4(const onnx::ModelProto& m) {
  TempDir dir;
  const std::string path = dir.file("w4.onnx");
  EXPECT_TRUE(save_model_proto(m, path).ok());
  return load_model(path);
}

// -8, -1, 0, 7: the first of each pair in the low nibble.
const std::string kSignedPacked{static_cast<char>(0xf8), static_cast<char>(0x70)};

TEST(Int4Weights, DequantizedWeightsAreHeldAsInt8WithTheirValues) {
  for (bool as_int32 : {false, true}) {
    auto m = load_w4(int4_model(kInt4, kSignedPacked, as_int32));
    ASSERT_TRUE(m.ok()) << m.status().to_string();
    const Tensor& w = m->graph.initializers.at("W");
    ASSERT_EQ(w.dtype(), DType::kInt8);
    EXPECT_EQ(w.to_int64_vector(), (std::vector<int64_t>{-8, -1, 0, 7}));
  }
  auto u = load_w4(int4_model(kUInt4, kSignedPacked, false));
  ASSERT_TRUE(u.ok()) << u.status().to_string();
  EXPECT_EQ(u->graph.initializers.at("W").dtype(), DType::kUInt8);
  EXPECT_EQ(u->graph.initializers.at("W").to_int64_vector(), (std::vector<int64_t>{8, 15, 0, 7}));
}

TEST(Int4Weights, PackedDataOfTheWrongSizeNamesTheInitializer) {
  auto m = load_w4(int4_model(kInt4, std::string(1, '\0'), false));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find(
                "initializer 'W': 4 elements of int4 need 2 packed bytes, it holds 1"),
            std::string::npos)
      << m.status().message();
}

TEST(Int4Weights, AnInt32DataValueThatIsNotAByteIsRefusedAsTheLoaderRefusesIt) {
  // 0x1f8 masked to a byte would read as -8, -1: the widening refuses it by name instead.
  onnx::ModelProto proto = int4_model(kInt4, kSignedPacked, true);
  proto.mutable_graph()->mutable_initializer(0)->set_int32_data(0, 0x1f8);
  auto m = load_w4(proto);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find(
                "initializer 'W': int32_data value 504 at index 0 is not a byte of packed int4"),
            std::string::npos)
      << m.status().message();
}

TEST(Int4Weights, AnInt4TensorAnotherOperatorReadsStaysInt4) {
  for (bool as_int32 : {false, true}) {
    auto m = load_w4(int4_model(kInt4, kSignedPacked, as_int32, "Cast"));
    ASSERT_TRUE(m.ok()) << m.status().to_string();
    const Tensor& w = m->graph.initializers.at("W");
    EXPECT_EQ(w.dtype(), DType::kInt4);
    EXPECT_EQ(w.to_int64_vector(), (std::vector<int64_t>{-8, -1, 0, 7}));
  }
  // One byte too few is an error naming the tensor (ONNX's checker finds it first here;
  // TensorPb.SizeMismatchesAreRefused has ours).
  auto m = load_w4(int4_model(kInt4, std::string(1, '\0'), false, "Cast"));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("(tensor name: W) raw_data size (1 bytes) is too small"),
            std::string::npos)
      << m.status().message();
}

}  // namespace int4_weights_test
}  // namespace ig
