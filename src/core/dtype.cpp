#include "core/dtype.h"

#include <array>
#include <cmath>

#include "core/enum_names.h"

namespace ig {

namespace {
constexpr auto kTable = std::to_array<DTypeInfo>({
    {DType::kUndefined, "undefined", 0, false, false, false, 0, 0, 0},
    {DType::kFloat32, "float", 4, true, false, true, 23, 8, 0},
    {DType::kUInt8, "uint8", 1, false, true, false, 0, 0, 0},
    {DType::kInt8, "int8", 1, false, true, true, 0, 0, 0},
    {DType::kUInt16, "uint16", 2, false, true, false, 0, 0, 0},
    {DType::kInt16, "int16", 2, false, true, true, 0, 0, 0},
    {DType::kInt32, "int32", 4, false, true, true, 0, 0, 0},
    {DType::kInt64, "int64", 8, false, true, true, 0, 0, 0},
    {DType::kString, "string", 0, false, false, false, 0, 0, 0},
    {DType::kBool, "bool", 1, false, false, false, 0, 0, 0},
    {DType::kFloat16, "float16", 2, true, false, true, 10, 5, 0},
    {DType::kFloat64, "double", 8, true, false, true, 52, 11, 0},
    {DType::kUInt32, "uint32", 4, false, true, false, 0, 0, 0},
    {DType::kUInt64, "uint64", 8, false, true, false, 0, 0, 0},
    {DType::kComplex64, "complex64", 8, false, false, true, 0, 0, 0},
    {DType::kComplex128, "complex128", 16, false, false, true, 0, 0, 0},
    {DType::kBFloat16, "bfloat16", 2, true, false, true, 7, 8, 0},
    {DType::kFloat8E4M3FN, "float8e4m3fn", 1, false, false, true, 3, 4, 8},
    {DType::kFloat8E4M3FNUZ, "float8e4m3fnuz", 1, false, false, true, 3, 4, 8},
    {DType::kFloat8E5M2, "float8e5m2", 1, false, false, true, 2, 5, 8},
    {DType::kFloat8E5M2FNUZ, "float8e5m2fnuz", 1, false, false, true, 2, 5, 8},
    {DType::kUInt4, "uint4", 1, false, false, false, 0, 0, 4},
    {DType::kInt4, "int4", 1, false, false, true, 0, 0, 4},
    {DType::kFloat4E2M1, "float4e2m1", 1, false, false, true, 1, 2, 4},
    {DType::kFloat8E8M0, "float8e8m0", 1, false, false, false, 0, 8, 8},
    {DType::kUInt2, "uint2", 1, false, false, false, 0, 0, 2},
    {DType::kInt2, "int2", 1, false, false, true, 0, 0, 2},
});

// The table is indexed by the enum value, so a new dtype must extend both: entry i is DType i, one
// entry per value, each with its own name.
constexpr bool indexed_by_dtype() {
  for (size_t i = 0; i < kTable.size(); ++i)
    if (static_cast<size_t>(kTable[i].dtype) != i) return false;
  return true;
}
constexpr auto kNames = [] {
  std::array<const char*, kTable.size()> names{};
  for (size_t i = 0; i < kTable.size(); ++i) names[i] = kTable[i].name;
  return names;
}();
static_assert(indexed_by_dtype(), "kTable[i].dtype must be DType i");
static_assert(names_cover(kNames, static_cast<size_t>(kNumDTypes)), "one distinct name per dtype");
}  // namespace

const DTypeInfo& dtype_info(DType dt) {
  const auto i = static_cast<size_t>(dt);
  return i < kTable.size() ? kTable[i] : kTable[0];
}

double smallest_normal(DType dt) {
  return std::ldexp(1.0, 2 - (1 << (dtype_info(dt).exponent_bits - 1)));
}

bool is_valid_dtype(int32_t value) { return value > 0 && value < kNumDTypes; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& info : kTable) {
    if (info.dtype != DType::kUndefined && name == info.name) return info.dtype;
  }
  if (name == "float32" || name == "fp32") return DType::kFloat32;
  if (name == "float64" || name == "fp64") return DType::kFloat64;
  if (name == "fp16") return DType::kFloat16;
  if (name == "bf16") return DType::kBFloat16;
  return std::nullopt;
}

std::optional<std::string_view> lacked_onnx_type(int32_t value) {
  // TensorProto.DataType 27 and 28 (onnx.proto); newer than the Debian libonnx, so by number.
  constexpr std::array<std::string_view, 2> kLacked = {"float6e2m3", "float6e3m2"};
  if (value < kNumDTypes || value >= kNumDTypes + static_cast<int32_t>(kLacked.size()))
    return std::nullopt;
  return kLacked[static_cast<size_t>(value - kNumDTypes)];
}

}  // namespace ig
