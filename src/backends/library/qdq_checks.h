// The checks the libraries' int8 QDQ groups share (backends/library/qdq_group.h): per-tensor
// activations and outputs, s8 weights with zero point 0 scaled per tensor or per output channel,
// an int32 bias with zero point 0, the head's weight ranks and Gemm attributes. QdqRules says
// what differs: the library's words in the refusals and which variants it takes.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/library/node_groups.h"
#include "backends/library/qdq_group.h"
#include "core/status.h"

namespace ig {

struct QdqRules {
  const char* lib = "";   // "... is not mapped to oneDNN"
  const char* ops = "";   // "...; oneDNN's int8 kernels take ..."
  const char* data = "";  // activations and outputs it takes: "u8 or s8", "quint8"
  bool s8_data = true;    // s8 activations and outputs too (else u8 only)
  int conv_rank_min = 3, conv_rank_max = 4;  // Conv weight ranks taken
  const char* conv_dims = "";                // those as spatial dims: "1 to 3"
  // A group without a QuantizeLinear is refused: the operators write integers.
  bool needs_q = false;
  // Bias only as an int32 DequantizeLinear whose scale is x_scale * w_scale: the operators add
  // it in the accumulator's units. Else also a float bias, and an int32 bias of any scale.
  bool acc_bias_only = false;
};

// The output-channel axis of the head's weights of rank `w_rank`.
int64_t qdq_channel_axis(const Node& head, int64_t w_rank);

// Ok when the library `rules` describes takes the group, checking what `known` holds; else
// kUnsupported naming the node and why.
Status check_qdq_int8(const Model& model, const QdqGroup& grp, const TensorLookup& known,
                      const QdqRules& rules);

struct QdqPlan {
  NodeGroups groups;
  std::unordered_map<size_t, QdqGroup> qdq;  // by the group's last node
};

// The groups whose head `native` accepts and that `check` passes on the initializers.
using QdqCheck = std::function<Status(const Model&, const QdqGroup&, const TensorLookup&)>;
QdqPlan plan_qdq_groups(const Model& model, const std::function<bool(const Node&)>& native,
                        const QdqCheck& check);

// Which main-graph nodes belong to a planned int8 group, kept for the model it was made for: the
// support check asks node by node, and planning is linear in the model.
class QdqMembership {
 public:
  // Whether `node`, a QuantizeLinear or DequantizeLinear of `model`'s main graph, is part of a
  // group `plan` makes (with heads `native` accepts): the library takes it inside the group,
  // however it would refuse it alone.
  bool in_group(const Node& node, const Model& model,
                const std::function<bool(const Node&)>& native, const QdqCheck& check);

 private:
  const Node* nodes_ = nullptr;  // the model's node array: a reloaded model has another
  size_t count_ = 0;
  std::vector<int> group_of_;
};

// A QuantizeLinear's or DequantizeLinear's scales and zero point, read from `values`.
struct QdqQuant {
  std::vector<float> scales;  // one, or per channel
  int32_t zp = 0;
  DType type = DType::kUInt8;  // of the integers: the zero point's, uint8 without one
};
Expected<const Tensor*> qdq_value(const TensorLookup& values, const std::string& name);
Expected<QdqQuant> qdq_quant_of(const Node& n, const TensorLookup& values);

// What every library's int8 kernel reads of a group it took: the head, the activation's and the
// weights' DequantizeLinear with their scales and zero points, and the weights' output-channel
// axis (MatMul and Gemm weights are 2-D: check_qdq_int8).
struct QdqGroupOperands {
  const Node& head;
  const Node& dx;
  const Node& dw;
  QdqQuant x, w;
  int w_axis = 0;
};
Expected<QdqGroupOperands> qdq_group_operands(const Model& model, const QdqGroup& grp,
                                              const TensorLookup& values);

}  // namespace ig
