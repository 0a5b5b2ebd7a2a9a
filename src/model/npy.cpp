#include "model/npy.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "core/narrow_types.h"
#include "model/tensor_proto.h"

namespace ig {

namespace {

const char* npy_descr(DType dt) {
  switch (dt) {
    case DType::kFloat32:
      return "<f4";
    case DType::kFloat64:
      return "<f8";
    case DType::kFloat16:
      return "<f2";
    case DType::kInt8:
      return "|i1";
    case DType::kInt16:
      return "<i2";
    case DType::kInt32:
      return "<i4";
    case DType::kInt64:
      return "<i8";
    case DType::kUInt8:
      return "|u1";
    case DType::kUInt16:
      return "<u2";
    case DType::kUInt32:
      return "<u4";
    case DType::kUInt64:
      return "<u8";
    case DType::kBool:
      return "|b1";
    case DType::kComplex64:
      return "<c8";
    case DType::kComplex128:
      return "<c16";
    default:
      return nullptr;
  }
}

bool widened_to_float32(DType dt) { return dt == DType::kBFloat16 || is_narrow(dt); }

std::optional<DType> dtype_from_descr(std::string d) {
  if (d.size() >= 2 && (d[0] == '=' || d[0] == '|')) d[0] = '<';
  if (d == "<f4") return DType::kFloat32;
  if (d == "<f8") return DType::kFloat64;
  if (d == "<f2") return DType::kFloat16;
  if (d == "<i1") return DType::kInt8;
  if (d == "<i2") return DType::kInt16;
  if (d == "<i4") return DType::kInt32;
  if (d == "<i8") return DType::kInt64;
  if (d == "<u1") return DType::kUInt8;
  if (d == "<u2") return DType::kUInt16;
  if (d == "<u4") return DType::kUInt32;
  if (d == "<u8") return DType::kUInt64;
  if (d == "<b1") return DType::kBool;
  if (d == "<c8") return DType::kComplex64;
  if (d == "<c16") return DType::kComplex128;
  return std::nullopt;
}

// The value text after `'key':` in a .npy header (a Python dict literal): a quoted string, a
// parenthesised tuple or a bare word. A hand parser: std::regex recurses per character and can
// exhaust the stack on a long hostile header.
std::optional<std::string> header_value(const std::string& header, const std::string& key) {
  const std::string quoted = "'" + key + "'";
  size_t p = header.find(quoted);
  if (p == std::string::npos) return std::nullopt;
  p += quoted.size();
  while (p < header.size() && header[p] == ' ') ++p;
  if (p >= header.size() || header[p] != ':') return std::nullopt;
  ++p;
  while (p < header.size() && header[p] == ' ') ++p;
  if (p >= header.size()) return std::nullopt;
  size_t end;
  if (header[p] == '\'' || header[p] == '(') {
    end = header.find(header[p] == '(' ? ')' : '\'', p + 1);
    if (end == std::string::npos) return std::nullopt;
    ++end;
  } else {
    end = p;
    while (end < header.size() && std::isalnum(static_cast<unsigned char>(header[end]))) ++end;
  }
  return header.substr(p, end - p);
}

// A float or integer array into a narrow input (float8, int4, ...): every value must be one of
// the type's, as encode_npy writes them.
Expected<Tensor> narrowed(const Tensor& t, DType target, const std::string& label) {
  Tensor out(target, t.shape());
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = t.as_double(i);
    const uint8_t code =
        is_narrow_int(target) ? narrow_int_wrapped(target, v) : narrow_float_code(target, v, false);
    const double back = narrow_value(target, code);
    if (back != v && !(std::isnan(v) && std::isnan(back))) {
      return invalid_argument("{}: element {} ({}) is not exactly representable as {}", label, i, v,
                              dtype_name(target));
    }
    out.codes()[i] = code;
  }
  return out;
}

}  // namespace

std::string encode_npy(const Tensor& in) {
  Tensor t = in;
  // numpy has no bfloat16, float8, int4...: written as float32, which holds each of their
  // values (NaN payloads aside).
  if (widened_to_float32(t.dtype())) {
    Tensor f(DType::kFloat32, t.shape());
    for (int64_t i = 0; i < t.numel(); ++i) f.data<float>()[i] = static_cast<float>(t.as_double(i));
    t = f;
  }
  std::string shape = "(";
  for (size_t i = 0; i < t.shape().size(); ++i) shape += std::to_string(t.shape()[i]) + ",";
  if (t.shape().size() > 1) shape.pop_back();
  shape += ")";
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                   npy_descr(t.dtype()), shape);
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  const auto len = static_cast<uint16_t>(header.size());
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>(len >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(t.raw()), t.nbytes());
  return out;
}

Status write_npy(const Tensor& t, const std::string& path) {
  if (!widened_to_float32(t.dtype()) && !npy_descr(t.dtype())) {
    return unsupported("{}: cannot write {} tensors as .npy", path, dtype_name(t.dtype()));
  }
  return write_file_bytes(path, encode_npy(t));
}

Expected<Tensor> parse_npy(const std::string& bytes, const std::string& label) {
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
    return parse_error("{}: not a .npy file (bad magic)", label);
  }
  const int major = static_cast<uint8_t>(bytes[6]);
  size_t header_len;
  size_t offset;
  if (major == 1) {
    header_len =
        static_cast<uint8_t>(bytes[8]) | (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return parse_error("{}: truncated .npy header", label);
    header_len = 0;
    for (int i = 0; i < 4; ++i)
      header_len |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i])) << (8 * i);
    offset = 12;
  } else {
    return parse_error("{}: unsupported .npy version {}", label, major);
  }
  if (header_len > bytes.size() - offset) return parse_error("{}: truncated .npy header", label);
  const std::string header = bytes.substr(offset, header_len);
  const auto descr = header_value(header, "descr");
  if (!descr || descr->size() < 2 || descr->front() != '\'' || descr->back() != '\'') {
    return parse_error("{}: .npy header has no descr", label);
  }
  const std::string type = descr->substr(1, descr->size() - 2);
  auto dtype = dtype_from_descr(type);
  if (!dtype) return unsupported("{}: .npy element type '{}' is not supported", label, type);
  if (const auto order = header_value(header, "fortran_order"); order && *order == "True") {
    return unsupported("{}: Fortran-ordered .npy arrays are not supported", label);
  }
  const auto dims = header_value(header, "shape");
  if (!dims || dims->size() < 2 || dims->front() != '(' || dims->back() != ')') {
    return parse_error("{}: .npy header has no shape", label);
  }
  Shape shape;
  std::string inner = dims->substr(1, dims->size() - 2);
  for (size_t start = 0; start <= inner.size();) {
    size_t comma = inner.find(',', start);
    if (comma == std::string::npos) comma = inner.size();
    std::string dim = inner.substr(start, comma - start);
    dim.erase(0, dim.find_first_not_of(' '));
    dim.erase(dim.find_last_not_of(' ') + 1);
    start = comma + 1;
    if (dim.empty()) continue;  // "(3,)" and "()"
    try {
      size_t used = 0;
      shape.push_back(std::stoll(dim, &used));
      if (used != dim.size()) throw std::invalid_argument(dim);
    } catch (const std::exception&) {
      return parse_error("{}: .npy dimension '{}' is not a valid integer", label, dim);
    }
  }
  auto created = Tensor::create(*dtype, shape);
  if (!created.ok()) return created.status().with_context(label);
  Tensor t = std::move(created).value();
  const size_t data_offset = offset + header_len;
  if (bytes.size() - data_offset != t.nbytes()) {
    return parse_error("{}: .npy data has {} bytes but {} needs {}", label,
                       bytes.size() - data_offset, t.describe(), t.nbytes());
  }
  if (t.nbytes()) std::memcpy(t.raw(), bytes.data() + data_offset, t.nbytes());
  if (t.dtype() == DType::kBool) {
    for (int64_t i = 0; i < t.numel(); ++i)
      t.data<bool>()[i] = static_cast<uint8_t>(bytes[data_offset + i]) != 0;
  }
  return t;
}

Expected<Tensor> read_npy(const std::string& path) {
  IG_ASSIGN_OR_RETURN(std::string bytes, read_file_bytes(path, uint64_t{8} << 30));
  return parse_npy(bytes, path);
}

Expected<Tensor> npy_to_dtype(const Tensor& t, DType target, const std::string& label) {
  if (t.dtype() == target) return t;
  if (t.dtype() == DType::kFloat32 && (target == DType::kBFloat16 || target == DType::kFloat16)) {
    Tensor out(target, t.shape());
    for (int64_t i = 0; i < t.numel(); ++i) {
      const float v = t.data<float>()[i];
      const uint16_t bits =
          target == DType::kBFloat16 ? float_to_bfloat16_bits(v) : float_to_half_bits(v);
      const float back =
          target == DType::kBFloat16 ? bfloat16_bits_to_float(bits) : half_bits_to_float(bits);
      if (std::memcmp(&back, &v, sizeof v) != 0 && !(v != v && back != back)) {
        return invalid_argument("{}: element {} ({}) is not exactly representable as {}", label, i,
                                v, dtype_name(target));
      }
      std::memcpy(out.raw() + 2 * i, &bits, 2);
    }
    return out;
  }
  if (is_narrow(target) && (is_float(t.dtype()) || is_integer(t.dtype())))
    return narrowed(t, target, label);
  return invalid_argument("{}: holds {} but {} is needed", label, dtype_name(t.dtype()),
                          dtype_name(target));
}

}  // namespace ig
