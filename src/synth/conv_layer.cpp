#include "synth/conv_layer.h"

#include <fmt/format.h>

#include <cmath>

namespace ig {

int64_t conv_layer_multiplications(const ConvLayerOptions& o) {
  return o.kernel * o.kernel * o.channels * o.filters * (o.height - o.kernel + 1) *
         (o.width - o.kernel + 1);
}

ConvLayerOptions conv_layer_for_multiplications(ConvLayerOptions o, double target) {
  const double per_position = static_cast<double>(o.kernel * o.kernel * o.channels * o.filters);
  const double side = std::sqrt(std::max(1.0, target / per_position));
  const auto out = std::max<int64_t>(1, static_cast<int64_t>(std::floor(side)));
  ConvLayerOptions best = o;
  double best_err = -1;
  for (int64_t h : {out, out + 1}) {
    for (int64_t w : {h, h + 1}) {
      ConvLayerOptions c = o;
      c.height = h + o.kernel - 1;
      c.width = w + o.kernel - 1;
      const double err =
          std::abs(std::log(static_cast<double>(conv_layer_multiplications(c))) - std::log(target));
      if (best_err < 0 || err < best_err) {
        best = c;
        best_err = err;
      }
    }
  }
  return best;
}

Expected<onnx::ModelProto> build_conv_layer(const ConvLayerOptions& o) {
  if (o.kernel < 1 || o.filters < 1 || o.channels < 1 || o.height < o.kernel || o.width < o.kernel)
    return invalid_argument(
        "conv layer needs kernel, filters, channels >= 1 and an input at least as large as the "
        "kernel (k={}, f={}, c={}, input {}x{})",
        o.kernel, o.filters, o.channels, o.height, o.width);
  if (conv_layer_multiplications(o) > (int64_t{1} << 34))
    return invalid_argument("conv layer of {} multiplications is larger than this tool builds",
                            conv_layer_multiplications(o));
  GraphBuilder b("conv_layer", o.dtype, o.seed, o.init.value_or(WeightInit{}));
  const std::string x = b.input("x", {o.channels, o.height, o.width});
  const std::string w =
      o.init ? b.weight("conv_w", {o.filters, o.channels, o.kernel, o.kernel},
                        o.channels * o.kernel * o.kernel, o.filters * o.kernel * o.kernel)
             : b.uniform("conv_w", {o.filters, o.channels, o.kernel, o.kernel}, 0.0, 1.0);
  const std::string y =
      b.node("Conv", {x, w}, "conv", {{"kernel_shape", std::vector<int64_t>{o.kernel, o.kernel}}});
  b.output(y, "y", {o.filters, o.height - o.kernel + 1, o.width - o.kernel + 1});
  b.metadata("infergap.input.x.range", "0,1");
  b.metadata("infergap.conv_layer.multiplications", std::to_string(conv_layer_multiplications(o)));
  b.metadata("infergap.zoo.recipe",
             fmt::format("zoo conv --kernel {} --filters {} --channels {} --height {} --width {} "
                         "--seed {}{}",
                         o.kernel, o.filters, o.channels, o.height, o.width, o.seed,
                         o.init ? " --init " + o.init->to_string() : ""));
  return b.finish();
}

}  // namespace ig
