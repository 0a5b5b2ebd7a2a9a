#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "inputs/mantissa_mask.h"
#include "model/onnx_model.h"
#include "model/tensor_proto.h"
#include "synth/conv_layer.h"

namespace ig {
namespace {

TEST(ConvLayer, MultiplicationCountIsExactAndTheSizePickerLandsNearTheTarget) {
  ConvLayerOptions o;
  o.kernel = 3;
  o.filters = 2;
  o.channels = 3;
  o.height = 10;
  o.width = 12;
  EXPECT_EQ(conv_layer_multiplications(o), 9 * 3 * 2 * 8 * 10);
  for (double target : {1e3, 1e4, 1e5, 1e6, 1e7, 1e8}) {
    const ConvLayerOptions c = conv_layer_for_multiplications(o, target);
    const double m = static_cast<double>(conv_layer_multiplications(c));
    EXPECT_LT(std::abs(std::log10(m / target)), 0.1) << target << " -> " << m;
    EXPECT_LE(std::abs(c.height - c.width), 1);
  }
  auto model = build_conv_layer(o);
  ASSERT_TRUE(model.ok()) << model.status().message();
  EXPECT_TRUE(check_model_proto(*model).ok());
  auto w = tensor_from_proto(model->graph().initializer(0));
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->shape(), (Shape{2, 3, 3, 3}));
  for (float v : w->values<float>()) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LT(v, 1.0f);
  }
  o.kernel = 20;
  EXPECT_FALSE(build_conv_layer(o).ok());
}

TEST(MantissaMask, ZeroesExactlyTheLowBitsAndKeepsSpecialValues) {
  Tensor t = Tensor::from_vector<float>(
      {1.0f + std::ldexp(1.0f, -23), 0.1f, -3.3f, INFINITY, NAN, 1e-40f}, {6});
  ASSERT_TRUE(mask_mantissa(t, 12).ok());
  const auto v = t.values<float>();
  EXPECT_EQ(v[0], 1.0f);
  for (int i : {1, 2, 5}) EXPECT_EQ(std::bit_cast<uint32_t>(v[i]) & 0xFFFu, 0u) << i;
  EXPECT_EQ(std::bit_cast<uint32_t>(v[1]) >> 12, std::bit_cast<uint32_t>(0.1f) >> 12);
  EXPECT_TRUE(std::isinf(v[3]));
  EXPECT_TRUE(std::isnan(v[4]));
  EXPECT_FALSE(mask_mantissa(t, 24).ok());
  Tensor d = Tensor::from_vector<double>({0.1}, {1});
  ASSERT_TRUE(mask_mantissa(d, 52).ok());
  EXPECT_EQ(d.values<double>()[0], 0.0625);  // 0.1 = 1.6 * 2^-4; no mantissa left: 2^-4
}

}  // namespace
}  // namespace ig
