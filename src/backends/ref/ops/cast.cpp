// Cast (1: `to` is a type-name string; 6+: a TensorProto.DataType number; 9+: string <-> number)
// and CastLike (15+: the target type is input 1's). To and from the narrow types (float8, int4,
// ...; core/narrow_types.h) through double, with the `saturate` (19) and `round_mode` (25)
// attributes.
//
// Every numeric conversion rounds once: floats and integers go to fp16/bf16 through double, which
// holds them exactly (integers beyond 2^53 aside). Float -> integer truncates; NaN and out-of-range
// values follow x86/numpy (see float_to_int). Numbers print like numpy's str(), which is what the
// ONNX test data was generated with: shortest round-trip digits, positional for 1e-4 <= |x| < 1e16.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <limits>

#include "backends/ref/elementwise_util.h"
#include "core/narrow_types.h"

namespace ig {
namespace {

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

template <typename To, typename From>
To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kIsHalf<From>) {
    return convert<To>(static_cast<float>(v));  // exact widening
  } else if constexpr (std::is_same_v<To, Float16>) {
    return Float16::from_bits(double_to_half_bits(static_cast<double>(v)));
  } else if constexpr (std::is_same_v<To, BFloat16>) {
    return BFloat16::from_bits(double_to_bfloat16_bits(static_cast<double>(v)));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From{0};  // NaN is true, as in C++ and numpy
  } else if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(v);  // one rounding (int64 -> float included)
  } else if constexpr (std::is_floating_point_v<From>) {
    return float_to_int<To>(v);
  } else {
    return static_cast<To>(v);  // integers wrap modulo 2^bits (defined since C++20)
  }
}

// --- number -> string -------------------------------------------------------------------------

template <typename F>
std::string format_float(F v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  const F a = std::fabs(v);
  const bool positional = a == F{0} || (a >= F(1e-4) && a < F(1e16));
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v,
                           positional ? std::chars_format::fixed : std::chars_format::scientific);
  std::string s(buf, res.ptr);
  if (positional && s.find('.') == std::string::npos) s += ".0";
  return s;
}

// fp16/bf16: the shortest decimal that converts back to the same bits, printed as a double.
template <typename H>
std::string format_half(H v) {
  const float f = static_cast<float>(v);
  if (std::isnan(f) || std::isinf(f)) return format_float(f);
  for (int precision = 0; precision < 9; ++precision) {
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof(buf), f, std::chars_format::scientific, precision);
    double d = 0;
    std::from_chars(buf, res.ptr, d);
    if (convert<H>(d).bits == v.bits) return format_float(d);
  }
  return format_float(f);
}

template <typename T>
std::string format_number(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "True" : "False";  // numpy's astype(str)
  } else if constexpr (kIsHalf<T>) {
    return format_half(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    return format_float(v);
  } else {
    return std::to_string(v);
  }
}

// --- string -> number -------------------------------------------------------------------------

std::string lower_trimmed(const std::string& s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  std::string out = s.substr(b, e - b);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Parses the whole of `s` into V; a leading '+' is allowed (from_chars rejects it).
template <typename V>
bool parse_all(const std::string& s, V& out) {
  const char* b = s.data();
  const char* e = b + s.size();
  if (b != e && *b == '+') ++b;
  if (b == e) return false;
  auto res = std::from_chars(b, e, out);
  return res.ec == std::errc() && res.ptr == e;
}

// The spec reserves "INF"/"+INF", "-INF" and "NaN" (case-insensitive) for special values; other
// text is a plain or scientific decimal. Returns false for text that is not a number.
template <typename T>
bool parse_number(const std::string& text, T& out) {
  const std::string s = lower_trimmed(text);
  using P = std::conditional_t<std::is_same_v<T, float>, float, double>;  // parse type
  P special = 0;
  bool is_special = true;
  if (s == "nan" || s == "+nan" || s == "-nan") {
    special = std::numeric_limits<P>::quiet_NaN();
  } else if (s == "inf" || s == "+inf" || s == "infinity" || s == "+infinity") {
    special = std::numeric_limits<P>::infinity();
  } else if (s == "-inf" || s == "-infinity") {
    special = -std::numeric_limits<P>::infinity();
  } else {
    is_special = false;
  }
  if constexpr (std::is_same_v<T, bool>) {
    if (s == "true" || s == "false") {
      out = s == "true";
      return true;
    }
  } else if constexpr (std::is_integral_v<T>) {
    using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
    Wide w = 0;
    if (!is_special && parse_all(s, w)) {
      out = static_cast<T>(w);
      return true;
    }
  }
  P value = special;
  if (!is_special && !parse_all(s, value)) return false;
  out = convert<T>(value);  // float parses directly (no double rounding); others via double
  return true;
}

// --- kernels ----------------------------------------------------------------------------------

Expected<DType> cast_target(const KernelContext& ctx) {
  const Attribute* to = ctx.node.attr("to");
  if (!to) return ctx.fail("missing attribute 'to'");
  if (to->kind == Attribute::Kind::kString) {  // opset 1: "FLOAT", "INT64", ...
    std::string name = to->s;
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (auto dt = dtype_from_name(name)) return *dt;
    return ctx.fail("unknown target type '{}'", to->s);
  }
  if (!is_valid_dtype(static_cast<int32_t>(to->i)) || to->i == 0) {
    return ctx.unsupported_here("cast to data type {}", to->i);
  }
  return static_cast<DType>(to->i);
}

// Numeric types and bool.
template <typename F>
Status dispatch_castable(DType dt, F&& f) {
  if (dt == DType::kBool) return f(type_tag<bool>{});
  return dispatch_numeric(dt, std::forward<F>(f));
}

Expected<E8M0Rounding> e8m0_rounding(const KernelContext& ctx) {
  const std::string mode = ctx.node.attr_string("round_mode", "up");
  if (mode == "up") return E8M0Rounding::kUp;
  if (mode == "down") return E8M0Rounding::kDown;
  if (mode == "nearest") return E8M0Rounding::kNearest;
  return ctx.fail("round_mode '{}' is not up, down or nearest", mode);
}

// Casts with a narrow type on either side: every value goes through double, which holds each
// narrow value, and each number that reaches a narrow type, exactly.
Status cast_narrow(KernelContext& ctx, const Tensor& x, DType to) {
  const DType from = x.dtype();
  if (from == DType::kString || to == DType::kString)
    return ctx.unsupported_here("Cast from {} to {}", dtype_name(from), dtype_name(to));
  Tensor& y = ctx.output(0, to, x.shape());
  const int64_t n = x.numel();
  if (!is_narrow(to)) {
    return dispatch_castable(to, [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      To* dst = y.data<To>();
      for (int64_t i = 0; i < n; ++i) dst[i] = convert<To>(x.as_double(i));
      return Status::Ok();
    });
  }
  const bool saturate = ctx.node.attr_int("saturate", 1) != 0;
  IG_ASSIGN_OR_RETURN(E8M0Rounding rounding, e8m0_rounding(ctx));
  uint8_t* dst = y.codes();
  for (int64_t i = 0; i < n; ++i) {
    const double v = x.as_double(i);
    dst[i] = is_narrow_int(to) ? narrow_int_wrapped(to, v)
                               : narrow_float_code(to, v, saturate, rounding);
  }
  return Status::Ok();
}

Status cast_to(KernelContext& ctx, const Tensor& x, DType to) {
  if (x.dtype() == to) {
    ctx.set_output(0, x);
    return Status::Ok();
  }
  const DType from = x.dtype();
  for (DType dt : {from, to}) {
    if (dt == DType::kComplex64 || dt == DType::kComplex128) {
      return ctx.unsupported_here("Cast from {} to {}", dtype_name(from), dtype_name(to));
    }
  }
  if (is_narrow(from) || is_narrow(to)) return cast_narrow(ctx, x, to);
  Tensor& y = ctx.output(0, to, x.shape());
  const int64_t n = x.numel();
  if (from == DType::kString) {
    const auto& src = x.strings();
    return dispatch_castable(to, [&](auto tag) -> Status {
      using To = typename decltype(tag)::type;
      To* dst = y.data<To>();
      for (int64_t i = 0; i < n; ++i) {
        const std::string& s = src[static_cast<size_t>(i)];
        if (!parse_number(s, dst[i])) {
          return ctx.fail("cannot convert string '{}' to {}", s, dtype_name(to));
        }
      }
      return Status::Ok();
    });
  }
  return dispatch_castable(from, [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    const From* src = x.data<From>();
    if (to == DType::kString) {
      auto& dst = y.strings();
      for (int64_t i = 0; i < n; ++i) dst[static_cast<size_t>(i)] = format_number(src[i]);
      return Status::Ok();
    }
    return dispatch_castable(to, [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      To* dst = y.data<To>();
      for (int64_t i = 0; i < n; ++i) dst[i] = convert<To>(src[i]);
      return Status::Ok();
    });
  });
}

Status cast(KernelContext& ctx) {
  IG_ASSIGN_OR_RETURN(DType to, cast_target(ctx));
  return cast_to(ctx, ctx.input(0), to);
}

Status cast_like(KernelContext& ctx) { return cast_to(ctx, ctx.input(0), ctx.input(1).dtype()); }

// BitCast (26): the same bytes read as `to`, which must be as wide (little endian, as here).
Status bit_cast(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  IG_ASSIGN_OR_RETURN(DType to, cast_target(ctx));
  if (x.dtype() == DType::kString || to == DType::kString)
    return ctx.fail("BitCast takes no strings ({} to {})", dtype_name(x.dtype()), dtype_name(to));
  if (dtype_size(to) != dtype_size(x.dtype()) && is_float(x.dtype()))
    // The dtype knob (the fp64 oracle, dtype=bf16) holds floats at another width than declared.
    return ctx.unsupported_here(
        "BitCast of {} to {}: a float held at another width than the "
        "model declares has no bits of that width to reinterpret",
        dtype_name(x.dtype()), dtype_name(to));
  if (dtype_size(to) != dtype_size(x.dtype()))
    return ctx.fail("{} and {} differ in width", dtype_name(x.dtype()), dtype_name(to));
  Tensor& y = ctx.output(0, to, x.shape());
  if (x.nbytes() > 0) std::memcpy(y.raw(), x.raw(), x.nbytes());
  return Status::Ok();
}

IG_REGISTER_KERNEL("", "Cast", 1, kMaxOpset, cast);
IG_REGISTER_KERNEL("", "BitCast", 26, kMaxOpset, bit_cast);
IG_REGISTER_KERNEL("", "CastLike", 15, kMaxOpset, cast_like);

}  // namespace
}  // namespace ig
