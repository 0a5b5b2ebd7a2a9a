// The store's compact tensor encodings decode to the same bits, for every dtype and every special
// bit pattern, and XOR against a close reference is what makes them compact.
#include "tensor/compact_codec.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

namespace ig {
namespace {

constexpr TensorCodec kCodecs[] = {TensorCodec::kZstd, TensorCodec::kPlanesZstd,
                                   TensorCodec::kXorPlanesZstd};

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0;
}

Tensor random_bits(DType dtype, const Shape& shape, uint32_t seed) {
  Tensor t(dtype, shape);
  std::mt19937 rng(seed);
  for (size_t i = 0; i < t.nbytes(); ++i) t.raw()[i] = static_cast<std::byte>(rng());
  if (dtype == DType::kBool)
    for (size_t i = 0; i < t.nbytes(); ++i) t.raw()[i] &= std::byte{1};
  return t;
}

void expect_round_trip(const Tensor& t, const Tensor& reference) {
  for (TensorCodec codec : kCodecs) {
    auto blob = encode_tensor_bytes(t, codec, &reference);
    ASSERT_TRUE(blob.ok()) << blob.status().message();
    auto back = decode_tensor_bytes(*blob, t.dtype(), t.shape(), codec, &reference);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_TRUE(same_bits(*back, t)) << tensor_codec_name(codec) << " " << dtype_name(t.dtype());
  }
}

TEST(CompactCodec, EveryDtypeRoundTripsBitForBit) {
  for (DType dtype : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16,
                      DType::kInt8, DType::kUInt8, DType::kInt32, DType::kInt64, DType::kBool}) {
    for (const Shape& shape : {Shape{}, Shape{0}, Shape{1}, Shape{3, 5, 7}}) {
      expect_round_trip(random_bits(dtype, shape, 1), random_bits(dtype, shape, 2));
    }
  }
}

TEST(CompactCodec, SpecialFloatBitPatternsSurvive) {
  const float specials[] = {0.0f,
                            -0.0f,
                            std::numeric_limits<float>::denorm_min(),
                            -std::numeric_limits<float>::denorm_min(),
                            std::numeric_limits<float>::min() / 3,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::max(),
                            std::bit_cast<float>(0x7fc00001u),   // quiet NaN with a payload
                            std::bit_cast<float>(0xff800123u),   // negative signalling NaN
                            std::bit_cast<float>(0x7fffffffu)};  // all-ones NaN
  Tensor t(DType::kFloat32, {static_cast<int64_t>(std::size(specials))});
  Tensor reference(DType::kFloat32, t.shape());
  for (size_t i = 0; i < std::size(specials); ++i) {
    t.data<float>()[i] = specials[i];
    reference.data<float>()[i] = specials[std::size(specials) - 1 - i];  // unrelated bits
  }
  expect_round_trip(t, reference);
  expect_round_trip(t, t);  // XOR with itself: all zeros
  Tensor d(DType::kFloat64, {4});
  const uint64_t patterns[] = {0x8000000000000000ull, 0x0000000000000001ull, 0x7ff8000000000abcull,
                               0xfff0000000000000ull};
  for (size_t i = 0; i < 4; ++i) d.data<double>()[i] = std::bit_cast<double>(patterns[i]);
  expect_round_trip(d, random_bits(DType::kFloat64, {4}, 3));
}

// Two platforms' outputs of one node agree on sign, exponent and most mantissa bits: XOR against
// one makes the other mostly zeros, much smaller than either alone.
TEST(CompactCodec, XorAgainstACloseReferenceIsSmaller) {
  Tensor a(DType::kFloat32, {4096}), b(DType::kFloat32, {4096});
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  for (int64_t i = 0; i < a.numel(); ++i) {
    a.data<float>()[i] = normal(rng);
    // The other platform: the last two mantissa bits differ in about half of the elements.
    b.data<float>()[i] = std::bit_cast<float>(std::bit_cast<uint32_t>(a.data<float>()[i]) ^
                                              static_cast<uint32_t>(rng() & 3u));
  }
  const size_t plain = encode_tensor_bytes(b, TensorCodec::kZstd)->size();
  const size_t planes = encode_tensor_bytes(b, TensorCodec::kPlanesZstd)->size();
  const size_t xored = encode_tensor_bytes(b, TensorCodec::kXorPlanesZstd, &a)->size();
  EXPECT_LT(xored * 8, plain) << plain << " " << planes << " " << xored;
  EXPECT_LT(xored, planes);
}

TEST(CompactCodec, MissingOrMismatchedReferenceAndCorruptBytesAreErrors) {
  const Tensor t = random_bits(DType::kFloat32, {8}, 1);
  auto r = encode_tensor_bytes(t, TensorCodec::kXorPlanesZstd, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("needs a reference"), std::string::npos);
  const Tensor other = random_bits(DType::kFloat32, {9}, 1);
  r = encode_tensor_bytes(t, TensorCodec::kXorPlanesZstd, &other);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("the reference is float"), std::string::npos)
      << r.status().message();
  auto blob = encode_tensor_bytes(t, TensorCodec::kPlanesZstd);
  ASSERT_TRUE(blob.ok());
  auto wrong = decode_tensor_bytes(*blob, DType::kFloat32, {9}, TensorCodec::kPlanesZstd);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("corrupt"), std::string::npos);
  std::string broken = *blob;
  broken[broken.size() / 2] ^= 0x5a;
  broken.resize(broken.size() - 1);
  EXPECT_FALSE(decode_tensor_bytes(broken, DType::kFloat32, {8}, TensorCodec::kPlanesZstd).ok());
}

}  // namespace
}  // namespace ig
