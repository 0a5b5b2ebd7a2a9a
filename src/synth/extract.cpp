#include "synth/extract.h"

#include <onnx/shape_inference/implementation.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "backends/ref/ref_opsets.h"
#include "inputs/inputs.h"
#include "inputs/variant_inputs.h"
#include "model/onnx_model.h"
#include "model/subgraph.h"
#include "model/tensor_proto.h"
#include "platform/registry.h"
#include "synth/mutate.h"
#include "synth/mutate_util.h"
#include "tensor/hash.h"

namespace ig {

namespace fs = std::filesystem;

namespace {

// Every typed value of the model after (non-strict) shape inference.
std::map<std::string, onnx::ValueInfoProto> value_infos(const onnx::ModelProto& model) {
  onnx::ModelProto copy = model;
  try {
    onnx::shape_inference::InferShapes(copy);
  } catch (const std::exception&) {
    // Whatever was inferred before the failure still types most values.
  }
  std::map<std::string, onnx::ValueInfoProto> out;
  const auto& g = copy.graph();
  for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
    for (const auto& vi : *list)
      if (vi.type().has_tensor_type() && vi.type().tensor_type().elem_type() != 0)
        out[vi.name()] = vi;
  return out;
}

}  // namespace

Status extract_node(onnx::ModelProto& model, const Mutation& m) {
  auto it = m.params.find("node");
  if (it == m.params.end()) return invalid_argument("extract: missing parameter 'node'");
  const auto& g = model.graph();
  const onnx::NodeProto* node = nullptr;
  for (const auto& n : g.node())
    if (n.name() == it->second) node = &n;
  if (!node) return not_found("extract: no node named '{}'", it->second);
  for (const auto& a : node->attribute())
    if (a.has_g() || a.graphs_size() > 0)
      return invalid_argument("extract: {} '{}' holds a subgraph", node->op_type(), node->name());
  const auto infos = value_infos(model);
  std::set<std::string> inits;
  for (const auto& t : g.initializer()) inits.insert(t.name());
  std::vector<onnx::ValueInfoProto> inputs, outputs;
  std::set<std::string> added;
  for (const auto& in : node->input()) {
    if (in.empty() || inits.count(in) || !added.insert(in).second) continue;
    auto vi = infos.find(in);
    if (vi == infos.end()) return invalid_argument("extract: input '{}' has no known type", in);
    inputs.push_back(vi->second);
  }
  std::set<std::string> produced;
  for (const auto& o : node->output()) {
    if (o.empty()) continue;
    auto vi = infos.find(o);
    if (vi == infos.end()) return invalid_argument("extract: output '{}' has no known type", o);
    outputs.push_back(vi->second);
    produced.insert(o);
  }
  auto sub = subgraph_model(model, produced, inputs, outputs, "extract_" + node->name());
  if (!sub.ok()) return invalid_argument("extract: {}", sub.status().message());
  *model.mutable_graph() = std::move(*sub->mutable_graph());
  std::map<std::string, std::string> specs;
  if (auto in = m.params.find("inputs"); in != m.params.end()) {
    auto j = nlohmann::json::parse(in->second, nullptr, false);
    if (!j.is_object()) return invalid_argument("extract: 'inputs' is not a JSON object");
    specs = j.get<std::map<std::string, std::string>>();
  }
  set_variant_inputs(model, specs);
  return Status::Ok();
}

Expected<ExtractResult> extract_variants(const std::string& parent_path, const InputRequest& inputs,
                                         const std::string& out_dir) {
  IG_ASSIGN_OR_RETURN(onnx::ModelProto parent, read_model_proto(parent_path));
  IG_ASSIGN_OR_RETURN(Model model, load_model(parent_path));
  IG_RETURN_IF_ERROR(check_ref_opsets(model));
  IG_ASSIGN_OR_RETURN(GatheredInputs gathered, gather_inputs(model, inputs));
  IG_RETURN_IF_ERROR(sizing_fits_nothing(inputs, {&gathered}, parent_path));
  const std::vector<NamedInput>& feeds = gathered.inputs;
  // The parent runs here on the reference backend: every value the extracted nodes read.
  IG_ASSIGN_OR_RETURN(PlatformSpec ref_spec, parse_platform_spec("ref"));
  IG_ASSIGN_OR_RETURN(auto ref, make_backend(ref_spec));
  std::map<std::string, Tensor> captured;
  for (const auto& f : feeds) captured[f.name] = f.tensor;
  auto run = ref->run(model, captured, [&](const Node& node, const std::vector<Value>& outs) {
    for (size_t i = 0; i < outs.size() && i < node.outputs.size(); ++i)
      if (!node.outputs[i].empty() && outs[i].is_tensor())
        captured[node.outputs[i]] = outs[i].tensor;
  });
  if (!run.ok()) {
    // Open dims left at 1 are the likely cause: say which.
    std::string open;
    for (const auto& f : feeds)
      for (const auto& d : f.defaulted) open += "; " + d.describe();
    return invalid_argument("{}: the parent does not run on ref ({}){}", parent_path,
                            run.status().message(), open);
  }
  fs::create_directories(fs::path(out_dir) / "inputs");
  const std::string parent_hash = content_hash(parent);
  ExtractResult r;
  for (const auto& f : feeds)
    r.defaulted.insert(r.defaulted.end(), f.defaulted.begin(), f.defaulted.end());
  std::set<std::string> seen;
  for (const auto& n : parent.graph().node()) {
    Mutation m{"extract", {{"node", n.name()}}};
    onnx::ModelProto v = parent;
    // The graph first, to learn which inputs the node takes at run time.
    if (Status st = apply_mutation(v, m); !st.ok()) {
      ++r.discarded["extract: " + st.message().substr(0, 120)];
      continue;
    }
    std::map<std::string, std::string> specs;
    bool missing = false;
    for (const auto& in : v.graph().input()) {
      auto t = captured.find(in.name());
      if (t == captured.end() || !t->second.defined()) {
        missing = true;
        break;
      }
      // Named by content, dtype and shape: Flatten's input and output share their bytes.
      const std::string file = "inputs/" + hash_hex(tensor_hash(t->second)) + "_" +
                               dtype_name(t->second.dtype()) + "_" +
                               shape_string(t->second.shape()) + ".pb";
      const auto path = fs::path(out_dir) / file;
      if (!fs::exists(path)) IG_RETURN_IF_ERROR(write_tensor_pb(t->second, in.name(), path));
      specs[in.name()] = "file:" + file;
    }
    if (missing) {
      ++r.discarded["extract: an input was not captured"];
      continue;
    }
    m.params["inputs"] = nlohmann::json(specs).dump();
    v = parent;
    IG_RETURN_IF_ERROR(apply_mutation(v, m));
    stamp_lineage(v, Lineage{parent_hash, inputs.seed, {m}});
    if (Status st = check_variant(v); !st.ok()) {
      const std::string& msg = st.message();
      ++r.discarded[msg.substr(0, std::min<size_t>(msg.find('\n'), 160))];
      continue;
    }
    std::string h = content_hash(v);
    if (!seen.insert(h).second) {
      ++r.discarded["duplicate"];
      continue;
    }
    r.hashes.push_back(std::move(h));
    r.variants.push_back(std::move(v));
  }
  return r;
}

}  // namespace ig
