// Activations (cudnnActivationForward) and Add / Sub / Mul (cudnnOpTensor): library calls, so the
// backend needs no CUDA kernels of its own.
#include <cmath>
#include <limits>

#include "backends/cuda/cuda_ops.h"
#include "tensor/broadcast.h"

namespace ig::cuda {

namespace {

// Clip's bounds: attributes before opset 11, optional scalar inputs from 11 on.
struct Bounds {
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();
};

Expected<Bounds> clip_bounds(const Node& node, int64_t opset, const OpArgs* a) {
  Bounds b;
  if (opset < 11) {
    b.lo = node.attr_float("min", b.lo);
    b.hi = node.attr_float("max", b.hi);
    return b;
  }
  if (!a) return b;  // known only when the node runs
  for (size_t i = 1; i <= 2; ++i) {
    if (!a->has(i)) continue;
    const TensorInfo& t = a->in(i);
    if (t.dtype() != DType::kFloat32 || t.numel() != 1) {
      return unsupported("{}: Clip bound {} must be a float32 scalar", node.label(), i);
    }
    IG_ASSIGN_OR_RETURN(const Tensor* bound, a->host(i));
    (i == 1 ? b.lo : b.hi) = bound->data<float>()[0];
  }
  return b;
}

// cuDNN's activations that match ONNX operators; Clip only as ReLU clipped at [0, max].
Expected<std::pair<cudnnActivationMode_t, double>> activation_of(const Node& node, int64_t opset,
                                                                 const OpArgs* a) {
  const std::string& op = node.op_type;
  if (op == "Relu") return std::pair{CUDNN_ACTIVATION_RELU, 0.0};
  if (op == "Sigmoid") return std::pair{CUDNN_ACTIVATION_SIGMOID, 0.0};
  if (op == "Tanh") return std::pair{CUDNN_ACTIVATION_TANH, 0.0};
  if (op == "Elu") {
    return std::pair{CUDNN_ACTIVATION_ELU, static_cast<double>(node.attr_float("alpha", 1.0f))};
  }
  IG_ASSIGN_OR_RETURN(Bounds b, clip_bounds(node, opset, a));
  if (b.lo != 0.0f) {
    if (!a && opset >= 11) return std::pair{CUDNN_ACTIVATION_CLIPPED_RELU, 0.0};
    return unsupported("{}: Clip with min={} has no cuDNN activation (only min=0: clipped ReLU)",
                       node.label(), b.lo);
  }
  if (std::isinf(b.hi)) return std::pair{CUDNN_ACTIVATION_RELU, 0.0};
  return std::pair{CUDNN_ACTIVATION_CLIPPED_RELU, static_cast<double>(b.hi)};
}

}  // namespace

Status check_activation(const Node& node, const Model& model) {
  return activation_of(node, model.opset_for(node.domain), nullptr).status();
}

Expected<OpResult> run_activation(Context& c, const OpArgs& a) {
  IG_RETURN_IF_ERROR(require_float(a, {0}));
  IG_ASSIGN_OR_RETURN(auto act, activation_of(a.node, a.opset, &a));
  const TensorInfo& x = a.in(0);
  ActDesc adesc;
  TensorDesc desc;
  IG_RETURN_IF_ERROR(adesc.create());
  // ONNX propagates NaN through every activation.
  IG_CUDA_CALL(cudnnSetActivationDescriptor, adesc.get(), act.first, CUDNN_PROPAGATE_NAN,
               act.second);
  IG_RETURN_IF_ERROR(set_tensor(desc, {x.numel()}));
  IG_ASSIGN_OR_RETURN(DeviceTensor xd, a.device(0));
  IG_ASSIGN_OR_RETURN(DeviceTensor yd, c.empty(x.shape()));
  const float one = 1.0f, zero = 0.0f;
  IG_CUDA_CALL(cudnnActivationForward, c.dnn(), adesc.get(), &one, desc.get(), xd.data(), &zero,
               desc.get(), yd.data());
  return OpResult{yd, "cudnnActivationForward"};
}

// C = op(alpha1 * A, alpha2 * B): A must have C's shape, B may broadcast (dims equal or 1).
// Sub is A + (-1) * B; multiplying by +-1 is exact, so a - b rounds once, as ONNX asks.
Expected<OpResult> run_binary(Context& c, const OpArgs& a) {
  IG_RETURN_IF_ERROR(require_float(a, {0, 1}));
  const TensorInfo& x = a.in(0);
  const TensorInfo& y = a.in(1);
  IG_ASSIGN_OR_RETURN(Shape out, broadcast_shapes({x.shape(), y.shape()}));
  const std::string& op = a.node.op_type;
  const size_t rank = std::max<size_t>(4, out.size());
  if (rank > 5) {
    return unsupported("{}: cudnnOpTensor takes tensors of up to 5 dims, not {}", a.node.label(),
                       shape_to_string(out));
  }
  auto padded = [&](const Shape& s) {
    Shape p(rank - s.size(), 1);
    p.insert(p.end(), s.begin(), s.end());
    return p;
  };
  size_t full = 0, other = 1;
  float alpha_full = 1.0f, alpha_other = op == "Sub" ? -1.0f : 1.0f;
  if (padded(x.shape()) != padded(out)) {
    if (padded(y.shape()) != padded(out)) {
      return unsupported("{}: both inputs broadcast ({} and {}); cudnnOpTensor broadcasts only B",
                         a.node.label(), shape_to_string(x.shape()), shape_to_string(y.shape()));
    }
    std::swap(full, other);
    std::swap(alpha_full, alpha_other);
  }
  OpDesc odesc;
  TensorDesc fdesc, odesc_t, cdesc;
  IG_RETURN_IF_ERROR(odesc.create());
  IG_CUDA_CALL(cudnnSetOpTensorDescriptor, odesc.get(),
               op == "Mul" ? CUDNN_OP_TENSOR_MUL : CUDNN_OP_TENSOR_ADD, CUDNN_DATA_FLOAT,
               CUDNN_PROPAGATE_NAN);
  IG_RETURN_IF_ERROR(set_tensor(fdesc, padded(a.in(full).shape())));
  IG_RETURN_IF_ERROR(set_tensor(odesc_t, padded(a.in(other).shape())));
  IG_RETURN_IF_ERROR(set_tensor(cdesc, padded(out)));
  IG_ASSIGN_OR_RETURN(DeviceTensor fd, a.device(full));
  IG_ASSIGN_OR_RETURN(DeviceTensor od, a.device(other));
  IG_ASSIGN_OR_RETURN(DeviceTensor yd, c.empty(out));
  const float zero = 0.0f;
  IG_CUDA_CALL(cudnnOpTensor, c.dnn(), odesc.get(), &alpha_full, fdesc.get(), fd.data(),
               &alpha_other, odesc_t.get(), od.data(), &zero, cdesc.get(), yd.data());
  return OpResult{yd, "cudnnOpTensor"};
}

}  // namespace ig::cuda
