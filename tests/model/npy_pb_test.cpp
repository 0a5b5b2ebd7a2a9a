#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../support/onnx_builder.h"
#include "model/npy.h"
#include "model/tensor_proto.h"

namespace ig {
namespace {

using testing::TempDir;

template <typename T>
Tensor sample(std::vector<T> v, Shape shape) {
  return Tensor::from_vector<T>(v, std::move(shape));
}

std::vector<Tensor> samples() {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  Tensor h(DType::kFloat16, {3});
  h.data<Float16>()[0] = Float16(1.5f);
  h.data<Float16>()[1] = Float16::from_bits(0x0001);  // denormal
  h.data<Float16>()[2] = Float16::from_bits(0xfc00);  // -Inf
  return {
      sample<float>({1.0f, -0.0f, nan, inf, 1e-45f, -3.25f}, {2, 3}),
      sample<double>({0.1, -1e308, 5e-324}, {3}),
      h,
      sample<int8_t>({-128, 0, 127}, {3}),
      sample<int16_t>({-300, 2}, {2}),
      sample<int32_t>({-5, 7, 1 << 30}, {3, 1}),
      sample<int64_t>({INT64_MIN, 0, INT64_MAX}, {3}),
      sample<uint8_t>({0, 255}, {2}),
      sample<uint16_t>({65535}, {1}),
      sample<uint32_t>({4000000000u}, {1}),
      sample<uint64_t>({UINT64_MAX}, {1}),
      sample<bool>({true, false, true}, {3}),
      sample<float>({42.0f}, {}),  // scalar
      sample<float>({}, {0, 4}),   // empty
  };
}

TEST(Npy, RoundTripKeepsDtypeShapeAndBits) {
  TempDir dir;
  for (const Tensor& t : samples()) {
    const std::string path = dir.file(std::string(dtype_name(t.dtype())) + ".npy");
    ASSERT_TRUE(write_npy(t, path).ok());
    auto back = read_npy(path);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_TRUE(back->bitwise_equal(t)) << t.describe() << " vs " << back->describe();
  }
}

TEST(Npy, HeaderIsAlignedAndReadableByNumpyConventions) {
  const std::string bytes = encode_npy(sample<float>({1, 2}, {2}));
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  const size_t header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  EXPECT_NE(bytes.find("'descr': '<f4'"), std::string::npos);
  EXPECT_NE(bytes.find("'shape': (2,)"), std::string::npos);
}

TEST(Npy, BFloat16IsWrittenAsExactFloat32AndReadBackWhenRepresentable) {
  TempDir dir;
  Tensor b(DType::kBFloat16, {2});
  b.data<BFloat16>()[0] = BFloat16(1.5f);
  b.data<BFloat16>()[1] = BFloat16(-3.0f);
  ASSERT_TRUE(write_npy(b, dir.file("b.npy")).ok());
  auto f = read_npy(dir.file("b.npy"));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->dtype(), DType::kFloat32);
  auto back = npy_to_dtype(*f, DType::kBFloat16, "b.npy");
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->bitwise_equal(b));
  auto lossy = npy_to_dtype(sample<float>({1.0f + 0x1.0p-20f}, {1}), DType::kBFloat16, "x.npy");
  ASSERT_FALSE(lossy.ok());
  EXPECT_NE(lossy.status().message().find("not exactly representable"), std::string::npos);
}

TEST(Npy, NarrowTypesAreWrittenAsExactFloat32AndReadBackWhenRepresentable) {
  TempDir dir;
  Tensor q(DType::kFloat8E4M3FN, {3});
  q.codes()[0] = 0x7E;  // 448
  q.codes()[1] = 0x81;  // -2^-9
  q.codes()[2] = 0x7F;  // NaN
  ASSERT_TRUE(write_npy(q, dir.file("q.npy")).ok());
  auto f = read_npy(dir.file("q.npy"));
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->dtype(), DType::kFloat32);
  EXPECT_EQ(f->data<float>()[0], 448.0f);
  auto back = npy_to_dtype(*f, DType::kFloat8E4M3FN, "q.npy");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_TRUE(back->bitwise_equal(q));
  auto lossy = npy_to_dtype(sample<float>({449.0f}, {1}), DType::kFloat8E4M3FN, "x.npy");
  ASSERT_FALSE(lossy.ok());
  EXPECT_NE(lossy.status().message().find("x.npy: element 0 (449) is not exactly representable as "
                                          "float8e4m3fn"),
            std::string::npos)
      << lossy.status().message();
  auto int4 = npy_to_dtype(sample<int8_t>({-8, 7}, {2}), DType::kInt4, "i.npy");
  ASSERT_TRUE(int4.ok());
  EXPECT_EQ(int4->to_int64_vector(), (std::vector<int64_t>{-8, 7}));
  EXPECT_FALSE(npy_to_dtype(sample<int8_t>({8}, {1}), DType::kInt4, "i.npy").ok());
}

TEST(Npy, MalformedFilesGiveClearErrors) {
  EXPECT_NE(parse_npy("hello", "a.npy").status().message().find("bad magic"), std::string::npos);
  std::string good = encode_npy(sample<float>({1, 2, 3}, {3}));
  auto truncated = parse_npy(good.substr(0, good.size() - 2), "t.npy");
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.status().message().find("t.npy"), std::string::npos);
  EXPECT_NE(truncated.status().message().find("needs 12"), std::string::npos);
  EXPECT_EQ(read_npy("/nonexistent/x.npy").status().code(), StatusCode::kNotFound);
}

TEST(TensorPb, RoundTripKeepsEveryType) {
  TempDir dir;
  auto all = samples();
  all.push_back(Tensor::from_strings({"a", "", "ünï"}, {3}));
  Tensor bf(DType::kBFloat16, {1});
  bf.data<BFloat16>()[0] = BFloat16(-2.0f);
  all.push_back(bf);
  // Narrow types: packed in the file (4- and 2-bit codes), one a byte in memory.
  for (DType dt : {DType::kFloat8E5M2, DType::kInt4, DType::kUInt2, DType::kFloat4E2M1}) {
    Tensor n(dt, {3});
    const int mask = (1 << dtype_info(dt).narrow_bits) - 1;
    for (int i = 0; i < 3; ++i) n.codes()[i] = static_cast<uint8_t>((0x5A >> i) & mask);
    all.push_back(n);
  }
  for (const Tensor& t : all) {
    const std::string path = dir.file(std::string(dtype_name(t.dtype())) + ".pb");
    ASSERT_TRUE(write_tensor_pb(t, "x", path).ok());
    std::string name;
    auto back = read_tensor_pb(path, &name);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_EQ(name, "x");
    EXPECT_TRUE(back->bitwise_equal(t)) << t.describe();
  }
}

TEST(TensorPb, TypedFieldsAreReadToo) {
  onnx::TensorProto p;
  p.set_data_type(onnx::TensorProto::FLOAT16);
  p.add_dims(2);
  p.add_int32_data(0x3c00);
  p.add_int32_data(0x7e00);
  auto t = tensor_from_proto(p);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->data<Float16>()[0].bits, 0x3c00);
  EXPECT_EQ(t->data<Float16>()[1].bits, 0x7e00);
}

TEST(TensorPb, SizeMismatchesAreRefused) {
  onnx::TensorProto p;
  p.set_name("w");
  p.set_data_type(onnx::TensorProto::FLOAT);
  p.add_dims(4);
  p.set_raw_data(std::string(12, '\0'));
  auto t = tensor_from_proto(p);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("tensor 'w'"), std::string::npos);
  EXPECT_NE(t.status().message().find("raw_data has 12 bytes"), std::string::npos);

  onnx::TensorProto q;
  q.set_data_type(onnx::TensorProto::INT64);
  q.add_dims(3);
  q.add_int64_data(1);
  EXPECT_NE(tensor_from_proto(q).status().message().find("int64_data holds 1 values"),
            std::string::npos);

  onnx::TensorProto n;  // 5 int4 values take 3 packed bytes
  n.set_name("w4");
  n.set_data_type(static_cast<int>(DType::kInt4));
  n.add_dims(5);
  n.set_raw_data(std::string(2, '\0'));
  EXPECT_NE(tensor_from_proto(n).status().message().find(
                "tensor 'w4': raw_data has 2 bytes but int4[5] needs 3 (4 bits a value, packed)"),
            std::string::npos)
      << tensor_from_proto(n).status().message();
  n.clear_raw_data();
  for (int v : {0x12, 0x34, 0x456}) n.add_int32_data(v);
  EXPECT_NE(tensor_from_proto(n).status().message().find(
                "int32_data value 1110 at index 2 is not a byte of packed int4"),
            std::string::npos);

  onnx::TensorProto r;
  r.set_data_type(99);
  EXPECT_NE(tensor_from_proto(r).status().message().find("unknown data type 99"),
            std::string::npos);
}

}  // namespace
}  // namespace ig
