#include "analysis/relative_precision.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "tensor/as_doubles.h"
#include "tensor/convert.h"

namespace ig {

bool relative_precision_op(const std::string& op_type) {
  static const std::set<std::string> ops = {"Sigmoid",  "Tanh", "Exp",        "Log",
                                            "Softplus", "Erf",  "Elu",        "Celu",
                                            "Sqrt",     "Mish", "Reciprocal", "Softsign"};
  return ops.count(op_type) != 0;
}

std::string RelativeLoss::describe() const {
  return fmt::format(
      "{} of {} elements whose exact result is a normal number are off by more than the relative "
      "tolerance; worst: {:.6g} where the oracle gives {:.6g} (relative error {:.3g}, {} "
      "significant bits right)",
      lost, judged, platform, oracle, worst_relative, bits_kept);
}

RelativeLoss relative_loss(const Tensor& platform, const Tensor& oracle, double rtol) {
  RelativeLoss r;
  if (!is_float(platform.dtype()) || platform.shape() != oracle.shape()) return r;
  const Tensor rounded = convert_float_tensor(oracle, platform.dtype());
  const auto& info = dtype_info(platform.dtype());
  const double min_normal = smallest_normal(platform.dtype());
  const double threshold = std::max({rtol, kRelativeFloor, std::ldexp(8.0, -info.mantissa_bits)});
  const std::vector<double> xs = as_doubles(platform), ys = as_doubles(rounded);
  for (int64_t i = 0; i < platform.numel(); ++i) {
    const double x = xs[static_cast<size_t>(i)], y = ys[static_cast<size_t>(i)];
    if (!std::isfinite(x) || !std::isfinite(y) || std::fabs(y) < min_normal) continue;
    ++r.judged;
    const double rel = std::fabs(x - y) / std::fabs(y);
    if (rel <= threshold) continue;
    ++r.lost;
    if (rel > r.worst_relative) {
      r.worst_relative = rel;
      r.worst = i;
      r.platform = x;
      r.oracle = y;
    }
  }
  if (r.worst >= 0) {
    // Bits right: -log2 of the relative error, within 0 .. the dtype's significand width.
    const double bits = -std::log2(r.worst_relative);
    r.bits_kept = std::clamp(static_cast<int>(std::floor(bits)), 0, info.mantissa_bits + 1);
  }
  return r;
}

}  // namespace ig
