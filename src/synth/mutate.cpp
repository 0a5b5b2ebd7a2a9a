#include "synth/mutate.h"

#include <fmt/format.h>
#include <onnx/shape_inference/implementation.h>
#include <xxhash.h>

#include <nlohmann/json.hpp>
#include <set>

#include "inputs/rng.h"
#include "model/onnx_model.h"
#include "model/quant_scales.h"
#include "model/shape_inference.h"
#include "synth/mutate_util.h"
#include "tensor/hash.h"

namespace ig {

namespace {

template <typename T>
const T& pick(Rng& rng, const std::vector<T>& v) {
  return v[rng.below(v.size())];
}

// Candidate mutations of each kind; the planner picks a kind, then one candidate.
std::vector<std::vector<Mutation>> candidates(const onnx::ModelProto& model, Rng& rng) {
  const auto& g = model.graph();
  const auto types = value_types(model);
  std::vector<Mutation> act, pool, insert, reinit, cast;
  for (const auto& n : g.node()) {
    if (is_activation(n.op_type())) {
      std::vector<std::string> others;
      for (const auto& op : activation_ops())
        if (op != n.op_type()) others.push_back(op);
      act.push_back({"activation", {{"node", n.name()}, {"to", pick(rng, others)}}});
    }
    if (is_swappable_pool(n))
      pool.push_back(
          {"pool",
           {{"node", n.name()}, {"to", n.op_type() == "MaxPool" ? "AveragePool" : "MaxPool"}}});
    for (const auto& o : n.output()) {
      auto it = types.find(o);
      if (it == types.end() || !is_float_type(it->second.elem_type) || is_graph_output(g, o))
        continue;
      std::vector<std::string> hows = {"add0", "mul1", "identity", "cast2"};
      if (it->second.rank >= 1) hows.push_back("reshape2");
      if (it->second.rank >= 2) hows.push_back("transpose2");
      const auto axes = splittable_axes(it->second);
      if (!axes.empty()) {
        hows.push_back("split2");
        hows.push_back("slice2");
      }
      Mutation m{"insert", {{"value", o}, {"how", pick(rng, hows)}}};
      if (m.params["how"] == "split2" || m.params["how"] == "slice2")
        m.params["axis"] = std::to_string(pick(rng, axes));
      insert.push_back(std::move(m));
    }
  }
  bool has_fp32 = false;
  // A quantized operator's scale is no weight: redrawn, it would turn negative.
  const auto scales = constant_scale_names(model);
  for (const auto& t : g.initializer()) {
    has_fp32 |= t.data_type() == onnx::TensorProto::FLOAT;
    if (!is_float_type(t.data_type()) || t.dims_size() == 0 || scales.count(t.name())) continue;
    const bool normal = rng.below(2) == 0;
    const double spread = 0.05 * static_cast<double>(1 + rng.below(20));  // 0.05 .. 1
    reinit.push_back({"reinit",
                      {{"init", t.name()},
                       {"dist", normal ? "normal" : "uniform"},
                       {"a", fmt::format("{}", normal ? 0.0 : -spread)},
                       {"b", fmt::format("{}", spread)},
                       {"seed", std::to_string(rng.next())}}});
  }
  if (has_fp32) cast.push_back({"cast", {{"to", rng.below(2) == 0 ? "float16" : "double"}}});
  auto rewrites = graph_rewrite_candidates(model, rng);
  return {act,
          pool,
          insert,
          reinit,
          cast,
          attribute_candidates(model, rng),
          inject_candidates(model, rng),
          precision_candidates(model, rng),
          pad_split_candidates(model, rng),
          decompose_candidates(model, rng),
          fuse_candidates(model, rng),
          edge_candidates(model, rng),
          window_candidates(model, rng),
          std::move(rewrites[0]),
          std::move(rewrites[1]),
          std::move(rewrites[2])};
}

}  // namespace

void stamp_lineage(onnx::ModelProto& model, const Lineage& lineage) {
  auto* props = model.mutable_metadata_props();
  for (int i = props->size() - 1; i >= 0; --i)
    if (props->Get(i).key() == kLineageKey) props->DeleteSubrange(i, 1);
  auto* p = model.add_metadata_props();
  p->set_key(kLineageKey);
  p->set_value(lineage_to_json(lineage));
}

std::string Mutation::to_string() const {
  std::string s = kind + "(";
  for (const auto& [k, v] : params) s += (s.back() == '(' ? "" : ",") + k + "=" + v;
  return s + ")";
}

std::string content_hash(const onnx::ModelProto& model) {
  std::string bytes;
  model.SerializeToString(&bytes);
  return hash_hex(XXH3_64bits(bytes.data(), bytes.size()));
}

Expected<Mutation> plan_mutation(const onnx::ModelProto& model, uint64_t seed) {
  Rng rng(seed);
  std::vector<std::vector<Mutation>> kinds;
  for (auto& c : candidates(model, rng))
    if (!c.empty()) kinds.push_back(std::move(c));
  if (kinds.empty()) return not_found("no mutation applies to this model");
  return pick(rng, pick(rng, kinds));
}

Status check_variant(const onnx::ModelProto& model) {
  IG_RETURN_IF_ERROR(check_constant_scales(model));  // what loading would refuse
  if (newer_than_libonnx(model)) {
    // A variant raised past libonnx's opsets (a fused Gelu): the onnx package's full check.
    onnx::ModelProto copy = model;
    OnnxChecks checks;
    checks.infer_shapes = false;
    checks.strict = true;
    return check_and_infer(copy, "the variant", checks);
  }
  IG_RETURN_IF_ERROR(check_model_proto(model));
  onnx::ModelProto copy = model;
  try {
    onnx::ShapeInferenceOptions strict{/*check_type=*/true, /*error_mode=*/1};
    onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(), strict);
  } catch (const std::exception& e) {
    return invalid_argument("ONNX shape inference: {}", e.what());
  }
  return Status::Ok();
}

Expected<onnx::ModelProto> make_variant(const onnx::ModelProto& parent, uint64_t seed) {
  Lineage lineage{content_hash(parent), seed, {}};
  onnx::ModelProto m = parent;
  Rng rng(seed);
  const uint64_t n = 1 + rng.below(3);
  for (uint64_t k = 0; k < n; ++k) {
    IG_ASSIGN_OR_RETURN(Mutation mut, plan_mutation(m, rng.next()));
    IG_RETURN_IF_ERROR(apply_mutation(m, mut));
    // Its own seed, so that variants without a follow-up stay what they were.
    Rng follow_rng(derive_seed(seed, "follow-up/" + std::to_string(k)));
    auto follow = pad_split_follow_up(m, mut, follow_rng);
    lineage.mutations.push_back(std::move(mut));
    if (follow) {
      IG_RETURN_IF_ERROR(apply_mutation(m, *follow));
      lineage.mutations.push_back(std::move(*follow));
    }
  }
  stamp_lineage(m, lineage);
  return m;
}

Expected<onnx::ModelProto> replay_lineage(const onnx::ModelProto& parent, const Lineage& lineage) {
  if (content_hash(parent) != lineage.parent_hash)
    return invalid_argument("lineage names parent {}, this model is {}", lineage.parent_hash,
                            content_hash(parent));
  onnx::ModelProto m = parent;
  for (const auto& mut : lineage.mutations) IG_RETURN_IF_ERROR(apply_mutation(m, mut));
  stamp_lineage(m, lineage);
  return m;
}

std::string lineage_to_json(const Lineage& lineage) {
  nlohmann::json muts = nlohmann::json::array();
  for (const auto& m : lineage.mutations) muts.push_back({{"kind", m.kind}, {"params", m.params}});
  return nlohmann::json{
      {"parent", lineage.parent_hash}, {"seed", lineage.seed}, {"mutations", muts}}
      .dump();
}

Expected<Lineage> lineage_from_model(const onnx::ModelProto& model) {
  for (const auto& p : model.metadata_props()) {
    if (p.key() != kLineageKey) continue;
    try {
      const auto j = nlohmann::json::parse(p.value());
      Lineage l{j.at("parent").get<std::string>(), j.at("seed").get<uint64_t>(), {}};
      for (const auto& m : j.at("mutations"))
        l.mutations.push_back({m.at("kind").get<std::string>(),
                               m.at("params").get<std::map<std::string, std::string>>()});
      return l;
    } catch (const std::exception& e) {
      return parse_error("{}: {}", kLineageKey, e.what());
    }
  }
  return not_found("the model has no {} metadata", kLineageKey);
}

MutateResult generate_variants(const onnx::ModelProto& parent, int64_t count, uint64_t seed) {
  MutateResult r;
  std::set<std::string> seen;
  for (int64_t j = 0; j < 4 * count + 16 && static_cast<int64_t>(r.variants.size()) < count; ++j) {
    auto v = make_variant(parent, derive_seed(seed, "variant/" + std::to_string(j)));
    if (!v.ok()) {
      ++r.discarded["mutation failed: " + v.status().message().substr(0, 160)];
      continue;
    }
    if (Status st = check_variant(*v); !st.ok()) {
      // One line per reason, so that counts group (checker messages can run over many lines).
      const std::string& msg = st.message();
      ++r.discarded[msg.substr(0, std::min<size_t>(msg.find('\n'), 160))];
      continue;
    }
    std::string h = content_hash(*v);
    if (!seen.insert(h).second) {
      ++r.discarded["duplicate"];
      continue;
    }
    r.hashes.push_back(std::move(h));
    r.variants.push_back(std::move(*v));
  }
  return r;
}

}  // namespace ig
