// Mutators over ONNX models (issue 7, Mind the Gap's variant synthesis): each variant records its
// lineage (parent content hash, the ordered mutations with their parameters, the seed) in
// metadata_props, and replaying that lineage on the parent rebuilds it byte for byte.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace ig {

// One mutation, fully determined by its kind and parameters (no hidden randomness).
//   activation  node=NAME to=OP                  swap a unary activation
//   pool        node=NAME to=MaxPool|AveragePool swap pooling
//   insert      value=V how=add0|mul1|identity|transpose2|reshape2|cast2|split2|slice2 [axis=A]
//                                                 semantics-preserving insertion (round trips
//                                                 through a reversed Transpose, a flattening
//                                                 Reshape, a float64 Cast, a Split or two Slices
//                                                 along A and a Concat)
//   reinit      init=NAME dist=normal|uniform a=.. b=.. seed=S  redraw a float initializer
//   cast        to=float16|double                whole model in another precision
//   attr        node=NAME key=K value=V seed=S   Conv/Pool/Gemm attribute, weights regenerated
//   inject      input=NAME inject=KIND@WHERE     exceptional values in the variant's inputs
//   extract     node=NAME [inputs=JSON]          the node alone, fed its captured inputs
//   quantize    activations= reduce_range= calibration= samples= seed= block= inputs=
//                                                 static QDQ int8 (synth/quantize_model.h)
//   convert     to=fp16|bf16 keep_io= block=        float16 / bfloat16 (synth/convert_precision.h)
//   castspan    to=fp16|bf16 first=NODE last=NODE  those nodes (graph order) in that type between
//                                                 Casts, the rest float32 (convert with block=)
//   padsplit    node=NAME value=0|-inf           a Conv's/pool's pads moved into a Pad before it
//                                                 (the value that keeps its result:
//                                                 mutate_pads.cpp); in a variant, a zero Pad
//                                                 before a MaxPool is followed by an activation
//                                                 swap of the Relu that made it exact
//   decompose   node=NAME                        an operator as the primitives that define it
//                                                 (Softmax, HardSwish, Gelu, LayerNormalization)
//   fuse        node=NAME                        the primitives ending at NAME as the operator
//                                                 (HardSwish, LayerNormalization, Gelu), the
//                                                 opset raised (mutate_fuse.cpp, raise_opset.h)
//   bnunfold    node=CONV seed=S                 a BatchNormalization with drawn statistics
//                                                 after the Conv, whose weights absorb its inverse
//   bnfold      node=BN                          the BatchNormalization folded into its Conv
//   constsub    init=NAME how=transpose|scale2   the initializer computed by a constant subgraph
//                                                 (stored transposed, or halved, and restored):
//                                                 mutate_graph.cpp
//   edge        input=NAME lo=A hi=B             the input drawn uniformly from [A, B], a range
//                                                 that drives the operator reading it into its
//                                                 tails (mutate_edge.cpp)
//   window      node=NAME count_include_pad=0|1  a padded pool at a graph output made a 1x1
//                                                 AveragePool, its border windows all padding
//                                                 (mutate_window.cpp)
struct Mutation {
  std::string kind;
  std::map<std::string, std::string> params;
  std::string to_string() const;  // "kind(k=v,...)"
};

struct Lineage {
  std::string parent_hash;  // content_hash of the parent model
  uint64_t seed = 0;        // the variant's own seed (derived from the user seed and its index)
  std::vector<Mutation> mutations;
};

inline constexpr const char* kLineageKey = "infergap.mutate.lineage";

// XXH3-64 of the serialised model, as 16 hex digits.
std::string content_hash(const onnx::ModelProto& model);

// Applies one mutation in place; errors say why it does not apply (missing node, wrong type).
Status apply_mutation(onnx::ModelProto& model, const Mutation& m);

// Picks one applicable mutation of the model at random (none applicable: kNotFound).
Expected<Mutation> plan_mutation(const onnx::ModelProto& model, uint64_t seed);

// The ONNX checker plus strict type and shape inference (the checker alone does not type-check).
Status check_variant(const onnx::ModelProto& model);

// Builds the variant for `seed` from `parent`: 1 to 3 planned mutations, lineage recorded. A
// mutation whose exactness rests on a value fact an optimizer may also rely on is followed by one
// that breaks the fact (a zero padsplit before a Relu-fed MaxPool: the Relu swapped for an
// activation with a negative range), so that a rewrite valid only under the fact shows.
Expected<onnx::ModelProto> make_variant(const onnx::ModelProto& parent, uint64_t seed);

// Records the lineage in the model's metadata_props (replacing an earlier one).
void stamp_lineage(onnx::ModelProto& model, const Lineage& lineage);

// Rebuilds a variant from its parent and its recorded lineage.
Expected<onnx::ModelProto> replay_lineage(const onnx::ModelProto& parent, const Lineage& lineage);
std::string lineage_to_json(const Lineage& lineage);
Expected<Lineage> lineage_from_model(const onnx::ModelProto& model);

// Variants for the CLI: `count` checker-valid variants, failures counted by reason.
struct MutateResult {
  std::vector<onnx::ModelProto> variants;  // distinct content, in generation order
  std::vector<std::string> hashes;
  std::map<std::string, int64_t> discarded;  // reason -> count
};
// Tries up to 4 * count + 16 seeds before giving up on reaching `count`.
MutateResult generate_variants(const onnx::ModelProto& parent, int64_t count, uint64_t seed);

}  // namespace ig
