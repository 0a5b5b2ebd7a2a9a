#include "analysis/study_data.h"

#include "analysis/oracle/error.h"

#include <algorithm>
#include <set>

#include "tensor/hash.h"

namespace ig {

std::vector<std::string> StudyData::labels() const {
  std::vector<std::string> out;
  for (const auto& p : platforms) out.push_back(p.label);
  return out;
}

std::string output_signature(const CaseData& c, const RepRun& r) {
  std::string sig;
  for (const auto& o : c.outputs) {
    auto it = r.values.find(o);
    if (it == r.values.end()) {
      sig += "-;";
      continue;
    }
    sig += hash_hex(it->second.hash) + dtype_name(it->second.dtype) +
           shape_to_string(it->second.shape) + ";";
  }
  return sig;
}

void finalize(StudyData& study) {
  for (auto& c : study.cases) {
    for (auto& [_, pc] : c.runs) {
      std::map<std::string, int> counts;
      std::map<std::string, int> first;
      for (size_t i = 0; i < pc.reps.size(); ++i) {
        if (pc.reps[i].verdict != Verdict::kOk) continue;
        const std::string sig = output_signature(c, pc.reps[i]);
        if (!counts[sig]++) first[sig] = static_cast<int>(i);
      }
      pc.distribution.assign(counts.begin(), counts.end());
      // Most frequent first; ties go to the signature seen first (lowest repetition).
      std::stable_sort(
          pc.distribution.begin(), pc.distribution.end(), [&](const auto& a, const auto& b) {
            return a.second != b.second ? a.second > b.second : first[a.first] < first[b.first];
          });
      pc.majority = pc.distribution.empty() ? -1 : first[pc.distribution.front().first];
    }
  }
}

Expected<Tensor> TensorCache::get(const TensorKey& key) {
  if (const Tensor* t = cache_.find(key)) return *t;
  ++loads_;
  IG_ASSIGN_OR_RETURN(Tensor t, load_(key));
  cache_.put(key, t);
  return t;
}

Expected<double> TensorCache::oracle_error(const TensorKey& y, const TensorKey& oracle) {
  const std::string ky = TensorFacts::key(y), ko = TensorFacts::key(oracle);
  if (auto known = facts_->find(TensorFacts::kOracleError, ky, ko)) return *known;
  IG_ASSIGN_OR_RETURN(Tensor t, get(y));
  IG_ASSIGN_OR_RETURN(Tensor o, get(oracle));
  const OracleTensorError e = oracle_tensor_error(t, o);
  const double error = e.comparable ? e.error : -1.0;
  facts_->learn(TensorFacts::kOracleError, ky, ko, error);
  return error;
}

Expected<StudyData> load_study(const Store& store, const std::string& model) {
  StudyData study;
  IG_ASSIGN_OR_RETURN(study.hosts, store.hosts());
  IG_ASSIGN_OR_RETURN(auto platforms, store.platforms());
  IG_ASSIGN_OR_RETURN(auto models, store.models());
  IG_ASSIGN_OR_RETURN(auto inputs, store.inputs());
  IG_ASSIGN_OR_RETURN(auto runs, store.runs());
  IG_ASSIGN_OR_RETURN(study.self_checks, store.self_checks());
  std::map<std::string, std::set<std::string>> hosts_of_spec;
  for (const auto& p : platforms) hosts_of_spec[p.spec].insert(p.host);
  // A spec alone names a platform recorded on one host (an imported device's platform beside a
  // one-host study); a spec that merged studies recorded on several hosts adds the host.
  auto label_of = [&](const std::string& spec, const std::string& host) {
    return hosts_of_spec[spec].size() > 1 ? spec + "@" + host.substr(0, 8) : spec;
  };
  for (const auto& p : platforms) {
    PlatformInfo info{label_of(p.spec, p.host), p.spec, p.host};
    (p.oracle ? study.oracles : study.platforms).push_back(info);
  }
  std::map<std::string, const StoredModel*> model_by_hash;
  for (const auto& m : models) model_by_hash[m.hash] = &m;
  std::map<std::string, std::string> input_label;
  for (const auto& in : inputs) input_label[in.hash] = in.label;
  std::map<std::pair<std::string, std::string>, size_t> case_index;
  for (const auto& r : runs) {
    const StoredModel* m = model_by_hash.count(r.key.model) ? model_by_hash[r.key.model] : nullptr;
    if (!m)
      return internal_error("{}: run {} names unknown model {}", store.path(), r.id, r.key.model);
    if (!model.empty() && m->name != model && m->hash.rfind(model, 0) != 0) continue;
    const auto ck = std::make_pair(r.key.model, r.key.input);
    if (!case_index.count(ck)) {
      case_index[ck] = study.cases.size();
      CaseData c;
      c.model = m->hash;
      c.model_name = m->name;
      c.model_path = m->path;
      c.input = r.key.input;
      c.input_label = input_label.count(r.key.input) ? input_label[r.key.input] : r.key.input;
      IG_ASSIGN_OR_RETURN(c.nodes, store.nodes(m->hash));
      study.cases.push_back(std::move(c));
    }
    CaseData& c = study.cases[case_index[ck]];
    RepRun rr{r.id, r.key.repetition, r.verdict, r.reason, {}, {}, {}};
    IG_ASSIGN_OR_RETURN(auto outs, store.outputs(r.id));
    for (const auto& o : outs) {
      rr.values[o.value] = o.tensor;
      if (!o.note.empty()) rr.notes[o.value] = o.note;
      if (!o.covers.empty()) rr.covers[o.value] = o.covers;
      if (o.is_output && std::find(c.outputs.begin(), c.outputs.end(), o.value) == c.outputs.end())
        c.outputs.push_back(o.value);
    }
    c.runs[label_of(r.key.platform, r.key.host)].reps.push_back(std::move(rr));
  }
  if (!model.empty() && study.cases.empty())
    return not_found("{}: no runs of a model named '{}'", store.path(), model);
  study.load = [&store](const TensorKey& k) { return store.tensor(k); };
  IG_RETURN_IF_ERROR(study.facts->load(store));
  finalize(study);
  return study;
}

}  // namespace ig
