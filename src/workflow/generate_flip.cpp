// generate's flip search (issue 55): of the differences two platforms give birth to in the step
// where their tokens part, the one that flips the token. The first difference born is seldom it:
// most are a rounding apart and wash out. Platform a is rerun on a copy of the model cut at the
// chosen nodes, their outputs fed from b's traced values; bisection over how many of the born
// differences (in graph order) are fed keeps "a's token with the first lo" and "another token
// with the first hi" true until hi = lo + 1, so the answer holds whether or not the token
// changes monotonically. A rerun with a's own values at the same cut checks that the cut itself
// changes nothing a picks.
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>

#include "model/onnx_model.h"
#include "model/subgraph.h"
#include "tensor/convert.h"
#include "workflow/generate_steps.h"

namespace ig {

namespace fs = std::filesystem;

namespace {

struct Cut {
  std::vector<std::string> values;  // the fed outputs
  std::set<std::string> nodes;      // the nodes they replace
};

struct FedNode {
  std::string node, op_type;
  std::vector<std::string> outputs;
};

// The cut at seq[from, to) (graph order).
Cut cut_of(const std::vector<FedNode>& seq, size_t from, size_t to) {
  Cut cut;
  for (size_t i = from; i < to; ++i) {
    cut.nodes.insert(seq[i].node);
    for (const auto& v : seq[i].outputs) cut.values.push_back(v);
  }
  return cut;
}

size_t output_count(const CaseData& c, const std::string& node) {
  for (const auto& n : c.nodes)
    if (n.name == node) return n.outputs.size();
  return 0;
}

class FlipRunner {
 public:
  FlipRunner(WorkerPool& pool, const GenerateRequest& request, const FlipCase& fc,
             TensorCache& cache, onnx::ModelProto parent)
      : pool_(pool), request_(request), fc_(fc), cache_(cache), parent_(std::move(parent)) {}
  ~FlipRunner() {
    for (const auto& [nodes, path] : written_) {
      std::error_code ec;
      fs::remove(path, ec);
    }
  }
  FlipRunner(const FlipRunner&) = delete;
  FlipRunner& operator=(const FlipRunner&) = delete;

  int runs() const { return runs_; }

  // The token platform a picks with the cut's values fed from `label`'s run.
  Expected<int64_t> token_with(const Cut& cut, const std::string& label) {
    const RepRun* run = fc_.c->runs.at(label).run();
    const RepRun* own = fc_.c->runs.at(fc_.label_a).run();
    StepFeeds feeds = *fc_.feeds;
    for (const auto& v : cut.values) {
      auto key = run->values.find(v);
      if (key == run->values.end()) return not_found("'{}' was not captured on {}", v, label);
      IG_ASSIGN_OR_RETURN(Tensor t, cache_.get(key->second));
      // A platform computing in another float type (ref:dtype=bf16) traces its values in it; a
      // reads them in its own type (bf16 into float32 is exact).
      const DType want = own->values.at(v).dtype;
      if (t.dtype() != want) {
        if (!is_float(t.dtype()) || !is_float(want))
          return invalid_argument("'{}' is {} on {} and {} on {}", v, dtype_name(t.dtype()), label,
                                  dtype_name(want), fc_.label_a);
        t = convert_float_tensor(t, want);
      }
      feeds[v] = std::move(t);
    }
    IG_ASSIGN_OR_RETURN(const std::string path, write_cut(cut, feeds));
    RunRequest r;
    r.platform = fc_.spec_a;
    r.model_path = path;
    r.inputs = std::move(feeds);
    r.capture.all_layers = false;
    r.timeout_seconds = request_.timeout_seconds;
    r.max_memory_bytes = request_.max_memory_bytes;
    ++runs_;
    const RunResult rr = pool_.run(r);
    if (rr.verdict != Verdict::kOk)
      return internal_error("{} on the cut model: {}: {}", fc_.spec_a, verdict_name(rr.verdict),
                            rr.reason);
    for (const auto& o : rr.outputs)
      if (o.value == fc_.logits) return pick_token(o.tensor).token;
    return internal_error("{} on the cut model gave no '{}'", fc_.spec_a, fc_.logits);
  }

 private:
  // The model without the cut's nodes, their outputs graph inputs, written once per cut (the
  // check with a's own values reruns the last cut bisection tried).
  Expected<std::string> write_cut(const Cut& cut, const StepFeeds& feeds) {
    if (auto it = written_.find(cut.nodes); it != written_.end()) return it->second;
    std::set<std::string> produced;
    for (const auto& n : parent_.graph().node())
      if (!cut.nodes.count(n.name()))
        for (const auto& o : n.output()) produced.insert(o);
    std::vector<onnx::ValueInfoProto> inputs;
    for (const auto& [name, t] : feeds)
      inputs.push_back(tensor_value_info(name, t.dtype(), t.shape()));
    const RepRun* run = fc_.c->runs.at(fc_.label_a).run();
    const TensorKey& logits = run->values.at(fc_.logits);
    IG_ASSIGN_OR_RETURN(auto sub,
                        subgraph_model(parent_, produced, inputs,
                                       {tensor_value_info(fc_.logits, logits.dtype, logits.shape)},
                                       "flip", /*keep_subgraphs=*/true));
    IG_ASSIGN_OR_RETURN(
        std::string path,
        save_model_beside(sub, request_.model,
                          fmt::format(".infergap-flip-{}-{}.onnx", ::getpid(), written_.size())));
    written_.emplace(cut.nodes, path);
    return path;
  }

  WorkerPool& pool_;
  const GenerateRequest& request_;
  const FlipCase& fc_;
  TensorCache& cache_;
  const onnx::ModelProto parent_;
  std::map<std::set<std::string>, std::string> written_;  // the cut's nodes -> its model file
  int runs_ = 0;
};

}  // namespace

namespace {

// Bisects over the prefixes of `seq`: a's token with none of them fed from b is `token_a`; the
// answer is the k where the first k - 1 keep it and the first k give another. Returns k (0 when
// all of them keep it).
struct Bisection {
  size_t k = 0;
  int64_t token = -1;
};
Expected<Bisection> bisect(FlipRunner& runner, const std::vector<FedNode>& seq,
                           const std::string& label_b, int64_t token_a) {
  size_t lo = 0, hi = seq.size();
  IG_ASSIGN_OR_RETURN(int64_t flipped, runner.token_with(cut_of(seq, 0, hi), label_b));
  if (flipped == token_a) return Bisection{};
  while (hi - lo > 1) {
    const size_t mid = lo + (hi - lo) / 2;
    IG_ASSIGN_OR_RETURN(const int64_t t, runner.token_with(cut_of(seq, 0, mid), label_b));
    if (t == token_a) {
      lo = mid;
    } else {
      hi = mid;
      flipped = t;
    }
  }
  return Bisection{hi, flipped};
}

}  // namespace

FlipSearch find_flip(WorkerPool& pool, const GenerateRequest& request, const FlipCase& fc,
                     const std::vector<Origin>& induced, TensorCache& cache) {
  FlipSearch out;
  const RepRun* a = fc.c->runs.count(fc.label_a) ? fc.c->runs.at(fc.label_a).run() : nullptr;
  const RepRun* b = fc.c->runs.count(fc.label_b) ? fc.c->runs.at(fc.label_b).run() : nullptr;
  if (!a || !b || !a->values.count(fc.logits) || !b->values.count(fc.logits)) {
    out.why = "no flip search: a run of the step holds no logits";
    return out;
  }
  auto la = cache.get(a->values.at(fc.logits));
  auto lb = cache.get(b->values.at(fc.logits));
  if (!la.ok() || !lb.ok()) {
    out.why = "no flip search: " + (la.ok() ? lb.status() : la.status()).message();
    return out;
  }
  const int64_t token_a = pick_token(*la).token, token_b = pick_token(*lb).token;
  if (token_a == token_b) {
    out.why = fmt::format(
        "no flip search: both pick token {} in this step's case (the first platform's history "
        "and cache); their tokens part through their own caches",
        token_a);
    return out;
  }
  // The nodes that can be cut: every output captured on both (a fused group's inner nodes were
  // not). Born: the differences whose inputs agree; differing: every node whose outputs differ.
  auto captured = [&](const std::string& node, const std::vector<std::string>& outputs) {
    bool all = !outputs.empty() && outputs.size() == output_count(*fc.c, node);
    for (const auto& v : outputs) all = all && a->values.count(v) && b->values.count(v);
    return all;
  };
  std::vector<FedNode> born, differing;
  for (const auto& o : induced)
    if (captured(o.node, o.outputs)) born.push_back({o.node, o.op_type, o.outputs});
  for (const auto& n : fc.c->nodes) {
    bool differs = false;
    for (const auto& v : n.outputs)
      differs = differs ||
                (a->values.count(v) && b->values.count(v) && !(a->values.at(v) == b->values.at(v)));
    if (differs && captured(n.name, n.outputs)) differing.push_back({n.name, n.op_type, n.outputs});
  }
  if (differing.empty()) {
    out.why = "no flip search: no differing node has every output captured on both";
    return out;
  }
  auto parent = read_model_proto(request.model);
  if (!parent.ok()) {
    out.why = "no flip search: " + parent.status().message();
    return out;
  }
  FlipRunner runner(pool, request, fc, cache, std::move(parent).value());
  auto fail = [&](const Status& st) {
    out.why = "no flip search: " + st.message();
    out.runs = runner.runs();
    return out;
  };
  // Born differences first: where one alone, with a's arithmetic after it, flips the token.
  Bisection found;
  if (!born.empty()) {
    auto b1 = bisect(runner, born, fc.label_b, token_a);
    if (!b1.ok()) return fail(b1.status());
    found = *b1;
  }
  out.carried = found.k == 0;
  const std::vector<FedNode>& seq = out.carried ? differing : born;
  if (out.carried) {
    auto b2 = bisect(runner, differing, fc.label_b, token_a);
    if (!b2.ok()) return fail(b2.status());
    found = *b2;
    if (found.k == 0)
      return fail(
          internal_error("fed every differing value of b, a still picks token {}", token_a));
  }
  auto own = runner.token_with(cut_of(seq, 0, found.k), fc.label_a);
  if (!own.ok()) return fail(own.status());
  if (*own != token_a) {
    out.why = fmt::format(
        "not located: fed its own values at the cut, a picks token {} instead of {}: cutting the "
        "graph changes what it computes",
        *own, token_a);
    out.runs = runner.runs();
    return out;
  }
  auto alone = runner.token_with(cut_of(seq, found.k - 1, found.k), fc.label_b);
  if (!alone.ok()) return fail(alone.status());
  out.found = true;
  out.node = seq[found.k - 1].node;
  out.op_type = seq[found.k - 1].op_type;
  out.prefix = found.k;
  out.of = seq.size();
  out.alone = *alone != token_a;
  out.token = found.token;
  out.runs = runner.runs();
  out.why = fmt::format(
      "b's values at the first {} of the {} {} (graph order) flip a's token to {}, the first {} "
      "keep {}{}; this node's alone {}",
      found.k, seq.size(), out.carried ? "differing nodes" : "born differences", found.token,
      found.k - 1, token_a,
      out.carried ? fmt::format(" (fed all {} born differences, a keeps its token: b's kernels "
                                "carry them on into the flip)",
                                born.size())
                  : "",
      out.alone ? "flip it too" : "do not");
  return out;
}

}  // namespace ig
