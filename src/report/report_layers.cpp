// The report's views along the model: per-layer classes and bits, and the size sweep.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "analysis/precision/quant_steps.h"
#include "model/onnx_model.h"
#include "report/report_data.h"

namespace ig {

std::string layer_kind(const std::string& op_type) {
  static const std::set<std::string> activations{
      "Relu",     "LeakyRelu", "PRelu",           "Elu",       "Selu",        "Celu",      "Gelu",
      "Sigmoid",  "Tanh",      "Softmax",         "Clip",      "HardSigmoid", "HardSwish", "Mish",
      "Softplus", "Softsign",  "ThresholdedRelu", "LogSoftmax"};
  static const std::set<std::string> pooling{"MaxPool",       "AveragePool", "GlobalAveragePool",
                                             "GlobalMaxPool", "LpPool",      "GlobalLpPool"};
  if (activations.count(op_type)) return "activation";
  if (pooling.count(op_type)) return "pooling";
  return "";
}

Expected<nlohmann::json> layers_data(const StudyData& study, TensorCache& cache) {
  struct Agg {
    int64_t index = 0;
    std::string node, op_type;
    size_t eqcs = 0;
    int rp = -1;
    double steps = -1;  // quantized values: the most steps between classes (quant_steps.h)
    bool split = false;
    std::map<std::string, std::set<std::string>> notes;  // platform -> its notes over the cases
  };
  std::map<std::string, std::map<int64_t, Agg>> by_model;
  std::map<std::string, int> cases_of_model;
  for (const auto& c : study.cases) {
    IG_ASSIGN_OR_RETURN(auto rows, layer_table(c, study.labels(), cache));
    if (rows.size() <= 1) continue;  // only graph outputs captured: nothing along the model
    ++cases_of_model[c.model_name];
    for (const auto& r : rows) {
      Agg& a = by_model[c.model_name][r.node_index];
      a.index = r.node_index, a.node = r.node, a.op_type = r.op_type;
      a.eqcs = std::max(a.eqcs, r.partition.classes.size());
      IG_ASSIGN_OR_RETURN(auto steps, partition_steps(c, r.partition, r.values, cache));
      if (steps) a.steps = std::max(a.steps, steps->steps.steps_max);
      if (r.remaining_precision >= 0)
        a.rp = a.rp < 0 ? r.remaining_precision : std::min(a.rp, r.remaining_precision);
      a.split = a.split || r.split;
      for (const auto& [platform, note] : r.notes) a.notes[platform].insert(note);
    }
  }
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [model, rows] : by_model) {
    nlohmann::json jr = nlohmann::json::array();
    for (const auto& [_, a] : rows) {
      nlohmann::json row{{"index", a.index}, {"node", a.node},   {"op_type", a.op_type},
                         {"eqcs", a.eqcs},   {"split", a.split}, {"kind", layer_kind(a.op_type)}};
      // Bits mean nothing on a grid of steps: a quantized value shows its steps instead.
      row["remaining_precision"] =
          a.rp < 0 || a.steps >= 0 ? nlohmann::json() : nlohmann::json(a.rp);
      row["steps_max"] = a.steps < 0 ? nlohmann::json() : steps_json(a.steps);
      nlohmann::json notes = nlohmann::json::object();
      for (const auto& [platform, set] : a.notes) {
        std::string joined;
        for (const auto& n : set) joined += (joined.empty() ? "" : "; ") + n;
        notes[platform] = joined;
      }
      row["notes"] = notes;
      jr.push_back(row);
    }
    out.push_back({{"model", model}, {"cases", cases_of_model[model]}, {"rows", jr}});
  }
  return out;
}

namespace {

int64_t elements(const std::vector<Dim>& dims) {
  int64_t n = 1;
  for (const auto& d : dims) {
    if (d.value < 0) return -1;
    n *= d.value;
  }
  return n;
}

std::vector<Dim> dims_of(const Shape& shape) {
  std::vector<Dim> dims;
  for (int64_t d : shape) dims.push_back({d, ""});
  return dims;
}

// Multiply-accumulates of the model's Conv, ConvTranspose, Gemm and MatMul nodes (where the
// multiplications are), from the captured shapes, initializers and inferred shapes; -1 when a
// shape is unknown.
int64_t multiply_accumulates(const Model& model, const std::map<std::string, TensorKey>& traced) {
  const Graph& g = model.graph;
  auto shape = [&](const std::string& v) -> std::vector<Dim> {
    if (auto it = traced.find(v); it != traced.end()) return dims_of(it->second.shape);
    if (auto it = g.initializers.find(v); it != g.initializers.end())
      return dims_of(it->second.shape());
    if (auto it = g.value_info.find(v); it != g.value_info.end() && it->second.has_shape)
      return it->second.dims;
    for (const auto* list : {&g.inputs, &g.outputs})
      for (const auto& vi : *list)
        if (vi.name == v && vi.has_shape) return vi.dims;
    return {{-1, ""}};
  };
  int64_t total = 0;
  for (const auto& n : g.nodes) {
    int64_t per_output = 0, outputs = 0;
    if ((n.op_type == "Conv" || n.op_type == "ConvTranspose") && n.inputs.size() >= 2) {
      const auto w = shape(n.inputs[1]);
      per_output = elements(std::vector<Dim>(w.begin() + 1, w.end()));
      outputs = elements(shape(n.op_type == "Conv" ? n.outputs[0] : n.inputs[0]));
    } else if ((n.op_type == "Gemm" || n.op_type == "MatMul") && n.inputs.size() >= 2) {
      const auto a = shape(n.inputs[0]);
      const bool trans_a = n.op_type == "Gemm" && n.attr_int("transA", 0);
      if (a.size() < 2) return -1;
      per_output = (trans_a ? a[a.size() - 2] : a.back()).value;
      outputs = elements(shape(n.outputs[0]));
    } else {
      continue;
    }
    if (per_output < 0 || outputs < 0) return -1;
    total += per_output * outputs;
  }
  return total;
}

}  // namespace

Expected<nlohmann::json> sweep_data(const Store& store, const StudyData& study,
                                    const std::vector<Partition>& parts, TensorCache& cache) {
  IG_ASSIGN_OR_RETURN(auto models, store.models());
  std::map<std::string, const StoredModel*> by_hash;
  for (const auto& m : models) by_hash[m.hash] = &m;
  struct Point {
    std::string name;
    int64_t macs = -1;
    int rp = -1;
    size_t eqcs = 0;
  };
  std::map<std::string, Point> points;  // by model hash
  nlohmann::json missing = nlohmann::json::array();
  for (size_t i = 0; i < study.cases.size(); ++i) {
    const auto& c = study.cases[i];
    Point& p = points[c.model];
    if (p.name.empty()) {
      p.name = c.model_name;
      const std::string path = by_hash.count(c.model) ? by_hash[c.model]->path : "";
      std::error_code ec;
      auto model = std::filesystem::is_regular_file(path, ec)
                       ? load_model(path)
                       : Expected<Model>(not_found("{}: model file not found", path));
      const RepRun* traced = nullptr;
      for (const auto& [_, pc] : c.runs)
        if (!traced) traced = pc.run();
      if (model.ok() && traced) p.macs = multiply_accumulates(*model, traced->values);
      if (p.macs < 0) missing.push_back(c.model_name);
    }
    IG_ASSIGN_OR_RETURN(int rp, set_precision(c, parts[i], c.outputs, cache));
    if (rp >= 0) p.rp = p.rp < 0 ? rp : std::min(p.rp, rp);
    p.eqcs = std::max(p.eqcs, parts[i].classes.size());
  }
  nlohmann::json j{{"points", nlohmann::json::array()}, {"uncounted", missing}};
  std::set<int64_t> sizes;
  for (const auto& [_, p] : points) {
    if (p.macs < 0) continue;
    sizes.insert(p.macs);
    j["points"].push_back(
        {{"model", p.name},
         {"multiplications", p.macs},
         {"eqcs", p.eqcs},
         {"remaining_precision", p.rp < 0 ? nlohmann::json() : nlohmann::json(p.rp)}});
  }
  // A sweep needs models of at least two sizes.
  j["present"] = sizes.size() >= 2;
  return j;
}

}  // namespace ig
