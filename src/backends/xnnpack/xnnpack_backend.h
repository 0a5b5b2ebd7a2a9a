// The `xnnpack` platform: one XNNPACK operator (Debian's 2022 snapshot, operator API) per ONNX
// node, on a pthreadpool of `threads` threads. Operands are copied into the layout XNNPACK wants
// (NHWC for convolutions and pools) and back, so every node's output is a plain NCHW tensor.
#pragma once

#include "backends/library/library_backend.h"
#include "backends/library/qdq_checks.h"
#include "backends/xnnpack/xnnpack_common.h"

namespace ig {

class XnnpackBackend : public LibraryBackend {
 public:
  // xnnpack::initialize() must have succeeded.
  explicit XnnpackBackend(xnnpack::Options options);
  ~XnnpackBackend() override;
  XnnpackBackend(const XnnpackBackend&) = delete;
  XnnpackBackend& operator=(const XnnpackBackend&) = delete;
  bool fallback_ref() const override { return ctx_.opt.fallback_ref; }
  // The threads XNNPACK's operators run on: the pool's, or 1 without a pool.
  size_t threads() const { return ctx_.pool ? pthreadpool_get_threads_count(ctx_.pool) : 1; }

 protected:
  Status check_native(const Node& node, const Model& model) const override;
  bool maps_domain_op(const Node& node) const override;
  std::unique_ptr<LibraryRun> begin_run(const Model& model,
                                        const std::map<std::string, Value>& feeds) override;

 private:
  xnnpack::Ctx ctx_;
  mutable QdqMembership groups_;  // the support check's int8 groups (check_native)
};

}  // namespace ig
