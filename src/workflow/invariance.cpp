#include "workflow/invariance.h"

#include <algorithm>
#include <map>

#include "analysis/compare/compare.h"
#include "backends/ref/ref_opsets.h"
#include "model/onnx_model.h"
#include "tensor/batch_slice.h"
#include "workflow/run.h"

namespace ig {

namespace {

using Feeds = std::map<std::string, Tensor>;

bool is_batched(const InvarianceOutcome& out, const std::string& input) {
  return std::find(out.batched_inputs.begin(), out.batched_inputs.end(), input) !=
         out.batched_inputs.end();
}

// The inputs whose first dim the model leaves open under one symbol (or unnamed): the batch.
Status find_batch_axis(const Model& model, InvarianceOutcome& out) {
  for (const ValueInfo* in : model.graph.runtime_inputs()) {
    const bool open = in->has_shape && !in->dims.empty() && in->dims[0].value < 0;
    if (!open || (!out.batched_inputs.empty() && in->dims[0].symbol != out.batch_symbol)) continue;
    if (out.batched_inputs.empty()) out.batch_symbol = in->dims[0].symbol;
    out.batched_inputs.push_back(in->name);
  }
  if (out.batched_inputs.empty())
    return invalid_argument(
        "{}: no input leaves its first (batch) dimension open, so a sample cannot be run alone "
        "and in a batch; export the model with a dynamic batch axis (torch.onnx.export's "
        "dynamic_axes, or a dim_param on the inputs' first dimension)",
        model.path);
  return Status::Ok();
}

Status check_batches(std::vector<int64_t>& batches) {
  std::sort(batches.begin(), batches.end());
  batches.erase(std::unique(batches.begin(), batches.end()), batches.end());
  if (batches.size() < 2 || batches.front() < 1)
    return invalid_argument("--batch needs at least two different sizes of 1 or more, e.g. 1,8");
  for (int64_t b : batches)
    if (batches.back() % b != 0)
      return invalid_argument(
          "--batch: {} does not divide {}: every sample must fall in one batch of each size", b,
          batches.back());
  return Status::Ok();
}

// Whether no flag or file sized the batch: gather_inputs left a batched input's first dim at 1.
bool batch_defaulted(const GatheredInputs& gathered, const InvarianceOutcome& out) {
  for (const auto& in : gathered.inputs)
    for (const auto& d : in.defaulted)
      if (d.index == 0 && is_batched(out, in.name)) return true;
  return false;
}

// Sizes the batch symbol to the largest batch where nobody sized it, then checks the samples.
Expected<GatheredInputs> gather_samples(const Model& model, InvarianceRequest request,
                                        const InvarianceOutcome& out) {
  const int64_t samples = out.batches.back();
  IG_ASSIGN_OR_RETURN(GatheredInputs gathered, gather_inputs(model, request.inputs));
  if (!out.batch_symbol.empty() && batch_defaulted(gathered, out)) {
    request.inputs.dims.push_back(out.batch_symbol + "=" + std::to_string(samples));
    IG_ASSIGN_OR_RETURN(gathered, gather_inputs(model, request.inputs));
  }
  for (auto& in : gathered.inputs) {
    if (!is_batched(out, in.name)) continue;
    if (in.tensor.rank() < 1 || in.tensor.dim(0) < samples)
      return invalid_argument(
          "{}: input '{}' holds {} sample(s) ({} from {}); --batch {} needs {} along its first "
          "axis (a file of {} samples, --dim or --shape)",
          model.path, in.name, in.tensor.rank() < 1 ? 0 : in.tensor.dim(0), in.tensor.describe(),
          in.source, samples, samples, samples);
    if (in.tensor.dim(0) > samples) in.tensor = batch_slice(in.tensor, 0, samples);
  }
  return gathered;
}

Feeds chunk_feeds(const InvarianceOutcome& out, int64_t begin, int64_t count) {
  Feeds feeds;
  for (const auto& in : out.inputs)
    feeds[in.name] = is_batched(out, in.name) ? batch_slice(in.tensor, begin, count) : in.tensor;
  return feeds;
}

// Each output's rows for every sample, as one batch size computed them.
using SampleOutputs = std::vector<std::map<std::string, Tensor>>;

struct PlatformRunner {
  WorkerPool& pool;
  const InvarianceRequest& request;
  const InvarianceOutcome& out;
  PlatformInvariance& result;

  RunResult run(int64_t begin, int64_t count, bool traced) {
    RunRequest r;
    r.platform = result.spec;
    r.model_path = request.model;
    r.inputs = chunk_feeds(out, begin, count);
    r.capture.all_layers = traced;
    r.capture.keep_tensors = true;
    r.timeout_seconds = request.timeout_seconds;
    r.max_memory_bytes = request.max_memory_bytes;
    r.input_flags = request.inputs.flags();
    RunResult rr = pool.run(r);
    ++result.runs;
    result.seconds += rr.seconds;
    result.library = rr.library;
    result.library_version = rr.library_version;
    return rr;
  }

  // Every sample's rows of each compared output, computed in batches of `batch`.
  bool outputs_in_batches(int64_t batch, SampleOutputs& rows) {
    rows.assign(static_cast<size_t>(out.samples), {});
    for (int64_t begin = 0; begin < out.samples; begin += batch) {
      const RunResult rr = run(begin, batch, false);
      if (rr.verdict != Verdict::kOk) {
        result.verdict = rr.verdict;
        result.reason = "batch of " + std::to_string(batch) + " (samples " + std::to_string(begin) +
                        ".." + std::to_string(begin + batch - 1) + "): " + rr.reason;
        return false;
      }
      for (const auto& o : rr.outputs) {
        if (std::find(out.compared_outputs.begin(), out.compared_outputs.end(), o.value) ==
            out.compared_outputs.end())
          continue;
        if (o.tensor.rank() < 1 || o.tensor.dim(0) != batch) {
          result.verdict = Verdict::kError;
          result.reason = "output '" + o.value + "' has " + o.tensor.describe() +
                          " in a batch of " + std::to_string(batch) +
                          ": its first axis is not the batch";
          return false;
        }
        for (int64_t i = 0; i < batch; ++i)
          rows[static_cast<size_t>(begin + i)][o.value] = batch_slice(o.tensor, i, 1);
      }
    }
    return true;
  }
};

// The first traced value, in the batch run's execution order, whose rows for the sample differ
// between the two traced runs.
void locate(PlatformRunner& runner, int64_t base, BatchDifference& d) {
  const int64_t s = d.first_sample;
  const int64_t base_begin = s / base * base, batch_begin = s / d.batch * d.batch;
  const RunResult a = runner.run(base_begin, base, true);
  const RunResult b = runner.run(batch_begin, d.batch, true);
  if (a.verdict != Verdict::kOk || b.verdict != Verdict::kOk) {
    d.located = "not located: a traced run failed";
    return;
  }
  std::map<std::string, const TracedTensor*> alone;
  for (const auto& t : a.trace) alone[t.value] = &t;
  for (const auto& t : b.trace) {
    auto it = alone.find(t.value);
    if (t.node.empty() || it == alone.end() || !t.tensor.defined() || !it->second->tensor.defined())
      continue;
    const Tensor& in_batch = t.tensor;
    const Tensor& in_base = it->second->tensor;
    if (in_batch.rank() < 1 || in_batch.dim(0) != d.batch || in_base.dim(0) != base) continue;
    if (rows_bitwise_equal(in_base, s - base_begin, in_batch, s - batch_begin)) continue;
    d.node = t.node;
    d.op_type = t.op_type;
    d.covers = t.covers;
    d.located = "first traced value whose rows differ: " + t.value;
    return;
  }
  d.located = "not located: every traced value agrees (the difference appears only untraced)";
}

void compare_batches(PlatformRunner& runner, const std::vector<SampleOutputs>& by_batch) {
  const auto& out = runner.out;
  PlatformInvariance& result = runner.result;
  for (size_t k = 1; k < by_batch.size(); ++k) {
    BatchDifference d;
    d.batch = out.batches[k];
    for (int64_t s = 0; s < out.samples; ++s) {
      const auto& in_batch = by_batch[k][static_cast<size_t>(s)];
      const auto& alone = by_batch[0][static_cast<size_t>(s)];
      const auto differs = std::find_if(out.compared_outputs.begin(), out.compared_outputs.end(),
                                        [&](const std::string& name) {
                                          return !in_batch.at(name).bitwise_equal(alone.at(name));
                                        });
      if (differs == out.compared_outputs.end()) continue;
      ++d.samples_differing;
      if (d.first_sample >= 0) continue;
      const Comparison c = compare_tensors(in_batch.at(*differs), alone.at(*differs));
      d.first_sample = s;
      d.output = *differs;
      d.elements = c.elements;
      d.elements_differing = c.differing;
      d.max_ulp = c.max_ulp;
      d.remaining_precision = c.remaining_precision;
    }
    if (d.samples_differing > 0) result.differences.push_back(d);
  }
  for (auto& d : result.differences) locate(runner, out.batches[0], d);
  result.invariant = result.differences.empty();
}

Status plan_outputs(const Model& model, InvarianceOutcome& out) {
  for (const auto& o : model.graph.outputs) {
    const bool batched = !o.has_shape || (!o.dims.empty() && o.dims[0].value < 0);
    (batched ? out.compared_outputs : out.skipped_outputs).push_back(o.name);
  }
  if (out.compared_outputs.empty())
    return invalid_argument(
        "{}: no output leaves its first dimension open: no output has a batch "
        "axis to compare",
        model.path);
  return Status::Ok();
}

}  // namespace

bool InvarianceOutcome::all_ok() const {
  return std::all_of(platforms.begin(), platforms.end(),
                     [](const PlatformInvariance& p) { return p.verdict == Verdict::kOk; });
}

Expected<InvarianceOutcome> check_batch_invariance(const InvarianceRequest& request,
                                                   const InvarianceHooks& hooks) {
  IG_ASSIGN_OR_RETURN(const std::vector<std::string> specs,
                      platform_specs_or_ref(request.platforms));
  InvarianceOutcome out;
  out.batches = request.batches;
  IG_RETURN_IF_ERROR(check_batches(out.batches));
  LoadOptions load;
  load.max_memory_bytes = request.max_memory_bytes;
  IG_ASSIGN_OR_RETURN(const Model model, load_model(request.model, load));
  IG_RETURN_IF_ERROR(check_ref_opsets(model));
  IG_RETURN_IF_ERROR(find_batch_axis(model, out));
  IG_RETURN_IF_ERROR(plan_outputs(model, out));
  IG_ASSIGN_OR_RETURN(const GatheredInputs gathered, gather_samples(model, request, out));
  IG_RETURN_IF_ERROR(sizing_fits_nothing(request.inputs, {&gathered}, request.model));
  out.inputs = gathered.inputs;
  out.samples = out.batches.back();
  if (hooks.inputs_ready) hooks.inputs_ready(out);
  WorkerPool pool(WorkerPoolOptions{.worker_executable = "", .isolate = true});
  IG_RETURN_IF_ERROR(start_platforms(pool, specs));
  for (const auto& spec : specs) {
    PlatformInvariance result;
    result.spec = spec;
    PlatformRunner runner{pool, request, out, result};
    std::vector<SampleOutputs> by_batch(out.batches.size());
    bool ok = true;
    for (size_t k = 0; k < out.batches.size() && ok; ++k)
      ok = runner.outputs_in_batches(out.batches[k], by_batch[k]);
    if (ok) compare_batches(runner, by_batch);
    if (hooks.platform_done) hooks.platform_done(result);
    out.platforms.push_back(std::move(result));
  }
  return out;
}

}  // namespace ig
