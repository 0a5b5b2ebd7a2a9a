// The element types libtorch's CPU kernels lack. libtorch 1.13 has almost no float16 CPU kernel
// (conv, matmul, pooling, norms, most activations: "slow_conv2d_cpu" not implemented for 'Half')
// and a few bfloat16 gaps, so a node that would reach one is refused with the reason: `torch`
// ends unsupported instead of error, and torch:fallback=ref runs that node on the reference
// kernels.
#pragma once

#include <optional>
#include <string>

#include "model/graph.h"

namespace ig::torchb {

// kUnsupported "Conv 'c': libtorch 1.13's CPU kernel has no float16" when the node's declared
// input dtypes (initializers, graph inputs, shape inference's value_info) meet a kernel this
// libtorch lacks (a table measured by calling each mapped ATen function on such tensors); Ok
// otherwise, or when the dtypes are unknown (then missing_kernel decides at run time).
Status check_kernel_dtypes(const Node& node, const Model& model);

// The same refusal from ATen's own "... not implemented for 'Half'" at run time, for what the
// table misses (a path picked by shapes, another libtorch); nullopt for any other message.
std::optional<Status> missing_kernel(const Node& node, const std::string& aten_message);

}  // namespace ig::torchb
