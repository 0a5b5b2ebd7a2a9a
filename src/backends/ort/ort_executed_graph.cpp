#include "backends/ort/ort_executed_graph.h"

#include "backends/ort/ort_graph_mapper.h"
#include "backends/ort/ort_s8_shift.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

namespace ig {

namespace {

// What an added ReorderOutput's value is called: ORT's names never end so.
constexpr const char* kNchwSuffix = ".infergap_nchw";
// What an added Cast of a widened value back to its declared type is called.
constexpr const char* kDeclaredSuffix = ".infergap_declared";

// Adds `op`(from) -> from + kNchwSuffix, the node that gives a value ORT keeps in another layout
// back in the original one; returns its attribute `attr_name`, for the caller to fill.
onnx::AttributeProto* add_layout_node(onnx::GraphProto& graph, const std::string& op,
                                      const std::string& domain, const std::string& from,
                                      const std::string& attr_name) {
  auto* node = graph.add_node();
  node->set_op_type(op);
  node->set_domain(domain);
  node->add_input(from);
  node->add_output(from + kNchwSuffix);
  auto* attr = node->add_attribute();
  attr->set_name(attr_name);
  return attr;
}

std::string node_id(const Graph& g, size_t i) {
  return g.nodes[i].name.empty() ? "#" + std::to_string(i) : g.nodes[i].name;
}

// What ORT ran for a value: the optimized node producing it and what that node read from nodes
// of its own making, back to values of the original model ("com.microsoft.FusedConv"). Layout
// changes of one value (ReorderOutput, the Transposes around NHWC kernels) are not named.
std::string executed_ops(const onnx::GraphProto& opt, const std::map<std::string, int>& producer,
                         const std::string& value, const std::map<std::string, Mapped>& mapped) {
  auto original_of = [&](const std::string& v) {
    auto it = mapped.find(v);
    return it == mapped.end() ? std::string() : it->second.original;
  };
  const std::string original = original_of(value);
  std::vector<std::string> ops;
  std::set<int> seen;
  std::vector<std::string> todo{value};
  while (!todo.empty()) {
    auto it = producer.find(todo.back());
    todo.pop_back();
    if (it == producer.end() || !seen.insert(it->second).second) continue;
    const auto& n = opt.node(it->second);
    const bool layout_only = n.input_size() > 0 && !original_of(n.input(0)).empty() &&
                             original_of(n.input(0)) == original_of(n.output(0));
    if (!layout_only)
      ops.insert(ops.begin(), (n.domain().empty() ? "" : n.domain() + ".") + n.op_type());
    for (const auto& in : n.input())
      if (!in.empty() && (!mapped.count(in) || original_of(in) == original)) todo.push_back(in);
  }
  std::string text;
  for (const auto& op : ops) text += (text.empty() ? "" : "+") + op;
  return text;
}

}  // namespace

Expected<ExecutedPlan> expose_executed_graph(const Model& original, onnx::ModelProto& optimized) {
  const std::map<std::string, Mapped> mapped = map_executed_values(original, optimized);
  const Graph& g = original.graph;
  const OriginalIndex ix(g);
  // Each original value once: under its own name where the executed graph has it, else from
  // a value in another layout (the first, in execution order).
  std::map<std::string, std::string> source;  // original value -> optimized value
  for (const auto& n : optimized.graph().node()) {
    for (const auto& o : n.output()) {
      auto m = mapped.find(o);
      if (m == mapped.end()) continue;
      auto it = source.emplace(m->second.original, o).first;
      if (o == m->second.original) it->second = o;
    }
  }
  std::map<std::string, int> producer;  // in the optimized graph, before nodes are added
  for (int i = 0; i < optimized.graph().node_size(); ++i)
    for (const auto& o : optimized.graph().node(i).output()) producer[o] = i;
  ExecutedPlan plan;
  std::map<std::string, std::string> fetch_of;  // original value -> exposed output
  std::map<std::string, std::string> ran;       // exposed output -> what ORT ran for it
  std::set<std::string> exposed;
  std::set<std::string> widened_fetch;  // exposed values ORT computed in float32
  for (const auto& o : optimized.graph().output()) exposed.insert(o.name());
  auto* graph = optimized.mutable_graph();
  plan.graph_outputs = graph->output_size();
  const S8ShiftCheck s8_shift(original, optimized.graph());
  for (const auto& [value, from] : source) {
    if (!ix.producer.count(value)) continue;  // a graph input
    const ValueInfo* vi = ix.info(value);
    if (!vi || !vi->is_tensor || vi->dtype == DType::kUndefined || !ort_node_carries(vi->dtype))
      continue;
    const Mapped& m = mapped.at(from);
    std::string fetch = from;
    if (!m.perm.empty()) {
      // ORT's NHWC kernels: a Transpose back to the original layout.
      std::vector<int64_t> inverse(m.perm.size());
      for (size_t k = 0; k < m.perm.size(); ++k)
        inverse[static_cast<size_t>(m.perm[k])] = static_cast<int64_t>(k);
      auto* perm = add_layout_node(*graph, "Transpose", "", from, "perm");
      perm->set_type(onnx::AttributeProto::INTS);
      for (int64_t a : inverse) perm->add_ints(a);
      fetch = from + kNchwSuffix;
      ++plan.permuted_values;
    } else if (m.blocked) {
      // NCHWc keeps channels in blocks padded to the vector width: ReorderOutput gives NCHW.
      if (!vi->has_shape || vi->dims.size() != 4 || vi->dims[1].value <= 0) continue;
      auto* channels = add_layout_node(*graph, "ReorderOutput", kOrtNchwcDomain, from, "channels");
      channels->set_type(onnx::AttributeProto::INT);
      channels->set_i(vi->dims[1].value);
      fetch = from + kNchwSuffix;
      ++plan.nchwc_values;
    }
    if (m.widened && (vi->dtype == DType::kFloat16 || vi->dtype == DType::kBFloat16)) {
      // ORT kept it in float32: rounded (to nearest even, as every platform rounds) to the type
      // the model declares, so that it compares with the others; the note says so.
      auto* node = graph->add_node();
      node->set_op_type("Cast");
      node->add_input(fetch);
      node->add_output(fetch + kDeclaredSuffix);
      auto* to = node->add_attribute();
      to->set_name("to");
      to->set_type(onnx::AttributeProto::INT);
      to->set_i(static_cast<int>(vi->dtype));
      fetch += kDeclaredSuffix;
      widened_fetch.insert(fetch);
    }
    if (exposed.insert(fetch).second) {
      auto* out = graph->add_output();
      out->set_name(fetch);
      // An 8-bit value is left for ORT to type: it may hold an s8 value as u8 (ort_s8_shift.h),
      // and a value not in the model's type is not shown (OrtBackend checks each against it).
      if (vi->dtype != DType::kInt8 && vi->dtype != DType::kUInt8)
        out->mutable_type()->mutable_tensor_type()->set_elem_type(static_cast<int>(vi->dtype));
    }
    if (vi->dtype == DType::kInt8 &&
        s8_shift.held_shifted(g.nodes[ix.producer.at(value)], producer, from))
      plan.shifted.insert(fetch);
    plan.fetch.push_back(fetch);
    fetch_of[value] = fetch;
    ran[fetch] = executed_ops(optimized.graph(), producer, from, mapped);
  }
  // Values computed from constants alone (an Identity on a weight), which ORT folds at load: no
  // group covers them.
  std::set<std::string> captured;
  for (const auto& [name, t] : g.initializers) captured.insert(name);
  for (const auto& n : g.nodes)
    if (std::all_of(n.inputs.begin(), n.inputs.end(),
                    [&](const std::string& in) { return in.empty() || captured.count(in); }))
      for (const auto& o : n.outputs) captured.insert(o);
  plan.fetch_of.resize(g.nodes.size());
  plan.reports.resize(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const auto& o : g.nodes[i].outputs) {
      auto it = fetch_of.find(o);
      const bool have = !o.empty() && it != fetch_of.end();
      plan.fetch_of[i].push_back(have ? it->second : "");
      if (have) captured.insert(o);
    }
  }
  // A reported node covers every original node upstream whose value the executed graph lacks.
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const auto& fetches = plan.fetch_of[i];
    if (std::all_of(fetches.begin(), fetches.end(), [](const auto& f) { return f.empty(); }))
      continue;
    std::set<size_t> members{i};
    std::vector<size_t> todo{i};
    while (!todo.empty()) {
      const size_t m = todo.back();
      todo.pop_back();
      for (const auto& in : g.nodes[m].inputs) {
        auto p = ix.producer.find(in);
        if (in.empty() || captured.count(in) || p == ix.producer.end()) continue;
        if (members.insert(p->second).second) todo.push_back(p->second);
      }
    }
    NodeReport& r = plan.reports[i];
    if (members.size() > 1)
      for (size_t m : members) r.covers += (r.covers.empty() ? "" : ",") + node_id(g, m);
    for (size_t k = 0; k < fetches.size(); ++k) {
      if (fetches[k].empty()) continue;
      const std::string& op = ran[fetches[k]];
      if (widened_fetch.count(fetches[k])) {
        r.note = "ort ran " + op + " in float32, never rounded to the model's " +
                 dtype_name(ix.info(g.nodes[i].outputs[k])->dtype) + " (shown rounded)";
      } else if (op != g.nodes[i].op_type || members.size() > 1) {
        r.note = "ort ran " + op;
      }
      if (plan.shifted.count(fetches[k]))
        r.note += std::string(r.note.empty() ? "" : "; ") +
                  "held as u8 with the zero point + 128 (ORT's QDQS8ToU8), shown as int8";
      break;
    }
  }
  return plan;
}

void keep_exposed(const ExecutedPlan& plan, const std::set<std::string>& keep,
                  onnx::ModelProto& exposed) {
  auto* graph = exposed.mutable_graph();
  auto* outputs = graph->mutable_output();
  int kept = plan.graph_outputs;
  for (int i = plan.graph_outputs; i < outputs->size(); ++i)
    if (keep.count(outputs->Get(i).name())) outputs->SwapElements(kept++, i);
  while (outputs->size() > kept) outputs->RemoveLast();
  std::set<std::string> wanted;
  for (const auto& o : graph->output()) wanted.insert(o.name());
  auto* nodes = graph->mutable_node();
  auto ends_with = [](const std::string& s, const char* suffix) {
    const size_t n = std::strlen(suffix);
    return s.size() > n && s.compare(s.size() - n, std::string::npos, suffix) == 0;
  };
  // Nodes this file added stay where what they make is wanted (a Cast of a widened value reads
  // the ReorderOutput added before it): from the last node back.
  std::vector<bool> keep_node(static_cast<size_t>(nodes->size()), true);
  for (int i = nodes->size() - 1; i >= 0; --i) {
    const auto& n = nodes->Get(i);
    const std::string& out = n.output_size() == 1 ? n.output(0) : std::string();
    if (!ends_with(out, kNchwSuffix) && !ends_with(out, kDeclaredSuffix)) continue;
    keep_node[static_cast<size_t>(i)] = wanted.count(out) != 0;
    if (keep_node[static_cast<size_t>(i)])
      for (const auto& in : n.input()) wanted.insert(in);
  }
  int n_kept = 0;
  for (int i = 0; i < nodes->size(); ++i)
    if (keep_node[static_cast<size_t>(i)]) nodes->SwapElements(n_kept++, i);
  while (nodes->size() > n_kept) nodes->RemoveLast();
}

}  // namespace ig
