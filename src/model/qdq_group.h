// Int8 QDQ groups as quantizers write them: DequantizeLinear(x) and DequantizeLinear(w), optionally
// DequantizeLinear(bias), into a Conv, Gemm or MatMul (the head), optionally a Relu or Clip,
// optionally a QuantizeLinear. One finder for the reference interpreter's integer kernels
// (ref:qdq=int) and every library's int8 kernels, so that the emulator and the libraries see the
// same groups; each then checks what its kernels take and says why not in its own words.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/graph.h"

namespace ig {

// A DequantizeLinear the head reads.
struct QdqInput {
  size_t node = 0;
  // Its output is read by the head only and is no graph output: it joins the group, which reads
  // its integers. Otherwise it runs on its own and the group quantizes its output again (exact:
  // (q - zp) * s divided by s rounds back to q).
  bool owned = false;
};

struct QdqGroup {
  size_t head = 0;  // Conv, Gemm or MatMul
  QdqInput x, w;
  std::optional<QdqInput> b;  // bias from a DequantizeLinear
  // A Relu or Clip that alone reads the head's output, and a QuantizeLinear that alone reads
  // what comes before it.
  std::optional<size_t> act, q;
  std::vector<size_t> nodes;  // owned DequantizeLinears, head, act, q: in graph order
};

// Producers and readers of a graph's values, built once for many lookups.
class QdqGraphIndex {
 public:
  explicit QdqGraphIndex(const Graph& g);
  // One that answers each lookup by a scan of the graph, building nothing: for the few lookups of
  // one group (building the maps per node made int8 runs quadratic in the graph's size).
  static QdqGraphIndex scanning(const Graph& g);
  const Graph& graph() const { return graph_; }
  // The node that writes `value`, or nullopt (a graph input or initializer).
  std::optional<size_t> producer(const std::string& value) const;
  // The one node reading `value`, when exactly one does and it is no graph output.
  std::optional<size_t> only_reader(const std::string& value) const;

 private:
  QdqGraphIndex(const Graph& g, bool scan) : graph_(g), scan_(scan) {}
  const Graph& graph_;
  bool scan_ = false;
  std::map<std::string, size_t> producer_;
  std::map<std::string, std::vector<size_t>> readers_;
  std::set<std::string> outputs_;
};

// The group headed by node `head` of the graph `index` describes, or nullopt when the head is no
// Conv, Gemm or MatMul reading its data and weights through DequantizeLinear (an fp32 node).
std::optional<QdqGroup> find_qdq_group(const QdqGraphIndex& index, size_t head);
std::optional<QdqGroup> find_qdq_group(const Graph& graph, size_t head);
// False when node `head` cannot head a group (find_qdq_group is then nullopt), by a scan of the
// graph instead of an index: cheap enough to ask of every node.
bool may_head_qdq_group(const Graph& graph, size_t head);

// A tensor by value name, or nullptr when not known (yet): the model's initializers when
// planning, the run's values when running.
using TensorLookup = std::function<const Tensor*(const std::string&)>;

// The initializers of `model` (and its Constant nodes' values) as a lookup.
TensorLookup initializers_of(const Model& model);

}  // namespace ig
