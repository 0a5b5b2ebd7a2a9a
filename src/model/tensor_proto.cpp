#include "model/tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "core/narrow_types.h"

namespace ig {

namespace fs = std::filesystem;

Expected<uint64_t> readable_file_size(const std::string& path, uint64_t max_bytes) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return not_found("{}: no such file", path);
  if (fs::is_directory(path, ec)) return io_error("{}: is a directory, expected a file", path);
  const auto size = fs::file_size(path, ec);
  if (ec) return io_error("{}: cannot read size: {}", path, ec.message());
  if (size > max_bytes) {
    return resource_exhausted("{}: file is {} bytes, over the limit of {} bytes", path, size,
                              max_bytes);
  }
  return static_cast<uint64_t>(size);
}

Expected<std::string> read_file_bytes(const std::string& path, uint64_t max_bytes) {
  IG_ASSIGN_OR_RETURN(const uint64_t size, readable_file_size(path, max_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error("{}: cannot open for reading", path);
  std::string bytes(static_cast<size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (!in && size) return io_error("{}: read failed", path);
  return bytes;
}

Status write_file_bytes(const std::string& path, const std::string& bytes) {
  std::error_code ec;
  const auto parent = fs::path(path).parent_path();
  if (!parent.empty()) fs::create_directories(parent, ec);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return io_error("{}: cannot open for writing", path);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return io_error("{}: write failed", path);
  }
  fs::rename(tmp, path, ec);  // atomic replace: readers never see half a file
  if (ec) return io_error("{}: cannot rename into place: {}", path, ec.message());
  return Status::Ok();
}

Expected<std::string> resolve_inside(const std::string& base_dir, const std::string& location) {
  if (location.empty()) return invalid_argument("external data has an empty location");
  const fs::path loc(location);
  if (loc.is_absolute() || loc.has_root_name() || loc.has_root_directory()) {
    return invalid_argument(
        "external data location '{}' is absolute; only paths inside the model's "
        "folder are allowed",
        location);
  }
  for (const auto& part : loc) {
    if (part == "..") {
      return invalid_argument(
          "external data location '{}' contains '..'; only paths inside the "
          "model's folder are allowed",
          location);
    }
  }
  std::error_code ec;
  const fs::path base = fs::canonical(base_dir.empty() ? "." : base_dir, ec);
  if (ec) return io_error("model folder '{}': {}", base_dir, ec.message());
  const fs::path full = fs::weakly_canonical(base / loc, ec);  // resolves symlinks
  if (ec) return io_error("external data '{}': {}", location, ec.message());
  const auto rel = full.lexically_relative(base);
  if (rel.empty() || *rel.begin() == "..") {
    return invalid_argument(
        "external data location '{}' resolves to '{}', outside the model's "
        "folder '{}'",
        location, full.string(), base.string());
  }
  return full.string();
}

namespace {

template <typename T, typename Field>
Status copy_field(const Field& field, Tensor& t, const char* field_name) {
  if (static_cast<int64_t>(field.size()) != t.numel()) {
    return invalid_argument("{} holds {} values but the dims {} need {}", field_name, field.size(),
                            shape_to_string(t.shape()), t.numel());
  }
  T* dst = t.data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) dst[i] = static_cast<T>(field.Get(static_cast<int>(i)));
  return Status::Ok();
}

// int32_data carries the bits of 8/16-bit types and of fp16/bf16.
template <typename T>
Status copy_narrow(const onnx::TensorProto& p, Tensor& t) {
  if (static_cast<int64_t>(p.int32_data_size()) != t.numel()) {
    return invalid_argument("int32_data holds {} values but the dims {} need {}",
                            p.int32_data_size(), shape_to_string(t.shape()), t.numel());
  }
  T* dst = t.data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    const auto v = p.int32_data(static_cast<int>(i));
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      dst[i] = T::from_bits(static_cast<uint16_t>(v));
    } else if constexpr (std::is_same_v<T, bool>) {
      dst[i] = v != 0;
    } else {
      // A value the type cannot hold (a uint8 zero point of 300) would wrap silently.
      if (v < std::numeric_limits<T>::lowest() || v > std::numeric_limits<T>::max()) {
        return invalid_argument("int32_data value {} at index {} is outside {}", v, i,
                                dtype_name(t.dtype()));
      }
      dst[i] = static_cast<T>(v);
    }
  }
  return Status::Ok();
}

// Narrow types (core/narrow_types.h) arrive packed: 4- and 2-bit codes low bits first.
Status fill_narrow(const std::string& bytes, Tensor& t, const char* what) {
  const int bits = dtype_info(t.dtype()).narrow_bits;
  const int64_t need = packed_size(t.numel(), bits);
  if (static_cast<int64_t>(bytes.size()) != need) {
    return invalid_argument("{} has {} bytes but {} needs {} ({} bits a value, packed)", what,
                            bytes.size(), t.describe(), need, bits);
  }
  const auto* packed = reinterpret_cast<const uint8_t*>(bytes.data());
  uint8_t* codes = t.codes();
  for (int64_t i = 0; i < t.numel(); ++i)
    codes[i] = static_cast<uint8_t>(packed_code(packed, i, bits));
  return Status::Ok();
}

Status fill_from_bytes(const std::string& bytes, Tensor& t, const char* what) {
  if (is_narrow(t.dtype())) return fill_narrow(bytes, t, what);
  if (bytes.size() != t.nbytes()) {
    return invalid_argument("{} has {} bytes but {} needs {}", what, bytes.size(), t.describe(),
                            t.nbytes());
  }
  if (t.nbytes()) std::memcpy(t.raw(), bytes.data(), bytes.size());
  if (t.dtype() == DType::kBool) {
    bool* b = t.data<bool>();  // normalise any non-zero byte to true
    for (int64_t i = 0; i < t.numel(); ++i)
      b[i] = reinterpret_cast<const uint8_t*>(bytes.data())[i] != 0;
  }
  return Status::Ok();
}

Expected<std::string> read_external(const onnx::TensorProto& p, const std::string& base_dir) {
  if (base_dir.empty()) return invalid_argument("external data is not allowed here");
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;
  for (const auto& kv : p.external_data()) {
    try {
      if (kv.key() == "location") location = kv.value();
      if (kv.key() == "offset") offset = std::stoll(kv.value());
      if (kv.key() == "length") length = std::stoll(kv.value());
    } catch (const std::exception&) {
      return invalid_argument("external data field '{}' has a non-numeric value '{}'", kv.key(),
                              kv.value());
    }
  }
  IG_ASSIGN_OR_RETURN(std::string path, resolve_inside(base_dir, location));
  if (offset < 0) return invalid_argument("external data offset {} is negative", offset);
  std::error_code ec;
  const auto size = static_cast<int64_t>(fs::file_size(path, ec));
  if (ec) return io_error("external data file '{}': {}", location, ec.message());
  if (length < 0) length = size - offset;
  if (offset > size || length > size - offset) {
    return invalid_argument("external data '{}' range [{}, +{}) is outside the file of {} bytes",
                            location, offset, length, size);
  }
  std::ifstream in(path, std::ios::binary);
  in.seekg(offset);
  std::string bytes(static_cast<size_t>(length), '\0');
  in.read(bytes.data(), length);
  if (!in && length) return io_error("external data '{}': read failed", location);
  return bytes;
}

}  // namespace

Expected<std::string> int32_data_bytes(const onnx::TensorProto& p, DType dtype) {
  std::string bytes;
  bytes.reserve(static_cast<size_t>(p.int32_data_size()));
  for (int i = 0; i < p.int32_data_size(); ++i) {
    const int32_t v = p.int32_data(i);
    if (v < 0 || v > 255)
      return invalid_argument("int32_data value {} at index {} is not a byte of packed {}", v, i,
                              dtype_name(dtype));
    bytes.push_back(static_cast<char>(v));
  }
  return bytes;
}

Expected<Tensor> tensor_shape_from_proto(const onnx::TensorProto& p) {
  const std::string label = p.name().empty() ? "tensor" : "tensor '" + p.name() + "'";
  if (!p.has_data_type() || !is_valid_dtype(p.data_type()))
    return invalid_argument("{} has unknown data type {}", label, p.data_type());
  auto t = Tensor::shape_only(static_cast<DType>(p.data_type()),
                              Shape(p.dims().begin(), p.dims().end()));
  if (!t.ok()) return t.status().with_context(label);
  return t;
}

Expected<Tensor> tensor_from_proto(const onnx::TensorProto& p, const std::string& base_dir) {
  const std::string label = p.name().empty() ? "tensor" : "tensor '" + p.name() + "'";
  if (!p.has_data_type() || !is_valid_dtype(p.data_type())) {
    return invalid_argument("{} has unknown data type {}", label, p.data_type());
  }
  const auto dtype = static_cast<DType>(p.data_type());
  if (p.has_segment()) return unsupported("{} is segmented, which is not supported", label);
  Shape shape(p.dims().begin(), p.dims().end());
  auto created = Tensor::create(dtype, shape);
  if (!created.ok()) return created.status().with_context(label);
  Tensor t = std::move(created).value();

  Status st;
  if (p.data_location() == onnx::TensorProto::EXTERNAL) {
    auto bytes = read_external(p, base_dir);
    if (!bytes.ok()) return bytes.status().with_context(label);
    if (dtype == DType::kString) return unsupported("{}: external string data", label);
    st = fill_from_bytes(*bytes, t, "external data");
  } else if (p.has_raw_data()) {
    if (dtype == DType::kString)
      return invalid_argument("{}: string tensors cannot use raw_data", label);
    st = fill_from_bytes(p.raw_data(), t, "raw_data");
  } else if (is_narrow(dtype)) {
    auto bytes = int32_data_bytes(p, dtype);
    st = bytes.ok() ? fill_narrow(*bytes, t, "int32_data") : bytes.status();
  } else {
    switch (dtype) {
      case DType::kFloat32:
        st = copy_field<float>(p.float_data(), t, "float_data");
        break;
      case DType::kFloat64:
        st = copy_field<double>(p.double_data(), t, "double_data");
        break;
      case DType::kInt64:
        st = copy_field<int64_t>(p.int64_data(), t, "int64_data");
        break;
      case DType::kInt32:
        st = copy_field<int32_t>(p.int32_data(), t, "int32_data");
        break;
      case DType::kUInt32:
        st = copy_field<uint32_t>(p.uint64_data(), t, "uint64_data");
        break;
      case DType::kUInt64:
        st = copy_field<uint64_t>(p.uint64_data(), t, "uint64_data");
        break;
      case DType::kInt8:
        st = copy_narrow<int8_t>(p, t);
        break;
      case DType::kInt16:
        st = copy_narrow<int16_t>(p, t);
        break;
      case DType::kUInt8:
        st = copy_narrow<uint8_t>(p, t);
        break;
      case DType::kUInt16:
        st = copy_narrow<uint16_t>(p, t);
        break;
      case DType::kBool:
        st = copy_narrow<bool>(p, t);
        break;
      case DType::kFloat16:
        st = copy_narrow<Float16>(p, t);
        break;
      case DType::kBFloat16:
        st = copy_narrow<BFloat16>(p, t);
        break;
      case DType::kString: {
        if (static_cast<int64_t>(p.string_data_size()) != t.numel()) {
          st = invalid_argument("string_data holds {} values but the dims need {}",
                                p.string_data_size(), t.numel());
          break;
        }
        for (int64_t i = 0; i < t.numel(); ++i)
          t.strings()[static_cast<size_t>(i)] = p.string_data(static_cast<int>(i));
        break;
      }
      case DType::kComplex64: {
        if (p.float_data_size() != 2 * t.numel()) {
          st = invalid_argument("float_data holds {} values but complex64 dims need {}",
                                p.float_data_size(), 2 * t.numel());
          break;
        }
        // An empty field's data() may be null, which memcpy must not see even for 0 bytes.
        if (t.nbytes()) std::memcpy(t.raw(), p.float_data().data(), t.nbytes());
        break;
      }
      case DType::kComplex128: {
        if (p.double_data_size() != 2 * t.numel()) {
          st = invalid_argument("double_data holds {} values but complex128 dims need {}",
                                p.double_data_size(), 2 * t.numel());
          break;
        }
        if (t.nbytes()) std::memcpy(t.raw(), p.double_data().data(), t.nbytes());
        break;
      }
      default:
        st = unsupported("data type {}", dtype_name(dtype));
    }
  }
  if (!st.ok()) return st.with_context(label);
  return t;
}

void tensor_to_proto(const Tensor& t, const std::string& name, onnx::TensorProto* p) {
  p->Clear();
  if (!name.empty()) p->set_name(name);
  p->set_data_type(static_cast<int32_t>(t.dtype()));
  for (int64_t d : t.shape()) p->add_dims(d);
  if (t.dtype() == DType::kString) {
    for (const auto& s : t.strings()) p->add_string_data(s);
  } else if (is_narrow(t.dtype())) {
    p->set_raw_data(pack_codes(t.codes(), t.numel(), dtype_info(t.dtype()).narrow_bits));
  } else {
    p->set_raw_data(std::string(reinterpret_cast<const char*>(t.raw()), t.nbytes()));
  }
}

Expected<Tensor> read_tensor_pb(const std::string& path, std::string* name) {
  // Protobuf parses at most 2 GiB.
  IG_ASSIGN_OR_RETURN(std::string bytes, read_file_bytes(path, uint64_t{INT32_MAX}));
  return parse_tensor_pb(bytes, path, name);
}

Expected<Tensor> parse_tensor_pb(const std::string& bytes, const std::string& label,
                                 std::string* name) {
  onnx::TensorProto proto;
  if (bytes.size() > static_cast<size_t>(INT32_MAX) || !proto.ParseFromString(bytes))
    return parse_error("{}: not a valid TensorProto", label);
  if (name) *name = proto.name();
  auto t = tensor_from_proto(proto, "");
  if (!t.ok()) return t.status().with_context(label);
  return t;
}

Status write_tensor_pb(const Tensor& tensor, const std::string& name, const std::string& path) {
  onnx::TensorProto proto;
  tensor_to_proto(tensor, name, &proto);
  std::string bytes;
  if (!proto.SerializeToString(&bytes)) return io_error("{}: cannot serialise tensor", path);
  return write_file_bytes(path, bytes);
}

}  // namespace ig
