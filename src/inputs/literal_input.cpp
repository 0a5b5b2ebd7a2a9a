// value:V inputs: one value in the input's dtype, as a scalar or filling the input's shape (an
// audio model's sample rate, a threshold, a token id), so that nobody writes a .npy by hand.
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

#include "inputs/inputs.h"

namespace ig {

namespace {

// from_chars takes no leading '+'.
std::string_view unsigned_text(std::string_view text) {
  return !text.empty() && text[0] == '+' ? text.substr(1) : text;
}

// The value as a double, exactly as the text rounds (nan, inf and -inf included).
Expected<double> parse_real(const std::string& text) {
  const std::string_view s = unsigned_text(text);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range)
    return invalid_argument("value:{} is out of the range of a double", text);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    return invalid_argument("value:{} is not a number", text);
  return v;
}

template <typename T>
Status fill_integer(const std::string& text, DType dtype, Tensor& out) {
  const std::string_view s = unsigned_text(text);
  using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  Wide v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  const bool overflow = ec == std::errc::result_out_of_range ||
                        (ec == std::errc() && !std::in_range<T>(v)) ||
                        (!std::is_signed_v<T> && !s.empty() && s[0] == '-');
  if (overflow)
    return invalid_argument("value:{} overflows {} ({}..{})", text, dtype_name(dtype),
                            std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    return invalid_argument("value:{} is not an integer, which {} needs", text, dtype_name(dtype));
  std::fill_n(out.data<T>(), out.numel(), static_cast<T>(v));
  return Status::Ok();
}

// Rounds once, to nearest even, from the double the text parsed to; a finite value that becomes
// infinite overflows the dtype.
Status fill_real(const std::string& text, DType dtype, Tensor& out) {
  IG_ASSIGN_OR_RETURN(const double v, parse_real(text));
  bool inf = false;
  switch (dtype) {
    case DType::kFloat64:
      std::fill_n(out.data<double>(), out.numel(), v);
      break;
    case DType::kFloat32: {
      const float f = static_cast<float>(v);
      inf = std::isinf(f);
      std::fill_n(out.data<float>(), out.numel(), f);
      break;
    }
    case DType::kFloat16: {
      const uint16_t bits = double_to_half_bits(v);
      inf = (bits & 0x7fff) == 0x7c00;
      std::fill_n(out.data<Float16>(), out.numel(), Float16::from_bits(bits));
      break;
    }
    default: {  // bfloat16
      const uint16_t bits = double_to_bfloat16_bits(v);
      inf = (bits & 0x7fff) == 0x7f80;
      std::fill_n(out.data<BFloat16>(), out.numel(), BFloat16::from_bits(bits));
      break;
    }
  }
  if (inf && std::isfinite(v))
    return invalid_argument("value:{} overflows {} (it would become infinite)", text,
                            dtype_name(dtype));
  return Status::Ok();
}

Status fill(const std::string& text, DType dtype, Tensor& out) {
  switch (dtype) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
    case DType::kBFloat16:
      return fill_real(text, dtype, out);
    case DType::kInt8:
      return fill_integer<int8_t>(text, dtype, out);
    case DType::kInt16:
      return fill_integer<int16_t>(text, dtype, out);
    case DType::kInt32:
      return fill_integer<int32_t>(text, dtype, out);
    case DType::kInt64:
      return fill_integer<int64_t>(text, dtype, out);
    case DType::kUInt8:
      return fill_integer<uint8_t>(text, dtype, out);
    case DType::kUInt16:
      return fill_integer<uint16_t>(text, dtype, out);
    case DType::kUInt32:
      return fill_integer<uint32_t>(text, dtype, out);
    case DType::kUInt64:
      return fill_integer<uint64_t>(text, dtype, out);
    case DType::kBool: {
      if (text != "true" && text != "false" && text != "1" && text != "0")
        return invalid_argument("value:{} is not a bool (true, false, 1 or 0)", text);
      std::fill_n(out.data<bool>(), out.numel(), text == "true" || text == "1");
      return Status::Ok();
    }
    case DType::kString:
      std::fill(out.strings().begin(), out.strings().end(), text);
      return Status::Ok();
    default:
      return invalid_argument("value: cannot fill an input of dtype {}", dtype_name(dtype));
  }
}

}  // namespace

Expected<Tensor> literal_input(const InputSource& src, const InputTarget& t, const Shape& shape,
                               std::string& recipe) {
  IG_RETURN_IF_ERROR(check_source_options(src, {"seed", "shape", "dtype"}, "value:"));
  IG_ASSIGN_OR_RETURN(Tensor out, Tensor::create(t.dtype, shape));
  IG_RETURN_IF_ERROR(fill(src.head, t.dtype, out));
  recipe =
      fmt::format("value:{},shape={},dtype={}", src.head, shape_string(shape), dtype_name(t.dtype));
  return out;
}

}  // namespace ig
