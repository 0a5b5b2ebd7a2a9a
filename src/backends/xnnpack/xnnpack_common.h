// Shared pieces of the XNNPACK backend: options, the thread pool, buffers with the slack XNNPACK's
// kernels read past, NCHW <-> NHWC copies (XNNPACK's convolutions and pools are NHWC, ONNX is
// NCHW), fp16 conversion, and ONNX's sliding-window attributes as XNNPACK's 2-D parameters.
#pragma once

#include <pthreadpool.h>
#include <xnnpack.h>

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "model/graph.h"
#include "tensor/tensor.h"

namespace ig::xnnpack {

struct Options {
  int threads = 1;            // 1: no pthreadpool (XNNPACK runs on the calling thread)
  bool fp16 = false;          // nodes with an f16 operator run in IEEE half
  bool fallback_ref = false;  // run unsupported nodes on the reference backend
};

struct Ctx {
  Options opt;
  pthreadpool_t pool = nullptr;  // owned by the backend
};

// Calls xnn_initialize once per process; its failure (a CPU without SSE2, say) every time after.
Status initialize();

// Whether this XNNPACK and CPU create f16 operators (probed once with a small convolution).
bool has_f16_operators();

struct OperatorDelete {
  void operator()(xnn_operator_t op) const { xnn_delete_operator(op); }
};
using Operator = std::unique_ptr<xnn_operator, OperatorDelete>;

const char* status_name(xnn_status s);
// Ok, or the failed call as a Status naming the node: parameters XNNPACK refuses are kUnsupported
// (the node may fall back to the reference kernels), the rest internal or out of memory.
Status check(xnn_status s, const Node& node, const std::string& call);
// "xnn_create_NAME_f32" ("_f16" when `half`) for messages; `step` is create or setup.
std::string call_name(const char* step, const std::string& name, bool half);
// xnn_run_operator on the context's pool.
Status run(Ctx& c, const Node& node, xnn_operator_t op);

// Elements as an operator reads or writes them, fp32 or IEEE half, with XNN_EXTRA_BYTES of slack
// after the last one: XNNPACK's kernels may read (and ignore) up to that much past the end.
class Buffer {
 public:
  Buffer() = default;
  Buffer(size_t n, bool half);
  size_t size() const { return n_; }
  bool half() const { return half_; }
  float* f32() { return store_.data(); }
  const float* f32() const { return store_.data(); }
  void* data() { return store_.data(); }
  const void* data() const { return store_.data(); }

 private:
  std::vector<float> store_;
  size_t n_ = 0;
  bool half_ = false;
};

// fp32 copies of a tensor: as it is, and [N,C,H,W] as [N,H,W,C].
Buffer copy_of(const Tensor& t);
Buffer nchw_to_nhwc(const Tensor& t);
// Tensors from fp32 buffers: `shape` as it is, and [N,H,W,C] data as a tensor of NCHW `shape`.
Tensor tensor_of(const Buffer& b, const Shape& shape);
Tensor nhwc_to_nchw(const Buffer& b, const Shape& shape);

// Conversions by XNNPACK's own convert operators (round to nearest even, as F16C does).
Expected<Buffer> to_half(Ctx& c, const Node& node, const Buffer& b);
Expected<Buffer> to_float(Ctx& c, const Node& node, const Buffer& b);
// The buffer as the node's operator takes it: as it is, or converted to half when `half`.
Expected<Buffer> in_precision(Ctx& c, const Node& node, Buffer b, bool half);

// [N,C,W] as the 2-D image [N,C,1,W]; [N,C,H,W] as it is.
Shape as_image(const Shape& nchw);

// ONNX's strides / dilations / pads / auto_pad / ceil_mode over 1 or 2 spatial axes as XNNPACK's
// 2-D parameters (1-D: height 1). ceil_mode becomes extra bottom/right padding.
struct Window2d {
  uint32_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
  uint32_t top = 0, left = 0, bottom = 0, right = 0;
  int64_t oh = 1, ow = 1;
  bool padded() const { return (top | left | bottom | right) != 0; }
};
// `spatial` and `kernel`: the input's and the kernel's 1 or 2 spatial sizes. `attrs` false: the
// node's window attributes do not apply (global pooling).
Expected<Window2d> window_2d(const Node& node, const Shape& spatial,
                             const std::vector<int64_t>& kernel, bool ceil_mode, bool attrs = true);

}  // namespace ig::xnnpack
