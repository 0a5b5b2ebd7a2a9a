// A study as the analysis sees it: per (model, input) case, per platform, the repetitions' traces
// (value name -> tensor key). Built from a Store, or directly by tests from real tensors.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analysis/tensor_facts.h"
#include "results/trace_memory.h"
#include "store/store.h"
#include "tensor/tensor_lru.h"

namespace ig {

using TensorLoader = std::function<Expected<Tensor>(const TensorKey&)>;

struct RepRun {
  int64_t run_id = 0;
  int repetition = 0;
  Verdict verdict = Verdict::kOk;
  std::string reason;
  std::map<std::string, TensorKey> values;   // every captured value of this run
  std::map<std::string, std::string> notes;  // value -> what the platform did there, if it said
  // value -> the ONNX nodes it covers, comma-separated, where the platform computed several nodes
  // as one (a fused group) and traced only the last one's output.
  std::map<std::string, std::string> covers;
};

struct PlatformCase {
  std::vector<RepRun> reps;
  // Filled by finalize(): output signatures of the ok repetitions, most frequent first.
  std::vector<std::pair<std::string, int>> distribution;
  int majority = -1;  // index into reps of a run with the majority signature; -1 if none ran ok
  bool nondeterministic() const { return distribution.size() > 1; }
  const RepRun* run() const {
    return majority < 0 ? nullptr : &reps[static_cast<size_t>(majority)];
  }
};

struct CaseData {
  std::string model, model_name, input, input_label;
  std::string model_path;                    // where the model file was when it was recorded
  std::vector<StoredNode> nodes;             // topological order
  std::vector<std::string> outputs;          // graph output value names
  std::map<std::string, PlatformCase> runs;  // by platform label
  std::string label() const { return model_name + "/" + input_label; }
};

struct PlatformInfo {
  std::string label, spec, host;
};

struct StudyData {
  std::vector<PlatformInfo> platforms;  // compared platforms (the oracle excluded), study order
  std::vector<PlatformInfo> oracles;    // the oracle spec on each host
  std::vector<CaseData> cases;
  std::vector<StoredHost> hosts;
  // The self-check's re-runs (study/self_check.h), by the run they checked.
  std::map<int64_t, std::vector<StoredSelfCheck>> self_checks;
  TensorLoader load;
  // Facts about its tensors kept in the store; never null after load_study.
  std::shared_ptr<TensorFacts> facts = std::make_shared<TensorFacts>();
  std::vector<std::string> labels() const;
};

// Signature of a run's graph outputs: equal signatures mean bitwise-equal outputs.
std::string output_signature(const CaseData& c, const RepRun& r);
// Computes each platform's distribution and majority; call after filling runs.
void finalize(StudyData& study);

// Loads a study; `model` (name or hash prefix, "" for all) selects cases.
Expected<StudyData> load_study(const Store& store, const std::string& model = "");

// Caches tensors by key while one analysis runs, at most `budget_bytes` of them (the least
// recently used dropped; a miss reloads, so results do not depend on the budget).
class TensorCache {
 public:
  explicit TensorCache(TensorLoader load, std::shared_ptr<TensorFacts> facts = nullptr,
                       uint64_t budget_bytes = in_flight_share(kDefaultTraceBudgetBytes))
      : load_(std::move(load)),
        facts_(facts ? std::move(facts) : std::make_shared<TensorFacts>()),
        cache_(budget_bytes) {}
  explicit TensorCache(const StudyData& study,
                       uint64_t budget_bytes = in_flight_share(kDefaultTraceBudgetBytes))
      : TensorCache(study.load, study.facts, budget_bytes) {}
  Expected<Tensor> get(const TensorKey& key);
  void set_budget(uint64_t bytes) { cache_.set_budget(bytes); }
  uint64_t cached_bytes() const { return cache_.bytes(); }
  // How many get()s had to load (a test sees a small budget reload).
  int64_t loads() const { return loads_; }
  TensorFacts& facts() { return *facts_; }
  // error(y, o) of analysis/oracle/error.h from the kept facts, else from the tensors (and
  // learned); -1 when the two are not comparable.
  Expected<double> oracle_error(const TensorKey& y, const TensorKey& oracle);
  // Errors against the oracle already computed, by (platform tensor, oracle tensor): compare's
  // origins and its per-layer errors ask for the same pairs. Value: error (-1 not comparable),
  // and the platform tensor's dtype.
  std::map<std::pair<TensorKey, TensorKey>, std::pair<double, DType>>& oracle_errors() {
    return oracle_errors_;
  }
  // What an analysis left out because tensors were not kept (--keep-tensors none), once each.
  void note_not_kept(const std::string& what) { not_kept_.insert(what); }
  const std::set<std::string>& not_kept() const { return not_kept_; }

 private:
  TensorLoader load_;
  std::shared_ptr<TensorFacts> facts_;
  TensorLru<TensorKey> cache_;
  int64_t loads_ = 0;
  std::map<std::pair<TensorKey, TensorKey>, std::pair<double, DType>> oracle_errors_;
  std::set<std::string> not_kept_;
};

}  // namespace ig
