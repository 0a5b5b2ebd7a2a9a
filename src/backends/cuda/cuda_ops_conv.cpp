// Conv: cudnnConvolutionForward with the platform's algorithm rule, bias by cudnnAddTensor (as
// ONNX Runtime's CUDA provider does).
#include <fmt/format.h>

#include "backends/cuda/cuda_conv_algo.h"
#include "backends/cuda/cuda_ops.h"
#include "backends/cuda/cuda_window.h"

namespace ig::cuda {

Status check_conv(const Node& node, const Model&) {
  if (node.inputs.size() < 2) return invalid_argument("{}: Conv needs X and W", node.label());
  return Status::Ok();
}

namespace {

std::vector<int> to_int(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

}  // namespace

Expected<OpResult> run_conv(Context& c, const OpArgs& a) {
  IG_RETURN_IF_ERROR(require_float(a, {0, 1, 2}));
  const TensorInfo& x = a.in(0);
  const TensorInfo& w = a.in(1);
  if (x.rank() < 3 || x.rank() > 5 || w.rank() != x.rank()) {
    return unsupported("{}: cuDNN convolution needs X and W of equal rank 3 to 5 (got {} and {})",
                       a.node.label(), shape_to_string(x.shape()), shape_to_string(w.shape()));
  }
  const Shape kernel(w.shape().begin() + 2, w.shape().end());
  IG_ASSIGN_OR_RETURN(CudnnWindow win, cudnn_window(a, x.shape(), kernel, false));
  const int64_t group = a.node.attr_int("group", 1);
  const int64_t m = w.dim(0);
  if (group < 1 || x.dim(1) != w.dim(1) * group || m % group != 0) {
    return invalid_argument("{}: X {} and W {} do not fit group={}", a.node.label(),
                            shape_to_string(x.shape()), shape_to_string(w.shape()), group);
  }
  if (a.has(2) && a.in(2).numel() != m) {
    return invalid_argument("{}: bias has {} elements for {} output channels", a.node.label(),
                            a.in(2).numel(), m);
  }
  Shape out = {x.dim(0), m};
  out.insert(out.end(), win.out.begin(), win.out.end());
  const size_t rank = win.pads.size() + 2;  // spatial dims padded to at least 2

  TensorDesc xdesc, ydesc;
  FilterDesc wdesc;
  ConvDesc cdesc;
  IG_RETURN_IF_ERROR(set_tensor(xdesc, pad_right(x.shape(), rank)));
  IG_RETURN_IF_ERROR(set_tensor(ydesc, pad_right(out, rank)));
  IG_RETURN_IF_ERROR(wdesc.create());
  const std::vector<int> wdims = to_int(pad_right(w.shape(), rank));
  IG_CUDA_CALL(cudnnSetFilterNdDescriptor, wdesc.get(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
               static_cast<int>(rank), wdims.data());
  IG_RETURN_IF_ERROR(cdesc.create());
  const std::vector<int> pads = to_int(win.pads), strides = to_int(win.strides),
                         dil = to_int(win.dilations);
  IG_CUDA_CALL(cudnnSetConvolutionNdDescriptor, cdesc.get(), static_cast<int>(rank - 2),
               pads.data(), strides.data(), dil.data(), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
  IG_CUDA_CALL(cudnnSetConvolutionGroupCount, cdesc.get(), static_cast<int>(group));
  // Our output geometry and cuDNN's must agree, or the descriptors above are wrong.
  std::vector<int> cudnn_out(rank);
  IG_CUDA_CALL(cudnnGetConvolutionNdForwardOutputDim, cdesc.get(), xdesc.get(), wdesc.get(),
               static_cast<int>(rank), cudnn_out.data());
  if (to_int(pad_right(out, rank)) != cudnn_out) {
    return internal_error("{}: cuDNN computes a different output shape than ONNX {}",
                          a.node.label(), shape_to_string(out));
  }

  IG_ASSIGN_OR_RETURN(DeviceTensor xd, a.device(0));
  IG_ASSIGN_OR_RETURN(DeviceTensor wd, a.device(1));
  IG_ASSIGN_OR_RETURN(DeviceTensor yd, c.empty(out));
  const std::string key =
      fmt::format("x{} w{} p{} s{} d{} g{} tf32={} det={}", shape_to_string(x.shape()),
                  shape_to_string(w.shape()), fmt::join(pads, ","), fmt::join(strides, ","),
                  fmt::join(dil, ","), group, c.opt().tf32, c.opt().deterministic);
  const ConvProblem p{xdesc, wdesc, cdesc, ydesc, xd, wd, yd, key};
  IG_ASSIGN_OR_RETURN(const Algo rule, algo_for_conv(c.opt(), a.conv_index, a.conv_count));
  IG_ASSIGN_OR_RETURN(ConvChoice choice, choose_conv_algo(c, rule, p));
  Status st = conv_forward(c, p, choice);
  // A fixed algorithm whose workspace query passed may still be refused when it runs (cuDNN
  // answers NOT_SUPPORTED or BAD_PARAM for shapes an algorithm lacks), or need more memory than
  // the device has: fall back like a refused query does, the note saying why.
  if (!st.ok() && is_fixed(rule)) {
    IG_ASSIGN_OR_RETURN(choice, fallback_choice(c, p, rule, st));
    st = conv_forward(c, p, choice);
  }
  if (!st.ok()) return Status(st.code(), a.node.label() + ": " + st.message());

  if (a.has(2)) {
    TensorDesc bdesc;
    Shape bshape(rank, 1);
    bshape[1] = m;
    IG_RETURN_IF_ERROR(set_tensor(bdesc, bshape));
    IG_ASSIGN_OR_RETURN(DeviceTensor bd, a.device(2));
    const float one = 1.0f;
    IG_CUDA_CALL(cudnnAddTensor, c.dnn(), &one, bdesc.get(), bd.data(), &one, ydesc.get(),
                 yd.data());
  }
  return OpResult{yd, choice.note, fwd_algo_name(choice.algo)};
}

}  // namespace ig::cuda
