// Pooling, BatchNormalization (inference) and Softmax / LogSoftmax through cuDNN.
#include <fmt/format.h>

#include "backends/cuda/cuda_ops.h"
#include "backends/cuda/cuda_window.h"

namespace ig::cuda {

namespace {

bool extra_output_wanted(const Node& node) {
  for (size_t i = 1; i < node.outputs.size(); ++i)
    if (!node.outputs[i].empty()) return true;
  return false;
}

std::vector<int> to_int(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

}  // namespace

Status check_pool(const Node& node, const Model&) {
  if (extra_output_wanted(node)) {
    return unsupported("{}: MaxPool's Indices output has no cuDNN equivalent", node.label());
  }
  for (int64_t d : node.attr_ints("dilations"))
    if (d != 1) return unsupported("{}: cuDNN pooling has no dilation", node.label());
  return Status::Ok();
}

Expected<OpResult> run_pool(Context& c, const OpArgs& a) {
  IG_RETURN_IF_ERROR(require_float(a, {0}));
  const TensorInfo& x = a.in(0);
  if (x.rank() < 3 || x.rank() > 5) {
    return unsupported("{}: cuDNN pooling needs rank 3 to 5, got {}", a.node.label(),
                       shape_to_string(x.shape()));
  }
  const std::string& op = a.node.op_type;
  const bool global = op.rfind("Global", 0) == 0;
  const bool is_max = op == "MaxPool" || op == "GlobalMaxPool";
  const Shape spatial(x.shape().begin() + 2, x.shape().end());
  CudnnWindow win;
  if (global) {
    win.kernel = pad_right(spatial, 2);
    win.pads.assign(win.kernel.size(), 0);
    win.strides.assign(win.kernel.size(), 1);
    win.out.assign(spatial.size(), 1);
  } else {
    const Shape kernel = a.node.attr_ints("kernel_shape");
    const bool ceil_mode = a.node.attr_int("ceil_mode", 0) != 0;
    IG_ASSIGN_OR_RETURN(win, cudnn_window(a, x.shape(), kernel, ceil_mode, false));
    // cuDNN rounds the output size down; ceil_mode may add a window it would not compute.
    for (size_t d = 0; d < spatial.size(); ++d) {
      const int64_t floor_out = (spatial[d] + 2 * win.pads[d] - win.kernel[d]) / win.strides[d] + 1;
      if (floor_out != win.out[d]) {
        return unsupported("{}: ceil_mode gives {} outputs on axis {} where cuDNN computes {}",
                           a.node.label(), win.out[d], d, floor_out);
      }
    }
  }
  cudnnPoolingMode_t mode = CUDNN_POOLING_MAX;
  std::string what = "max";
  if (is_max && c.opt().deterministic) {
    mode = CUDNN_POOLING_MAX_DETERMINISTIC;
    what = "max-deterministic";
  } else if (!is_max) {
    const bool include = a.node.attr_int("count_include_pad", 0) != 0;
    mode = include ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                   : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    what = include ? "average-include-pad" : "average";
  }
  Shape out = {x.dim(0), x.dim(1)};
  out.insert(out.end(), win.out.begin(), win.out.end());
  const size_t rank = win.kernel.size() + 2;
  PoolDesc pdesc;
  TensorDesc xdesc, ydesc;
  IG_RETURN_IF_ERROR(pdesc.create());
  const std::vector<int> k = to_int(win.kernel), p = to_int(win.pads), s = to_int(win.strides);
  IG_CUDA_CALL(cudnnSetPoolingNdDescriptor, pdesc.get(), mode, CUDNN_PROPAGATE_NAN,
               static_cast<int>(k.size()), k.data(), p.data(), s.data());
  IG_RETURN_IF_ERROR(set_tensor(xdesc, pad_right(x.shape(), rank)));
  IG_RETURN_IF_ERROR(set_tensor(ydesc, pad_right(out, rank)));
  IG_ASSIGN_OR_RETURN(DeviceTensor xd, a.device(0));
  IG_ASSIGN_OR_RETURN(DeviceTensor yd, c.empty(out));
  const float one = 1.0f, zero = 0.0f;
  IG_CUDA_CALL(cudnnPoolingForward, c.dnn(), pdesc.get(), &one, xdesc.get(), xd.data(), &zero,
               ydesc.get(), yd.data());
  return OpResult{yd, "cudnnPoolingForward " + what};
}

Status check_batchnorm(const Node& node, const Model& model) {
  const int64_t opset = model.opset_for(node.domain);
  if (node.attr_int("training_mode", 0) != 0 || extra_output_wanted(node)) {
    return unsupported("{}: only inference BatchNormalization (one output) maps to cuDNN",
                       node.label());
  }
  if (opset < 9 && node.attr_int("spatial", 1) == 0) {
    return unsupported("{}: per-activation BatchNormalization (spatial=0) is not mapped",
                       node.label());
  }
  if (node.inputs.size() < 5) return invalid_argument("{}: needs 5 inputs", node.label());
  return Status::Ok();
}

Expected<OpResult> run_batchnorm(Context& c, const OpArgs& a) {
  IG_RETURN_IF_ERROR(require_float(a, {0, 1, 2, 3, 4}));
  const TensorInfo& x = a.in(0);
  if (x.rank() < 2 || x.rank() > 5) {
    return unsupported("{}: cuDNN batch normalization needs rank 2 to 5, got {}", a.node.label(),
                       shape_to_string(x.shape()));
  }
  for (size_t i = 1; i < 5; ++i) {
    if (!a.has(i) || a.in(i).numel() != x.dim(1)) {
      return invalid_argument("{}: input {} must have {} elements (one per channel)",
                              a.node.label(), i, x.dim(1));
    }
  }
  const size_t rank = std::max<size_t>(4, x.shape().size());
  TensorDesc xdesc, bndesc;
  IG_RETURN_IF_ERROR(set_tensor(xdesc, pad_right(x.shape(), rank)));
  IG_RETURN_IF_ERROR(bndesc.create());
  IG_CUDA_CALL(cudnnDeriveBNTensorDescriptor, bndesc.get(), xdesc.get(), CUDNN_BATCHNORM_SPATIAL);
  std::vector<DeviceTensor> in;
  for (size_t i = 0; i < 5; ++i) {
    IG_ASSIGN_OR_RETURN(DeviceTensor d, a.device(i));
    in.push_back(std::move(d));
  }
  IG_ASSIGN_OR_RETURN(DeviceTensor yd, c.empty(x.shape()));
  const double eps = a.node.attr_float("epsilon", 1e-5f);
  const float one = 1.0f, zero = 0.0f;
  IG_CUDA_CALL(cudnnBatchNormalizationForwardInference, c.dnn(), CUDNN_BATCHNORM_SPATIAL, &one,
               &zero, xdesc.get(), in[0].data(), xdesc.get(), yd.data(), bndesc.get(), in[1].data(),
               in[2].data(), in[3].data(), in[4].data(), eps);
  return OpResult{yd, "cudnnBatchNormalizationForwardInference"};
}

Expected<OpResult> run_softmax(Context& c, const OpArgs& a) {
  IG_RETURN_IF_ERROR(require_float(a, {0}));
  const TensorInfo& x = a.in(0);
  const int64_t r = x.rank();
  if (r == 0) return unsupported("{}: softmax of a scalar", a.node.label());
  int64_t axis = a.node.attr_int("axis", a.opset >= 13 ? -1 : 1);
  if (axis < -r || axis >= r) {
    return invalid_argument("{}: axis {} out of range for rank {}", a.node.label(), axis, r);
  }
  if (axis < 0) axis += r;
  int64_t outer = 1, dim = 1, inner = 1;
  for (int64_t i = 0; i < r; ++i) (i < axis ? outer : i == axis ? dim : inner) *= x.dim(i);
  // Before opset 13 the input is coerced to 2-D [outer, dim * inner] and normalised per row.
  Shape view = a.opset >= 13 ? Shape{outer, dim, inner, 1} : Shape{outer, dim * inner, 1, 1};
  TensorDesc desc;
  IG_RETURN_IF_ERROR(set_tensor(desc, view));
  IG_ASSIGN_OR_RETURN(DeviceTensor xd, a.device(0));
  IG_ASSIGN_OR_RETURN(DeviceTensor yd, c.empty(x.shape()));
  const bool log = a.node.op_type == "LogSoftmax";
  const float one = 1.0f, zero = 0.0f;
  IG_CUDA_CALL(cudnnSoftmaxForward, c.dnn(), log ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE,
               CUDNN_SOFTMAX_MODE_CHANNEL, &one, desc.get(), xd.data(), &zero, desc.get(),
               yd.data());
  return OpResult{yd, log ? "cudnnSoftmaxForward log" : "cudnnSoftmaxForward accurate"};
}

}  // namespace ig::cuda
