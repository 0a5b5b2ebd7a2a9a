// Graph surgery shared by the mutators (mutate_ops.cpp) and their planner (mutate.cpp).
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace ig {

struct ValueType {
  int elem_type = 0;          // onnx::TensorProto::DataType
  int rank = -1;              // -1: unknown
  std::vector<int64_t> dims;  // `rank` entries where known, -1 for a symbolic or unknown dim
};

// Types of every value the (non-strict) shape inference can see, initializers included.
std::map<std::string, ValueType> value_types(const onnx::ModelProto& model);
bool is_float_type(int elem_type);  // float16, float, double
const std::vector<std::string>& activation_ops();
bool is_activation(const std::string& op);
bool is_swappable_pool(const onnx::NodeProto& n);  // MaxPool/AveragePool with a single output
bool is_graph_output(const onnx::GraphProto& g, const std::string& value);
// The graph inputs a caller feeds: those no initializer provides (old IRs list both).
std::vector<const onnx::ValueInfoProto*> runtime_inputs(const onnx::GraphProto& g);
// The position of the node called `name` in the graph; not_found when none is.
Expected<int> node_index(const onnx::GraphProto& g, const std::string& name);
// `hint` made unique among the graph's node, value and initializer names.
std::string fresh_name(const onnx::GraphProto& g, const std::string& hint);
void add_scalar_initializer(onnx::GraphProto& g, const std::string& name, int elem_type, double v);
// The graph's nodes become `nodes` (a topologically sorted edit of them).
void replace_nodes(onnx::GraphProto& g, std::vector<onnx::NodeProto> nodes);
// Inserts `nodes` (which read `value` and produce `out`) right after `value`'s producer and
// makes every other reader of `value` read `out` instead.
Status splice_after(onnx::GraphProto& g, const std::string& value, const std::string& out,
                    const std::vector<onnx::NodeProto>& nodes);
// The whole model in float16 or double: float initializers converted, Cast at the float inputs
// and outputs so the interface stays as it was.
Status cast_model(onnx::ModelProto& model, const std::string& to);

// Old-IR models list initializers among the graph inputs too; their declared type and shape must
// follow the initializer after a mutation converted or regenerated it.
void sync_initializer_inputs(onnx::GraphProto& g);

struct Mutation;
class Rng;
// A mutation's parameter; an error naming the kind and the key when it is missing.
Expected<std::string> mutation_param(const Mutation& m, const std::string& key);
// Graph outputs get their shapes inferred again after an edit that changes them; a
// non-positive dim is an error naming the output (mutate_attrs.cpp).
Status reinfer_shapes(onnx::ModelProto& model);
// attr(node=,key=kernel|stride|pads|dilation|group|channels,value=,seed=): mutate_attrs.cpp.
Status mutate_attribute(onnx::ModelProto& model, const Mutation& m);
std::vector<Mutation> attribute_candidates(const onnx::ModelProto& model, Rng& rng);
// inject(input=,inject=KIND@WHERE): records the injection in the variant's inputs.
Status inject_input(onnx::ModelProto& model, const Mutation& m);
std::vector<Mutation> inject_candidates(const onnx::ModelProto& model, Rng& rng);
// extract(node=[,inputs=JSON]): the node alone as the model (extract.cpp).
Status extract_node(onnx::ModelProto& model, const Mutation& m);
// castspan(to=fp16|bf16,first=NODE,last=NODE): the nodes from first to last (graph order) in that
// type between Cast nodes, the rest float32 (mutate_precision.cpp).
Status cast_span(onnx::ModelProto& model, const std::map<std::string, std::string>& params);
// A castspan of 1 to 4 nodes and the whole model in bfloat16 (convert to=bf16 keep_io=1).
std::vector<Mutation> precision_candidates(const onnx::ModelProto& model, Rng& rng);
// padsplit(node=,value=0|-inf): mutate_pads.cpp.
Status split_pads(onnx::ModelProto& model, const Mutation& m);
std::vector<Mutation> pad_split_candidates(const onnx::ModelProto& model, Rng& rng);
// The mutation that breaks the fact an applied padsplit rests on, or nullopt: a zero Pad before a
// MaxPool is exact only because a Relu feeds it, and an optimizer that folds the Pad into the
// MaxPool's -inf padding is wrong only where the pooled values can be negative (ONNX Runtime's
// fold), so the Relu becomes an activation with a negative range. `model` is the one padsplit
// produced.
std::optional<Mutation> pad_split_follow_up(const onnx::ModelProto& model, const Mutation& applied,
                                            Rng& rng);
// edge(input=,lo=,hi=): the input drawn from an operator's edge range (mutate_edge.cpp).
struct EdgeRange {
  double lo, hi;
};
// Per operator, the input ranges that reach its edges, where its results are still normal fp32
// numbers.
const std::map<std::string, std::vector<EdgeRange>>& edge_ranges();
Status edge_input(onnx::ModelProto& model, const Mutation& m);
std::vector<Mutation> edge_candidates(const onnx::ModelProto& model, Rng& rng);
// window(node=,count_include_pad=0|1): a padded pool at a graph output made a 1x1 AveragePool
// (mutate_window.cpp).
Status window_pool(onnx::ModelProto& model, const Mutation& m);
std::vector<Mutation> window_candidates(const onnx::ModelProto& model, Rng& rng);
// Graph rewrites optimizers undo or make (mutate_graph.cpp): bnunfold(node=CONV,seed=) a
// BatchNormalization with drawn statistics after a Conv whose weights absorb its inverse;
// bnfold(node=BN) a BatchNormalization folded into the Conv before it; constsub(init=,how=
// transpose|scale2) an initializer computed by a constant subgraph.
Status unfold_batch_norm(onnx::ModelProto& model, const Mutation& m);
Status fold_batch_norm(onnx::ModelProto& model, const Mutation& m);
Status constant_subgraph(onnx::ModelProto& model, const Mutation& m);
// One list per kind (bnunfold, bnfold, constsub); constsub draws one initializer.
std::vector<std::vector<Mutation>> graph_rewrite_candidates(const onnx::ModelProto& model,
                                                            Rng& rng);
// insert how=split2|slice2: the nodes that cut `value` in two along `axis` (Split, or two
// Slices) and Concat it back into `out`; the axis' dim must be known and at least 2.
Expected<std::vector<onnx::NodeProto>> split_round_trip(
    onnx::GraphProto& g, int64_t opset, const std::string& value, const ValueType& type,
    const std::string& how, int64_t axis, const std::string& tag, const std::string& out);
// The axes a split2/slice2 can cut (a known dim >= 2; not the batch axis when rank >= 2).
std::vector<int64_t> splittable_axes(const ValueType& type);
// fuse(node=): the primitives ending at the node as HardSwish, LayerNormalization or Gelu, the
// opset raised where needed (mutate_fuse.cpp, raise_opset.h).
Status fuse_nodes(onnx::ModelProto& model, const Mutation& m);
std::vector<Mutation> fuse_candidates(const onnx::ModelProto& model, Rng& rng);
// decompose(node=): mutate_decompose.cpp.
Status decompose_node(onnx::ModelProto& model, const Mutation& m);
std::vector<Mutation> decompose_candidates(const onnx::ModelProto& model, Rng& rng);

}  // namespace ig
