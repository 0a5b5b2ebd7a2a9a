// LSTM and GRU as at::lstm / at::gru, the calls nn.LSTM / nn.GRU make. ONNX orders the gates
// i, o, f, c (LSTM) and z, r, h (GRU) where ATen has i, f, g, o and r, z, n: the weights are
// re-chunked, and ONNX's B = [Wb, Rb] split into ATen's b_ih, b_hh. What ATen's modules cannot
// express (reverse-only direction, peepholes, sequence lengths, clip, other activations, GRU with
// linear_before_reset=0) is refused with the reason.
#include "backends/torch/torch_ops.h"

namespace ig::torchb {

namespace {

Status check_rnn(const Node& node, const Model& model) {
  const std::string dir = node.attr_string("direction", "forward");
  if (dir != "forward" && dir != "bidirectional") {
    return unsupported("{}: direction={} has no ATen module equivalent", node.label(), dir);
  }
  if (node.has_attr("activations") || node.has_attr("clip") ||
      node.attr_int("input_forget", 0) != 0 || node.attr_int("layout", 0) != 0) {
    return unsupported("{}: activations, clip, input_forget and layout=1 are not mapped onto ATen",
                       node.label());
  }
  const bool lstm = node.op_type == "LSTM";
  if (node.inputs.size() > 4 && !node.inputs[4].empty()) {
    return unsupported("{}: sequence_lens is not mapped onto ATen", node.label());
  }
  if (lstm && node.inputs.size() > 7 && !node.inputs[7].empty()) {
    return unsupported("{}: peepholes (P) are not mapped onto ATen", node.label());
  }
  if (!lstm && node.attr_int("linear_before_reset", 0) != 1) {
    return unsupported("{}: GRU with linear_before_reset=0 differs from ATen's GRU", node.label());
  }
  return Status::Ok();
}

// Rows of `w` [gates * H, ...] in the order `chunks` (indices of H-row blocks).
at::Tensor rechunk(const at::Tensor& w, const std::vector<int64_t>& chunks) {
  const auto parts = w.chunk(static_cast<int64_t>(chunks.size()), 0);
  std::vector<at::Tensor> ordered;
  for (int64_t c : chunks) ordered.push_back(parts[static_cast<size_t>(c)]);
  return at::cat(ordered, 0).contiguous();
}

Expected<OpResult> rnn(const OpInputs& x) {
  const bool lstm = x.node.op_type == "LSTM";
  const int64_t gates = lstm ? 4 : 3;
  // ONNX chunk order -> ATen's: LSTM iofc -> ifco (c is ATen's g), GRU zrh -> rzh.
  const std::vector<int64_t> order =
      lstm ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{1, 0, 2};
  const at::Tensor& X = x.at(0);
  const at::Tensor& W = x.at(1);
  const at::Tensor& R = x.at(2);
  const int64_t dirs = W.size(0), hidden = R.size(2);
  if (X.dim() != 3 || W.dim() != 3 || R.dim() != 3 || W.size(1) != gates * hidden) {
    return invalid_argument("{}: X, W, R do not have ONNX's shapes", x.node.label());
  }
  const int64_t batch = X.size(1);
  std::vector<at::Tensor> params;
  for (int64_t d = 0; d < dirs; ++d) {
    params.push_back(rechunk(W[d], order));
    params.push_back(rechunk(R[d], order));
    at::Tensor b = x.has(3) ? x.at(3)[d] : at::zeros({2 * gates * hidden}, W.options());
    params.push_back(rechunk(b.slice(0, 0, gates * hidden), order));
    params.push_back(rechunk(b.slice(0, gates * hidden, 2 * gates * hidden), order));
  }
  auto initial = [&](size_t i) {
    return x.has(i) ? x.at(i).contiguous() : at::zeros({dirs, batch, hidden}, X.options());
  };
  const bool bidirectional = dirs == 2;
  at::Tensor y, h, c;
  if (lstm) {
    std::tie(y, h, c) =
        at::lstm(X, {initial(5), initial(6)}, params, true, 1, 0.0, false, bidirectional, false);
  } else {
    std::tie(y, h) = at::gru(X, initial(5), params, true, 1, 0.0, false, bidirectional, false);
  }
  // ATen's output [seq, batch, dirs * H] is ONNX's Y [seq, dirs, batch, H].
  const at::Tensor onnx_y =
      y.view({y.size(0), batch, dirs, hidden}).permute({0, 2, 1, 3}).contiguous();
  OpResult r{{}, lstm ? "aten::lstm" : "aten::gru"};
  const std::vector<at::Tensor> all = {onnx_y, h, c};
  for (size_t i = 0; i < x.node.outputs.size() && i < 3; ++i) {
    if (!x.node.outputs[i].empty()) r.outs.push_back(all[i].contiguous());
  }
  return r;
}

}  // namespace

const std::vector<OpDef>& rnn_ops() {
  static const std::vector<OpDef> table = {
      {"", "LSTM", 7, kMaxOpset, rnn, check_rnn},
      {"", "GRU", 7, kMaxOpset, rnn, check_rnn},
  };
  return table;
}

}  // namespace ig::torchb
