// Maps the values of the graph ONNX Runtime executes (the optimized model its session saved) onto
// the values of the original model: by name where ORT kept it, else by structure (its NCHWc and
// NHWC kernels, QLinear<X>, nodes it rebuilt and named after the original node). Used by
// ort_executed_graph.h.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/graph.h"

namespace onnx {
class ModelProto;
}

namespace ig {

// The domain of ORT's NCHWc (blocked-layout) kernels in an optimized graph.
inline constexpr const char* kOrtNchwcDomain = "com.microsoft.nchwc";

// A value of the optimized graph, read as a value of the original model.
struct Mapped {
  std::string original;
  bool blocked = false;       // NCHWc layout (channels in blocks of the CPU's vector width)
  std::vector<int64_t> perm;  // else, when not empty: Transpose(original, perm) (NHWC kernels)
  // Held in float32 where the model declares float16 or bfloat16: ORT runs the nodes it has no
  // half-precision kernel for in float32 between Casts it inserts, and drops the Casts between
  // two such nodes, so the value is never rounded to the declared type.
  bool widened = false;
};

// How ORT names the float32 copy of value V it computes between its inserted Casts.
inline constexpr const char* kOrtWidenedPrefix = "InsertedPrecisionFreeCast_";

// The original graph's producers, consumers and declared values.
struct OriginalIndex {
  explicit OriginalIndex(const Graph& graph) : g(graph) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (const auto& o : g.nodes[i].outputs)
        if (!o.empty()) producer[o] = i;
      for (const auto& in : g.nodes[i].inputs)
        if (!in.empty()) consumers[in].push_back(i);
    }
    for (const auto& o : g.outputs) graph_outputs.insert(o.name);
  }
  // The one node reading `value`, when nothing else (another node, the caller) does.
  std::optional<size_t> sole_consumer(const std::string& value) const {
    auto it = consumers.find(value);
    if (graph_outputs.count(value) || it == consumers.end() || it->second.size() != 1) return {};
    return it->second[0];
  }
  const ValueInfo* info(const std::string& value) const {
    if (auto it = g.value_info.find(value); it != g.value_info.end()) return &it->second;
    for (const auto* list : {&g.outputs, &g.inputs})
      for (const auto& v : *list)
        if (v.name == value) return &v;
    return nullptr;
  }
  const Graph& g;
  std::unordered_map<std::string, size_t> producer;
  std::unordered_map<std::string, std::vector<size_t>> consumers;
  std::set<std::string> graph_outputs;
};

// Optimized value -> the original value it holds, for every value that maps unambiguously.
std::map<std::string, Mapped> map_executed_values(const Model& original,
                                                  const onnx::ModelProto& optimized);

}  // namespace ig
