// A study: models × input sets × platforms × repetitions, run through a WorkerPool into a Store.
// Runs already stored (same model, input, platform, host and repetition) are skipped, so a killed
// study resumes where it stopped.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "inputs/inputs.h"
#include "model/graph.h"
#include "model/onnx_model.h"
#include "results/trace_memory.h"
#include "store/store.h"
#include "worker/worker_pool.h"

namespace ig {

struct StudyOptions {
  std::vector<std::string> models;
  std::vector<std::string> input_files;  // NAME=FILE; inputs not given get seeded random data
  int input_sets = 1;                    // random inputs use seeds seed, seed+1, ...
  // Per model path: explicit input sets, each a list of NAME=SPEC (as `run --input` takes them).
  // A model listed here ignores input_files and input_sets.
  std::map<std::string, std::vector<std::vector<std::string>>> input_spec_sets;
  uint64_t seed = 0;
  std::vector<std::string> platforms;
  std::string oracle;  // "" for none; run once per model and input
  int repeat = 1;
  bool all_layers = true;
  // Check every traced run's outputs against a plain run where a platform traces through a second
  // computation (CaptureOptions::verify_traces), not only a sample.
  bool verify_traces = false;
  std::string host_tag;
  // Jobs in flight at once (coordinator threads); jobs on one platform still run one at a time in
  // that platform's worker, so more than the number of platforms gains nothing.
  int jobs = 1;
  // A model's own input set (NAME=SPEC, as `run --input` takes them), consulted for models not
  // in input_spec_sets: campaign variants carry their inputs (captured tensors, injections).
  // Empty: the model has none and gets input_files / input_sets.
  std::function<Expected<std::vector<std::string>>(const std::string& path, const Model& model)>
      model_inputs;
  double timeout_seconds = 300;   // per run; the worker is killed past it (verdict "timeout")
  uint64_t max_memory_bytes = 0;  // model/limits.h; 0: default_memory_budget()
  // The traced tensor bytes the coordinator holds in memory (runs being received and queued for
  // the store; the store's and the analyses' caches each); past it, traces spill to a temporary
  // file beside the store (results/trace_memory.h). The store's contents do not depend on it.
  uint64_t trace_budget_bytes = kDefaultTraceBudgetBytes;
  // --shape NAME=DIMS and --dim SYMBOL=SIZE (inputs/inputs.h), applied to every model they fit;
  // one that fits no model is an error.
  std::vector<std::string> shapes, dims;
  // Runs only the cases (model x input set, counted in order) whose index is shard modulo shards:
  // a job of a fleet plan, or of a job array.
  int shard = 0, shards = 1;
  // A model that fails to load or to get its inputs is left out and listed
  // (StudySummary::refused_models) instead of ending the study: a campaign of many variants goes
  // on. The study still fails when every model is refused.
  bool leave_out_refused_models = false;
};

struct StudyProgress {
  int64_t done = 0, total = 0, executed = 0, skipped = 0;
  std::string current;  // the job that just finished
};

struct StudySummary {
  int64_t total = 0, executed = 0, skipped = 0;
  std::map<std::string, int64_t> verdicts;  // of executed runs
  std::string host;
  std::string oracle;
  // Open dims that no --shape or --dim sized (generated inputs used 1), with the model's path; once
  // per model, input and dim.
  std::vector<std::pair<std::string, DefaultedDim>> defaulted;
  // Models left out (StudyOptions::leave_out_refused_models): the path and why loading it or
  // making its inputs failed.
  std::vector<std::pair<std::string, std::string>> refused_models;
  // Where executed runs' time went, summed over runs (seconds): in the workers, loading and
  // checking the model and then running it (hashing the outputs included); between coordinator
  // and worker (the request, the tensors both ways, waiting for a free worker); and writing to
  // the store (the writer thread, in parallel with the runs).
  struct Costs {
    double load = 0, run = 0, transfer = 0, store = 0;
  } costs;
  // Traced tensor bytes: the most held in memory at once, and all those spilled to the file.
  uint64_t trace_peak_held = 0, trace_spilled = 0;
  // Peak resident set (VmHWM) of each platform's workers, the largest seen (WorkerPool::peak_rss).
  std::map<std::string, uint64_t> worker_peak_rss;
};

struct ModelEntry {
  std::string hash, path;  // content hash of the file, absolute path
  Model model;
};
// Loads a model file and checks that the reference backend implements its opsets
// (backends/ref/ref_opsets.h); stores nothing.
Expected<ModelEntry> load_model_entry(const std::string& path, const LoadOptions& load = {});
// Records a loaded model (content hash, path, lineage, graph nodes) in the store.
Status store_model(Store& store, const ModelEntry& entry);
// Both.
Expected<ModelEntry> register_model(Store& store, const std::string& path,
                                    const LoadOptions& load = {});

struct InputEntry {
  std::string hash;  // of the names, dtypes, shapes and contents of all feeds
  std::map<std::string, Tensor> feeds;
  std::string flags;  // the `infergap run` flags that recreate the feeds (InputRequest::flags)
};
// An input set made and described for the store, not yet stored.
struct PreparedInput {
  InputEntry entry;
  StoredInput stored;
  std::vector<Tensor> tensors;
  GatheredInputs gathered;  // what the flags made: defaulted dims, flags that did not fit
};
Expected<PreparedInput> prepare_input(const Model& model, const InputRequest& request);
// Records one input set (files as NAME=FILE, seeded random data for the rest) and its tensors.
Expected<InputEntry> register_input(Store& store, const Model& model,
                                    const std::vector<std::string>& files, uint64_t seed);

// The default oracle: fp64 on the reference backend where it accepts `dtype=fp64`, plain `ref`
// otherwise.
std::string default_oracle();
// The oracle a user's --oracle choice names: "default" is default_oracle(), "none" no oracle
// (""), anything else a platform spec.
std::string oracle_from_choice(const std::string& choice);

Expected<StudySummary> run_study(Store& store, WorkerPool& pool, const StudyOptions& options,
                                 const std::function<void(const StudyProgress&)>& progress);

}  // namespace ig
