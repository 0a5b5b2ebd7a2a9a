#include "analysis/triage/findings.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "analysis/campaign/data.h"
#include "platform/spec.h"

namespace ig::triage {

using campaign::Case;
using campaign::Data;
using campaign::Differ;
using campaign::ran_ok;
using campaign::Run;

std::set<std::string> Finding::platforms() const {
  std::set<std::string> out;
  for (const auto& h : hits) out.insert(h.platform);
  return out;
}

std::set<std::string> Finding::variants() const {
  std::set<std::string> out;
  for (const auto& h : hits) out.insert(h.model);
  return out;
}

std::set<std::string> Finding::architectures() const {
  std::set<std::string> out;
  for (const auto& h : hits) out.insert(h.architecture);
  return out;
}

const Hit& Finding::representative() const {
  return *std::min_element(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
    return std::tie(a.nodes, a.model, a.platform) < std::tie(b.nodes, b.model, b.platform);
  });
}

namespace {

std::string dims_text(const nlohmann::json& ints) {
  std::string s;
  if (!ints.is_array()) return s;
  for (const auto& v : ints) s += (s.empty() ? "" : "x") + v.dump();
  return s;
}

}  // namespace

std::string op_signature(const std::string& op_type, const nlohmann::json& attributes) {
  std::vector<std::string> salient;
  const auto int_of = [&](const char* key, int64_t fallback) {
    return attributes.contains(key) && attributes[key].is_number_integer()
               ? attributes[key].get<int64_t>()
               : fallback;
  };
  if (op_type == "Conv" || op_type == "ConvTranspose" || op_type == "QLinearConv") {
    if (int_of("group", 1) > 1) salient.push_back("grouped");
    if (attributes.contains("kernel_shape"))
      salient.push_back("k=" + dims_text(attributes["kernel_shape"]));
  } else if (op_type.find("Pool") != std::string::npos && attributes.contains("kernel_shape")) {
    salient.push_back("k=" + dims_text(attributes["kernel_shape"]));
  } else if (op_type == "Gemm") {
    if (int_of("transA", 0)) salient.push_back("transA");
    if (int_of("transB", 0)) salient.push_back("transB");
  } else if (op_type == "Resize" && attributes.contains("mode")) {
    salient.push_back("mode=" + attributes["mode"].get<std::string>());
  } else if (op_type == "Cast" && attributes.contains("to")) {
    salient.push_back("to=" + attributes["to"].dump());
  }
  std::string s = op_type;
  for (size_t i = 0; i < salient.size(); ++i) s += (i ? "," : "[") + salient[i];
  return salient.empty() ? s : s + "]";
}

namespace {

// A failure reason without its paths and numbers, so that the same failure on different variants
// and shapes shares a signature.
std::string reason_shape(const std::string& reason) {
  std::string out, word;
  auto flush = [&] {
    if (word.find('/') == std::string::npos) out += word;  // a path names the variant
    word.clear();
  };
  for (char c : reason) {
    if (out.size() >= 80) break;
    if (c == ' ' || c == '\n') {
      flush();
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      if (word.empty() || word.back() != '#') word += '#';
    } else {
      word += c;
    }
  }
  flush();
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out.substr(0, 80);
}

int64_t computing_nodes(const Case& c) {
  int64_t n = 0;
  for (const auto& node : c.nodes) n += node.op_type != "Cast" && node.op_type != "Identity";
  return n;
}

std::string family_of(const std::string& platform) {
  auto spec = parse_platform_spec(platform);
  return spec.ok() ? spec->backend : platform;
}

// The origin's op with its salient attributes (a fused group keeps its "A+B" name, less the
// Constant nodes that feed it, which compute nothing).
std::string origin_signature(const campaign::Origin& o) {
  if (!o.node) return o.op;
  std::string group = o.op.substr(0, o.op.size() - o.node->op_type.size());
  for (size_t at; (at = group.find("Constant+")) != std::string::npos;)
    group.erase(at, std::string("Constant+").size());
  return group + op_signature(o.node->op_type, o.node->attributes);
}

class Collector {
 public:
  Collector(const Store& store, const Data& d, const TriageOptions& o,
            const std::map<std::string, StoredModel>& models)
      : d_(d),
        opt_(o),
        models_(models),
        tol_(store, o.analysis, false),
        exact_(store, o.analysis, true) {}

  Status add_case(const Case& c) {
    const Run* oracle = ran_ok(c, d_.oracle);
    IG_ASSIGN_OR_RETURN(const std::string witness, witness_of(c, oracle));
    for (const auto& p : d_.platforms) {
      auto it = c.runs.find(p);
      if (it == c.runs.end() || p == d_.oracle) continue;
      IG_RETURN_IF_ERROR(add_run(c, p, it->second, oracle, witness));
    }
    for (const auto& pair : campaign::compiled_eager_pairs(d_.platforms, opt_.analysis.knobs)) {
      const Run* a = ran_ok(c, pair.compiled);
      const Run* b = ran_ok(c, pair.eager);
      if (!a || !b) continue;
      IG_ASSIGN_OR_RETURN(bool diff, exact_.outputs_differ(*a, *b));
      if (!diff) continue;
      const campaign::Origin o = exact_.origin_at(c, *a, *b);
      Hit h = hit(c, pair.compiled, *a, pair.eager, o);
      h.detail = "outputs differ bit for bit from " + pair.eager;
      add(pair.backend, kCompiled, origin_signature(o), std::move(h));
    }
    return Status::Ok();
  }

  std::vector<Finding> take() {
    std::vector<Finding> out;
    for (auto& [_, f] : by_signature_) out.push_back(std::move(f));
    return out;
  }

 private:
  // A platform whose outputs agree with the oracle on this case: reduce's second platform
  // (reduce compares two runs of one dtype, so the fp64 oracle cannot be it). ref first.
  Expected<std::string> witness_of(const Case& c, const Run* oracle) {
    if (!oracle) return std::string();
    std::string found;
    for (const auto& p : d_.platforms) {
      const Run* r = ran_ok(c, p);
      if (!r || p == d_.oracle) continue;
      IG_ASSIGN_OR_RETURN(ExceptionalCounts counts, tol_.against_oracle(*r, *oracle));
      const Exceptional w = counts.worst();
      if (w != Exceptional::kAsOracle && w != Exceptional::kPropagate &&
          w != Exceptional::kOverflowAsOracle)
        continue;
      if (family_of(p) == "ref") return p;
      if (found.empty()) found = p;
    }
    return found;
  }

  Status add_run(const Case& c, const std::string& p, const Run& r, const Run* oracle,
                 const std::string& witness) {
    const std::string family = family_of(p);
    if (r.verdict == Verdict::kUnsupported || r.verdict == Verdict::kLoadError) {
      // Which operator it declined; else (a model the importer rejects) the reason's shape.
      std::string op = "(model) / " + reason_shape(r.reason);
      if (!r.rejections.empty() && !r.rejections.front().op_type.empty())
        op = r.rejections.front().op_type;
      Hit h = hit(c, p, r, d_.oracle, {});
      h.detail = r.reason;
      add(family, kRefusal, op, std::move(h));
      return Status::Ok();
    }
    if (r.verdict != Verdict::kOk) {
      const bool crash = r.verdict == Verdict::kCrash || r.verdict == Verdict::kTimeout;
      const campaign::Origin only = campaign::origin_of(c, [](auto&) { return false; });
      Hit h = hit(c, p, r, d_.oracle, only);
      h.detail = std::string(verdict_name(r.verdict)) + ": " + r.reason;
      add(family, crash ? kCrash : kError, origin_signature(only) + " / " + reason_shape(r.reason),
          std::move(h));
      return Status::Ok();
    }
    if (!oracle) return Status::Ok();
    IG_ASSIGN_OR_RETURN(ExceptionalCounts counts, tol_.against_oracle(r, *oracle));
    const Exceptional worst = counts.worst();
    if (worst == Exceptional::kAsOracle || worst == Exceptional::kPropagate ||
        worst == Exceptional::kOverflowAsOracle)
      return add_lost_precision(c, p, r, *oracle, witness);
    const campaign::Origin o = tol_.origin_at(c, r, *oracle);
    Hit h = hit(c, p, r, d_.oracle, o);
    h.witness = witness;
    h.detail = fmt::format("{} of the outputs' elements {} the oracle's", counts[worst],
                           worst == Exceptional::kDiffers
                               ? "lie beyond tolerance of"
                               : std::string("show '") + exceptional_name(worst) + "' against");
    const std::string kind = worst == Exceptional::kDiffers
                                 ? std::string(kWrong)
                                 : std::string(kExceptional) + ":" + exceptional_name(worst);
    add(family, kind, origin_signature(o), std::move(h));
    return Status::Ok();
  }

  // Within tolerance everywhere, yet an elementwise operator fed exact inputs returned results
  // with too few significant bits (the absolute tolerance hid it).
  Status add_lost_precision(const Case& c, const std::string& p, const Run& r, const Run& oracle,
                            const std::string& witness) {
    const StoredNode* node = campaign::exact_input_elementwise(c);
    if (!node) return Status::Ok();
    IG_ASSIGN_OR_RETURN(const RelativeLoss loss, tol_.relative_loss_against(r, oracle));
    if (loss.lost == 0) return Status::Ok();
    const campaign::Origin o{node->op_type, node};
    Hit h = hit(c, p, r, d_.oracle, o);
    // The witness kept relative precision too (the absolute one may share the loss).
    if (!witness.empty()) {
      IG_ASSIGN_OR_RETURN(const RelativeLoss its,
                          tol_.relative_loss_against(c.runs.at(witness), oracle));
      if (its.lost == 0) h.witness = witness;
    }
    h.detail = loss.describe();
    add(family_of(p), kLostPrecision, origin_signature(o), std::move(h));
    return Status::Ok();
  }

  Hit hit(const Case& c, const std::string& p, const Run& r, const std::string& against,
          const campaign::Origin& o) const {
    Hit h;
    h.model = c.model;
    h.input = c.input;
    h.platform = p;
    h.against = against;
    h.run = r.id;
    h.nodes = computing_nodes(c);
    h.node = o.node ? o.node->name : "";
    if (auto m = models_.find(c.model); m != models_.end()) h.model_path = m->second.path;
    h.architecture = root_of(c.model);
    return h;
  }

  // The architecture a variant descends from: its lineage's parents followed up through the
  // campaign's models (a mutated copy of an extracted node names the extracted variant), named
  // where the root itself was run.
  std::string root_of(const std::string& model) const {
    std::string at = model;
    for (int depth = 0; depth < 16; ++depth) {
      auto m = models_.find(at);
      if (m == models_.end()) break;
      const auto& lin = m->second.lineage;
      const auto& variant = lin.is_object() && lin.contains("variant") ? lin["variant"] : lin;
      if (!variant.is_object() || !variant.contains("parent") || !variant["parent"].is_string())
        break;
      at = variant["parent"].get<std::string>();
    }
    auto root = models_.find(at);
    return root != models_.end() ? root->second.name : at;
  }

  void add(const std::string& family, const std::string& kind, const std::string& op, Hit h) {
    const std::string sig = family + " | " + kind + " | " + op;
    Finding& f = by_signature_[sig];
    if (f.signature.empty()) f = Finding{sig, family, kind, op, {}};
    f.hits.push_back(std::move(h));
  }

  const Data& d_;
  const TriageOptions& opt_;
  const std::map<std::string, StoredModel>& models_;
  Differ tol_, exact_;
  std::map<std::string, Finding> by_signature_;
};

}  // namespace

Expected<std::vector<Finding>> find_findings(const Store& store, const TriageOptions& options) {
  IG_ASSIGN_OR_RETURN(const Data d, campaign::load(store, options.analysis.oracle));
  IG_ASSIGN_OR_RETURN(const auto stored, store.models());
  std::map<std::string, StoredModel> models;
  for (const auto& m : stored) models[m.hash] = m;
  Collector collect(store, d, options, models);
  for (const auto& c : d.cases) IG_RETURN_IF_ERROR(collect.add_case(c));
  return collect.take();
}

}  // namespace ig::triage
