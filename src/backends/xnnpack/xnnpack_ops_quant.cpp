// QuantizeLinear / DequantizeLinear outside an int8 group as XNNPACK's convert operators
// (convert_nc_f32_qs8/qu8, convert_nc_qs8/qu8_f32): one scale and zero point per tensor.
// XNNPACK quantizes by multiplying with 1 / scale where ONNX divides by it: a value next to a
// rounding tie may round the other way. Dequantizing, (q - zp) * scale, is exact.
#include <cstring>
#include <functional>

#include "backends/xnnpack/xnnpack_ops.h"

namespace ig::xnnpack {

namespace {

Status refuse(const Node& n, const std::string& why) {
  return unsupported(
      "{}: {} outside a Conv/Gemm/MatMul QDQ group runs on XNNPACK only as a "
      "convert operator (u8/s8, one scale and zero point): {}",
      n.label(), n.op_type, why);
}

const Tensor* input_of(const Node& n, size_t i, const std::function<const Tensor*(size_t)>& at) {
  return i < n.inputs.size() && !n.inputs[i].empty() ? at(i) : nullptr;
}

// What the convert operators take; `at(i)` is input i when known.
Status check_lone(const Node& n, const std::function<const Tensor*(size_t)>& at) {
  const bool q = n.op_type == "QuantizeLinear";
  if (n.attr_int("block_size", 0) != 0) return refuse(n, "blocked quantization (block_size)");
  const int64_t out_type = n.attr_int("output_dtype", 0);
  if (q && out_type != 0 && out_type != 2 && out_type != 3)
    return refuse(n, fmt::format("output_dtype {}", out_type));
  const Tensor* s = input_of(n, 1, at);
  if (s && (s->dtype() != DType::kFloat32 || s->numel() != 1))
    return refuse(n, "scale " + s->describe());
  const Tensor* z = input_of(n, 2, at);
  if (z && z->numel() != 1) return refuse(n, "zero point " + z->describe());
  const Tensor* x = input_of(n, 0, at);
  const Tensor* ints = q ? z : (x ? x : z);
  if (ints && ints->dtype() != DType::kUInt8 && ints->dtype() != DType::kInt8)
    return refuse(n, fmt::format("{} values", dtype_name(ints->dtype())));
  if (q && x && x->dtype() != DType::kFloat32) return refuse(n, "input " + x->describe());
  return Status::Ok();
}

Status check_qdq(const Node& n, const Model& m) {
  return check_lone(n, [&](size_t i) -> const Tensor* {
    auto it = m.graph.initializers.find(n.inputs[i]);
    return it == m.graph.initializers.end() || !it->second.raw() ? nullptr : &it->second;
  });
}

Expected<OpResult> run_qdq(Ctx& c, const OpInputs& x) {
  const Node& n = x.node;
  IG_RETURN_IF_ERROR(check_lone(n, [&](size_t i) { return x.has(i) ? x.in[i] : nullptr; }));
  IG_RETURN_IF_ERROR(require_nonempty(x));
  const Tensor& X = x.at(0);
  if (!x.has(1)) return invalid_argument("{}: no scale", n.label());
  const float scale = x.at(1).data<float>()[0];
  const bool quantize = n.op_type == "QuantizeLinear";
  DType type = quantize && n.attr_int("output_dtype", 0) == 3 ? DType::kInt8 : DType::kUInt8;
  int32_t zp = 0;
  if (x.has(2)) {
    type = x.at(2).dtype();
    zp = static_cast<int32_t>(x.at(2).as_double(0));
  }
  if (!quantize) type = X.dtype();
  const bool u8 = type == DType::kUInt8;
  const size_t count = static_cast<size_t>(X.numel());
  xnn_operator_t raw = nullptr;
  std::string name;
  // One channel per element: a contiguous run of `count` values.
  xnn_status created;
  if (quantize) {
    name = u8 ? "convert_nc_f32_qu8" : "convert_nc_f32_qs8";
    created = u8 ? xnn_create_convert_nc_f32_qu8(1, 1, 1, scale, static_cast<uint8_t>(zp), 0, 255,
                                                 0, &raw)
                 : xnn_create_convert_nc_f32_qs8(1, 1, 1, scale, static_cast<int8_t>(zp), -128, 127,
                                                 0, &raw);
  } else {
    name = u8 ? "convert_nc_qu8_f32" : "convert_nc_qs8_f32";
    created = u8 ? xnn_create_convert_nc_qu8_f32(1, 1, 1, scale, static_cast<uint8_t>(zp), 0, &raw)
                 : xnn_create_convert_nc_qs8_f32(1, 1, 1, scale, static_cast<int8_t>(zp), 0, &raw);
  }
  IG_RETURN_IF_ERROR(check(created, n, "xnn_create_" + name));
  const Operator op(raw);
  Tensor out(quantize ? type : DType::kFloat32, X.shape());
  // Inputs get XNN_EXTRA_BYTES of slack; outputs are written exactly.
  std::vector<uint8_t> in(X.nbytes() + XNN_EXTRA_BYTES);
  std::memcpy(in.data(), X.raw(), X.nbytes());
  xnn_status set;
  if (quantize) {
    const auto* f = reinterpret_cast<const float*>(in.data());
    set = u8 ? xnn_setup_convert_nc_f32_qu8(op.get(), count, f, out.data<uint8_t>(), c.pool)
             : xnn_setup_convert_nc_f32_qs8(op.get(), count, f, out.data<int8_t>(), c.pool);
  } else {
    set = u8 ? xnn_setup_convert_nc_qu8_f32(op.get(), count, in.data(), out.data<float>(), c.pool)
             : xnn_setup_convert_nc_qs8_f32(op.get(), count,
                                            reinterpret_cast<const int8_t*>(in.data()),
                                            out.data<float>(), c.pool);
  }
  IG_RETURN_IF_ERROR(check(set, n, "xnn_setup_" + name));
  IG_RETURN_IF_ERROR(run(c, n, op.get()));
  return OpResult{std::move(out), "xnn:" + name};
}

}  // namespace

const std::vector<OpDef>& quant_ops() {
  static const std::vector<OpDef> kOps = {
      {"", "QuantizeLinear", 10, kMaxOpset, run_qdq, check_qdq},
      {"", "DequantizeLinear", 10, kMaxOpset, run_qdq, check_qdq},
  };
  return kOps;
}

}  // namespace ig::xnnpack
