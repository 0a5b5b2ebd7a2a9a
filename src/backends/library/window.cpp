#include "backends/library/window.h"

#include <algorithm>

namespace ig {

Expected<Window> window_of(const Node& node, const Shape& in, const std::vector<int64_t>& kernel,
                           bool ceil_mode) {
  const size_t n = kernel.size();
  Window w;
  w.kernel = kernel;
  w.strides = node.attr_ints("strides", std::vector<int64_t>(n, 1));
  w.dilations = node.attr_ints("dilations", std::vector<int64_t>(n, 1));
  std::vector<int64_t> pads = node.attr_ints("pads", std::vector<int64_t>(2 * n, 0));
  if (w.strides.size() != n || w.dilations.size() != n || pads.size() != 2 * n ||
      in.size() != n + 2) {
    return invalid_argument("{}: strides/dilations/pads do not match {} spatial dims", node.label(),
                            n);
  }
  const std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  for (size_t i = 0; i < n; ++i) {
    const int64_t size = in[i + 2];
    const int64_t extent = (kernel[i] - 1) * w.dilations[i] + 1;
    int64_t pb = pads[i], pe = pads[i + n];
    if (auto_pad == "VALID") {
      pb = pe = 0;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t out = (size + w.strides[i] - 1) / w.strides[i];
      const int64_t total = std::max<int64_t>((out - 1) * w.strides[i] + extent - size, 0);
      pb = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe = total - pb;
    } else if (auto_pad != "NOTSET") {
      return invalid_argument("{}: unknown auto_pad '{}'", node.label(), auto_pad);
    }
    const int64_t span = size + pb + pe - extent;
    if (span < 0) return invalid_argument("{}: window larger than the padded input", node.label());
    int64_t out = span / w.strides[i] + 1;
    if (ceil_mode && span % w.strides[i] != 0) {
      ++out;
      // A window may not start in the end padding (ONNX and PyTorch drop it).
      if ((out - 1) * w.strides[i] >= size + pb) --out;
    }
    w.pad_begin.push_back(pb);
    w.declared_pad_end.push_back(pe);
    w.pad_end.push_back((out - 1) * w.strides[i] + extent - size - pb);
    w.out.push_back(out);
  }
  return w;
}

}  // namespace ig
