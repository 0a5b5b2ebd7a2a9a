#include "backends/cuda/cuda_conv_algo.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

namespace ig::cuda {

const char* fwd_algo_name(cudnnConvolutionFwdAlgo_t a) {
  const auto i = static_cast<size_t>(a);
  return i < kFixedAlgoCount ? kAlgoNames[i] : "unknown";
}

namespace {

// tf32=off: FMA only (cuDNN's default math would allow TF32 for fp32 data on Ampere and newer);
// on: the default math, which permits TF32 tensor cores, as PyTorch's allow_tf32 does.
cudnnMathType_t base_math(const Context& c) {
  return c.opt().tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
}

// A perf entry this platform may use: it ran, its math fits tf32 (never down-conversion to fp16;
// with tf32=off no tensor-op variant, and the choice runs with FMA math whatever the entry says),
// and it is deterministic when that was asked for.
bool acceptable(const Context& c, const cudnnConvolutionFwdAlgoPerf_t& p) {
  if (p.status != CUDNN_STATUS_SUCCESS) return false;
  if (p.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) return false;
  if (!c.opt().tf32 && p.mathType == CUDNN_TENSOR_OP_MATH) return false;
  if (c.opt().deterministic && p.determinism != CUDNN_DETERMINISTIC) return false;
  return true;
}

const char* math_name(cudnnMathType_t m) {
  switch (m) {
    case CUDNN_DEFAULT_MATH:
      return "default";
    case CUDNN_TENSOR_OP_MATH:
      return "tensor-op";
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION:
      return "tensor-op-conversion";
    case CUDNN_FMA_MATH:
      return "fma";
  }
  return "unknown";
}

std::string describe(const ConvChoice& ch, const Context& c, const std::string& how) {
  std::string s = fmt::format("algo={}", fwd_algo_name(ch.algo));
  if (c.opt().tf32) s += fmt::format(" math={}", math_name(ch.math));
  if (!how.empty()) s += " (" + how + ")";
  return s;
}

Status set_math(const ConvProblem& p, cudnnMathType_t m) {
  IG_CUDA_CALL(cudnnSetConvolutionMathType, p.conv.get(), m);
  return Status::Ok();
}

Expected<size_t> workspace_size(Context& c, const ConvProblem& p, cudnnConvolutionFwdAlgo_t algo) {
  size_t bytes = 0;
  IG_CUDA_CALL(cudnnGetConvolutionForwardWorkspaceSize, c.dnn(), p.x.get(), p.w.get(), p.conv.get(),
               p.y.get(), algo, &bytes);
  return bytes;
}

// cuDNN's heuristic list (no timing), best first.
Expected<std::vector<cudnnConvolutionFwdAlgoPerf_t>> heuristics(Context& c, const ConvProblem& p) {
  int max_count = 0;
  IG_CUDA_CALL(cudnnGetConvolutionForwardAlgorithmMaxCount, c.dnn(), &max_count);
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(std::max(max_count, 1)));
  int returned = 0;
  IG_CUDA_CALL(cudnnGetConvolutionForwardAlgorithm_v7, c.dnn(), p.x.get(), p.w.get(), p.conv.get(),
               p.y.get(), static_cast<int>(perf.size()), &returned, perf.data());
  perf.resize(static_cast<size_t>(returned));
  return perf;
}

Expected<ConvChoice> heuristic_choice(Context& c, const ConvProblem& p, const std::string& how) {
  IG_RETURN_IF_ERROR(set_math(p, base_math(c)));
  IG_ASSIGN_OR_RETURN(auto perf, heuristics(c, p));
  for (const auto& e : perf) {
    if (!acceptable(c, e)) continue;
    ConvChoice ch{e.algo, c.opt().tf32 ? e.mathType : CUDNN_FMA_MATH, 0, ""};
    IG_RETURN_IF_ERROR(set_math(p, ch.math));
    auto ws = workspace_size(c, p, ch.algo);
    if (!ws.ok()) continue;
    ch.workspace = *ws;
    ch.note = describe(ch, c, how);
    return ch;
  }
  return unsupported("cuDNN's heuristics offer no {}algorithm for this convolution{}",
                     c.opt().deterministic ? "deterministic " : "",
                     c.opt().tf32 ? "" : " without TF32");
}

Expected<ConvChoice> fixed_choice(Context& c, const ConvProblem& p, Algo rule) {
  const auto algo = static_cast<cudnnConvolutionFwdAlgo_t>(rule);
  const cudnnMathType_t math = base_math(c);
  IG_RETURN_IF_ERROR(set_math(p, math));
  Status why = Status::Ok();
  if (c.opt().deterministic) {
    IG_ASSIGN_OR_RETURN(auto perf, heuristics(c, p));
    for (const auto& e : perf) {
      if (e.algo == algo && e.status == CUDNN_STATUS_SUCCESS &&
          e.determinism != CUDNN_DETERMINISTIC) {
        why = unsupported("cuDNN reports it nondeterministic here");
      }
    }
  }
  if (why.ok()) {
    auto ws = workspace_size(c, p, algo);
    if (ws.ok()) {
      ConvChoice ch{algo, math, *ws, ""};
      ch.note = describe(ch, c, "");
      return ch;
    }
    why = ws.status();
  }
  return fallback_choice(c, p, rule, why);
}

// The largest workspace any algorithm wants, capped by half the free device memory.
size_t tuning_workspace(Context& c, const ConvProblem& p) {
  size_t want = 0;
  for (size_t i = 0; i < kFixedAlgoCount; ++i) {
    auto ws = workspace_size(c, p, static_cast<cudnnConvolutionFwdAlgo_t>(i));
    if (ws.ok()) want = std::max(want, *ws);
  }
  size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) == cudaSuccess) want = std::min(want, free_bytes / 2);
  return want;
}

double median_ms(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (static_cast<double>(v[n / 2 - 1]) + v[n / 2]) / 2;
}

// Times one candidate `runs` times (after a warm-up run) with CUDA events on the stream.
Expected<double> time_candidate(Context& c, const ConvProblem& p, const ConvChoice& ch, int runs) {
  cudaEvent_t start = nullptr, stop = nullptr;
  IG_CUDA_CALL(cudaEventCreate, &start);
  IG_CUDA_CALL(cudaEventCreate, &stop);
  std::vector<float> ms;
  Status st = conv_forward(c, p, ch);
  for (int r = 0; st.ok() && r < runs; ++r) {
    float t = 0;
    st = check(cudaEventRecord(start, c.stream()), "cudaEventRecord");
    if (st.ok()) st = conv_forward(c, p, ch);
    if (st.ok()) st = check(cudaEventRecord(stop, c.stream()), "cudaEventRecord");
    if (st.ok()) st = check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    if (st.ok()) st = check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  (void)cudaEventDestroy(start);
  (void)cudaEventDestroy(stop);
  if (!st.ok()) return st;
  return median_ms(ms);
}

// cudnnFindConvolutionForwardAlgorithmEx runs every algorithm once and sorts them by time: what
// frameworks call benchmark mode. autotune takes its first acceptable entry; autotune-median
// times each acceptable entry tune_runs times and takes the smallest median.
Expected<ConvChoice> tuned_choice(Context& c, const ConvProblem& p, Algo rule) {
  // Time on an idle stream: earlier nodes' work may still be queued (outputs stay on the device).
  IG_RETURN_IF_ERROR(c.sync());
  IG_RETURN_IF_ERROR(set_math(p, base_math(c)));
  const size_t ws_bytes = tuning_workspace(c, p);
  IG_ASSIGN_OR_RETURN(void* ws, c.workspace(ws_bytes));
  int max_count = 0;
  IG_CUDA_CALL(cudnnGetConvolutionForwardAlgorithmMaxCount, c.dnn(), &max_count);
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<size_t>(std::max(max_count, 1)));
  int returned = 0;
  IG_CUDA_CALL(cudnnFindConvolutionForwardAlgorithmEx, c.dnn(), p.x.get(), p.xd.data(), p.w.get(),
               p.wd.data(), p.conv.get(), p.y.get(), p.yd.data(), static_cast<int>(perf.size()),
               &returned, perf.data(), ws, ws_bytes);
  perf.resize(static_cast<size_t>(returned));
  std::vector<ConvChoice> candidates;
  for (const auto& e : perf) {
    if (!acceptable(c, e)) continue;
    ConvChoice ch{e.algo, c.opt().tf32 ? e.mathType : CUDNN_FMA_MATH, 0, ""};
    const bool seen = std::any_of(candidates.begin(), candidates.end(), [&](const ConvChoice& o) {
      return o.algo == ch.algo && o.math == ch.math;
    });
    if (seen) continue;  // Find lists tensor-op and FMA variants; with tf32=off both run FMA
    // The workspace for the math the choice runs with, which may not be the entry's.
    IG_RETURN_IF_ERROR(set_math(p, ch.math));
    auto need = workspace_size(c, p, ch.algo);
    if (!need.ok() || *need > ws_bytes) continue;
    ch.workspace = *need;
    candidates.push_back(ch);
  }
  if (candidates.empty()) {
    return unsupported("autotuning found no {}algorithm that runs this convolution{}",
                       c.opt().deterministic ? "deterministic " : "",
                       c.opt().tf32 ? "" : " without TF32");
  }
  if (rule == Algo::kAutotune) {
    ConvChoice ch = candidates.front();
    IG_RETURN_IF_ERROR(set_math(p, ch.math));
    ch.note = describe(ch, c, "autotune");
    return ch;
  }
  size_t best = 0;  // Find's first when no candidate could be timed
  double best_ms = -1;
  for (size_t i = 0; i < candidates.size(); ++i) {
    IG_RETURN_IF_ERROR(set_math(p, candidates[i].math));
    auto ms = time_candidate(c, p, candidates[i], c.opt().tune_runs);
    if (ms.ok() && (best_ms < 0 || *ms < best_ms)) best = i, best_ms = *ms;
  }
  ConvChoice ch = candidates[best];
  IG_RETURN_IF_ERROR(set_math(p, ch.math));
  ch.note = describe(ch, c, fmt::format("autotune-median of {}", c.opt().tune_runs));
  return ch;
}

// Autotune results live as long as the worker process, keyed by the convolution's shapes, like
// cudnn.benchmark in PyTorch: a fresh worker tunes again, which is what exposes run-to-run
// differences.
std::map<std::string, ConvChoice>& tuned_cache() {
  static std::map<std::string, ConvChoice> cache;
  return cache;
}

}  // namespace

Expected<ConvChoice> fallback_choice(Context& c, const ConvProblem& p, Algo requested,
                                     const Status& why) {
  IG_ASSIGN_OR_RETURN(ConvChoice fb, heuristic_choice(c, p, ""));
  fb.note += fmt::format(" ({} requested: {}; fell back to cuDNN's heuristic)",
                         algo_name(requested), why.message());
  return fb;
}

Expected<ConvChoice> choose_conv_algo(Context& c, Algo rule, const ConvProblem& p) {
  if (is_fixed(rule)) return fixed_choice(c, p, rule);
  if (rule == Algo::kHeuristic) return heuristic_choice(c, p, "heuristic");
  const std::string key = p.key + "|" + algo_name(rule);
  auto it = tuned_cache().find(key);
  if (it != tuned_cache().end()) {
    IG_RETURN_IF_ERROR(set_math(p, it->second.math));
    return it->second;
  }
  IG_ASSIGN_OR_RETURN(ConvChoice ch, tuned_choice(c, p, rule));
  tuned_cache()[key] = ch;
  return ch;
}

Status conv_forward(Context& c, const ConvProblem& p, const ConvChoice& choice) {
  IG_ASSIGN_OR_RETURN(void* ws, c.workspace(choice.workspace));
  const float one = 1.0f, zero = 0.0f;
  IG_CUDA_CALL(cudnnConvolutionForward, c.dnn(), &one, p.x.get(), p.xd.data(), p.w.get(),
               p.wd.data(), p.conv.get(), choice.algo, ws, choice.workspace, &zero, p.y.get(),
               p.yd.data());
  return Status::Ok();
}

}  // namespace ig::cuda
