// The emulator's BatchNormalization formulas (knob `bn`): each equals its scalar transcription
// bit for bit, and the two differ on ordinary data.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "../../support/run_node.h"
#include "backends/ref/numerics.h"
#include "inputs/random_input.h"

namespace ig {
namespace {

struct BnCase {
  Tensor x = random_uniform_tensor(DType::kFloat32, {2, 3, 5, 5}, 11);
  Tensor scale = Tensor::from_vector<float>({0.7f, -1.3f, 2.1f}, {3});
  Tensor bias = Tensor::from_vector<float>({0.1f, 0.25f, -0.4f}, {3});
  Tensor mean = Tensor::from_vector<float>({0.45f, 0.52f, 0.61f}, {3});
  Tensor var = Tensor::from_vector<float>({0.083f, 0.09f, 0.071f}, {3});
  float eps = 1e-5f;

  Tensor run(const std::string& bn, bool fma) const {
    auto n = parse_numerics({{"bn", bn}, {"fma", fma ? "on" : "off"}});
    EXPECT_TRUE(n.ok());
    auto out = testing::run_node("BatchNormalization", {x, scale, bias, mean, var},
                                 {{"epsilon", testing::attr_float(eps)}}, 1, 15, "", *n);
    EXPECT_TRUE(out.ok()) << out.status().to_string();
    return (*out)[0].tensor;
  }
};

TEST(BnFormula, EachFormulaIsItsScalarTranscription) {
  const BnCase b;
  const Tensor onnx = b.run("onnx", false), folded = b.run("folded", false),
               folded_fma = b.run("folded", true), affine = b.run("affine", false),
               affine_fma = b.run("affine", true);
  int64_t differ = 0;
  for (int64_t i = 0; i < b.x.numel(); ++i) {
    const auto c = static_cast<size_t>((i / 25) % 3);
    const float x = b.x.data<float>()[i], s = b.scale.data<float>()[c],
                bias = b.bias.data<float>()[c], m = b.mean.data<float>()[c],
                v = b.var.data<float>()[c];
    const float want_onnx = s * (x - m) / std::sqrt(v + b.eps) + bias;
    const float factor = s / std::sqrt(v + b.eps);
    const float want_folded = (x - m) * factor + bias;
    const float want_fma = std::fma(x - m, factor, bias);
    const float inv_factor = (1.0f / std::sqrt(v + b.eps)) * s;
    const float shift = bias - m * inv_factor;
    const float want_affine = x * inv_factor + shift;
    const float want_affine_fma = std::fma(x, inv_factor, shift);
    ASSERT_EQ(std::bit_cast<uint32_t>(onnx.data<float>()[i]), std::bit_cast<uint32_t>(want_onnx));
    ASSERT_EQ(std::bit_cast<uint32_t>(folded.data<float>()[i]),
              std::bit_cast<uint32_t>(want_folded));
    ASSERT_EQ(std::bit_cast<uint32_t>(folded_fma.data<float>()[i]),
              std::bit_cast<uint32_t>(want_fma));
    ASSERT_EQ(std::bit_cast<uint32_t>(affine.data<float>()[i]),
              std::bit_cast<uint32_t>(want_affine));
    ASSERT_EQ(std::bit_cast<uint32_t>(affine_fma.data<float>()[i]),
              std::bit_cast<uint32_t>(want_affine_fma));
    differ += onnx.data<float>()[i] != folded.data<float>()[i];
  }
  EXPECT_GT(differ, 0);
}

TEST(BnFormula, UnknownFormulaIsRefused) {
  auto n = parse_numerics({{"bn", "fused"}});
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("folded"), std::string::npos) << n.status().message();
}

}  // namespace
}  // namespace ig
