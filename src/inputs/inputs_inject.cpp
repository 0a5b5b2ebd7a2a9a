// Exceptional values (NaN, +-Inf, denormals, +-0, huge magnitudes) injected into input tensors.
#include <cmath>
#include <limits>

#include "inputs/inputs.h"
#include "inputs/rng.h"

namespace ig {

namespace {

struct KindName {
  Injection::Kind kind;
  const char* name;
};
constexpr KindName kKinds[] = {{Injection::Kind::kNan, "nan"},
                               {Injection::Kind::kInf, "inf"},
                               {Injection::Kind::kNegInf, "-inf"},
                               {Injection::Kind::kDenormal, "denormal"},
                               {Injection::Kind::kNegDenormal, "-denormal"},
                               {Injection::Kind::kZero, "zero"},
                               {Injection::Kind::kNegZero, "-zero"},
                               {Injection::Kind::kHuge, "huge"},
                               {Injection::Kind::kNegHuge, "-huge"}};

}  // namespace

const char* injection_kind_name(Injection::Kind k) {
  for (const auto& kn : kKinds)
    if (kn.kind == k) return kn.name;
  return "?";
}

namespace {

// The value as a double, for a float dtype: denormal is half the smallest normal (a subnormal
// with one bit set), huge the largest finite value.
double value_for(Injection::Kind k, DType dtype) {
  const auto& info = dtype_info(dtype);
  const int bias = (1 << (info.exponent_bits - 1)) - 1;
  const double min_normal = std::ldexp(1.0, 1 - bias);
  const double max_finite = std::ldexp(2.0 - std::ldexp(1.0, -info.mantissa_bits), bias);
  switch (k) {
    case Injection::Kind::kNan:
      return std::numeric_limits<double>::quiet_NaN();
    case Injection::Kind::kInf:
      return std::numeric_limits<double>::infinity();
    case Injection::Kind::kNegInf:
      return -std::numeric_limits<double>::infinity();
    case Injection::Kind::kDenormal:
      return min_normal / 2;
    case Injection::Kind::kNegDenormal:
      return -min_normal / 2;
    case Injection::Kind::kZero:
      return 0.0;
    case Injection::Kind::kNegZero:
      return -0.0;
    case Injection::Kind::kHuge:
      return max_finite;
    case Injection::Kind::kNegHuge:
      return -max_finite;
  }
  return 0;
}

void store(Tensor& t, int64_t i, double v) {
  switch (t.dtype()) {
    case DType::kFloat32:
      t.data<float>()[i] = static_cast<float>(v);
      break;
    case DType::kFloat64:
      t.data<double>()[i] = v;
      break;
    case DType::kFloat16:
      t.data<Float16>()[i] = Float16(static_cast<float>(v));
      break;
    case DType::kBFloat16:
      t.data<BFloat16>()[i] = BFloat16(static_cast<float>(v));
      break;
    default:
      break;
  }
}

// `count` distinct positions out of n, in increasing order (Knuth's selection sampling).
std::vector<int64_t> sample_positions(int64_t n, int64_t count, Rng& rng) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < n && static_cast<int64_t>(out.size()) < count; ++i) {
    const int64_t needed = count - static_cast<int64_t>(out.size());
    if (static_cast<double>(n - i) * rng.uniform() < static_cast<double>(needed)) out.push_back(i);
  }
  return out;
}

}  // namespace

std::string Injection::to_string() const {
  if (positions.empty()) return fmt::format("{}@{}", injection_kind_name(kind), rate);
  std::string where;
  for (int64_t p : positions) where += (where.empty() ? "" : "/") + std::to_string(p);
  return fmt::format("{}@{}", injection_kind_name(kind), where);
}

Expected<Injection> parse_injection(const std::string& text) {
  const auto at = text.find('@');
  auto bad = [&] {
    return invalid_argument(
        "inject '{}': expected KIND@RATE (0.01 or 1%) or KIND@POS/POS/..., KIND one of nan, inf, "
        "-inf, denormal, -denormal, zero, -zero, huge, -huge",
        text);
  };
  if (at == std::string::npos) return bad();
  Injection inj;
  const std::string kind = text.substr(0, at), where = text.substr(at + 1);
  bool found = false;
  for (const auto& kn : kKinds)
    if (kind == kn.name) inj.kind = kn.kind, found = true;
  if (!found || where.empty()) return bad();
  try {
    size_t used = 0;
    if (where.back() == '%' || where.find_first_of(".eE") != std::string::npos) {
      const bool percent = where.back() == '%';
      const std::string num = percent ? where.substr(0, where.size() - 1) : where;
      inj.rate = std::stod(num, &used) / (percent ? 100 : 1);
      if (used != num.size() || !(inj.rate > 0 && inj.rate <= 1)) return bad();
    } else {
      size_t start = 0;
      while (true) {
        const size_t slash = where.find('/', start);
        const std::string part = where.substr(start, slash - start);
        const long long p = std::stoll(part, &used);
        if (used != part.size() || p < 0) return bad();
        inj.positions.push_back(p);
        if (slash == std::string::npos) break;
        start = slash + 1;
      }
    }
  } catch (const std::exception&) {
    return bad();
  }
  return inj;
}

Status apply_injections(const std::vector<Injection>& injections, uint64_t seed,
                        const std::string& label, Tensor& t) {
  if (!is_float(t.dtype()))
    return invalid_argument("cannot inject exceptional values into a {} tensor (floats only)",
                            dtype_name(t.dtype()));
  t = t.clone();  // never write into storage shared with a file cache or the caller
  const int64_t n = t.numel();
  for (const auto& inj : injections) {
    std::vector<int64_t> positions = inj.positions;
    if (positions.empty()) {
      Rng rng(derive_seed(seed, label + "/inject/" + inj.to_string()));
      const auto count = std::max<int64_t>(1, std::llround(inj.rate * static_cast<double>(n)));
      positions = sample_positions(n, count, rng);
    }
    const double v = value_for(inj.kind, t.dtype());
    for (int64_t p : positions) {
      if (p >= n)
        return invalid_argument("inject {}: position {} is outside the {} elements of {}",
                                inj.to_string(), p, n, t.describe());
      store(t, p, v);
    }
  }
  return Status::Ok();
}

}  // namespace ig
