#include "workflow/generate_steps.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include "analysis/compare/origins.h"
#include "analysis/study_data.h"
#include "model/npy.h"
#include "store/store.h"
#include "workflow/run.h"
#include "workflow/study.h"

namespace ig {

namespace fs = std::filesystem;

namespace {

fs::path step_dir(const fs::path& dir, size_t step) {
  return dir / fmt::format("step-{:03d}", step);
}

// Each step's feeds as .npy files in DIR/step-NNN/, and the input sets naming them.
Expected<std::vector<std::vector<std::string>>> write_steps(const fs::path& dir,
                                                            const std::vector<StepFeeds>& steps) {
  std::vector<std::vector<std::string>> sets;
  for (size_t s = 0; s < steps.size(); ++s) {
    const fs::path folder = step_dir(dir, s);
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) return io_error("{}: cannot make the folder: {}", folder.string(), ec.message());
    std::vector<std::string> set;
    for (const auto& [name, t] : steps[s]) {
      const std::string path = (folder / (file_name_part(name) + ".npy")).string();
      IG_RETURN_IF_ERROR(write_npy(t, path));
      set.push_back(name + "=" + path);
    }
    sets.push_back(std::move(set));
  }
  return sets;
}

std::string label_of(const StudyData& study, const std::string& spec) {
  for (const auto& p : study.platforms)
    if (p.spec == spec) return p.label;
  return "";
}

void locate(const StudyData& study, TensorCache& cache, WorkerPool& pool,
            const GenerateRequest& request, const std::vector<StepFeeds>& steps,
            const GenerateOutcome& out, TokenDivergence& d) {
  if (d.first_step >= static_cast<int>(out.step_cases.size())) {
    d.located = "not located: the stored steps end before this one";
    return;
  }
  const std::string& input = out.step_cases[static_cast<size_t>(d.first_step)];
  if (input.empty()) {
    d.located = "not located: the step's case is not in the store";
    return;
  }
  const CaseData* c = nullptr;
  for (const auto& x : study.cases)
    if (x.input == input) c = &x;
  const std::string a = label_of(study, d.a), b = label_of(study, d.b);
  if (!c || a.empty() || b.empty()) {
    d.located = "not located: the step's case is not in the store";
    return;
  }
  d.case_label = c->label();
  auto origins = pair_origins(*c, a, b, cache);
  if (!origins.ok() || !origins.value().compared) {
    d.located = "not located: " + (origins.ok() ? std::string("a run of the step failed")
                                                : origins.status().message());
    return;
  }
  const auto& induced = origins.value().induced;
  if (induced.empty()) {
    d.located =
        "not located: the two platforms agree bit for bit on this step's case (the "
        "first platform's history); their tokens part through their own caches";
    return;
  }
  d.born = induced.size();
  d.first_born = induced[0].node;
  d.first_born_op = induced[0].op_type;
  const FlipCase fc{c, a, b, d.a, &steps[static_cast<size_t>(d.first_step)], out.logits};
  const FlipSearch flip = find_flip(pool, request, fc, induced, cache);
  d.flip_runs = flip.runs;
  if (!flip.found) {
    d.located = flip.why;
    return;
  }
  d.node = flip.node;
  d.op_type = flip.op_type;
  d.flip_carried = flip.carried;
  d.flip_prefix = flip.prefix;
  d.flip_of = flip.of;
  d.flip_alone = flip.alone;
  d.located = "in step " + std::to_string(d.first_step) + "'s case, " + flip.why;
}

}  // namespace

TokenPick pick_token(const Tensor& logits) {
  TokenPick p;
  const int64_t vocab = logits.rank() ? logits.dim(-1) : 0;
  if (vocab < 1) return {-1, 0, false};
  double best = -INFINITY, second = -INFINITY;
  for (int64_t i = logits.numel() - vocab; i < logits.numel(); ++i) {
    const double v = logits.as_double(i);
    if (std::isnan(v)) p.finite = false;
    if (v > best) {
      second = best;
      best = v;
      p.token = i - (logits.numel() - vocab);
    } else if (v > second) {
      second = v;
    }
  }
  p.margin = best - second;
  return p;
}

Status store_and_locate(const GenerateRequest& request, const std::vector<StepFeeds>& steps,
                        WorkerPool& pool, GenerateOutcome& out, const GenerateHooks& hooks) {
  const fs::path dir = fs::path(request.store_path + ".steps");
  IG_ASSIGN_OR_RETURN(const auto sets, write_steps(dir, steps));
  StudyPlan plan;
  plan.options.models = {request.model};
  plan.options.input_spec_sets[request.model] = sets;
  for (const auto& p : out.platforms)
    if (!p.tokens.empty()) plan.options.platforms.push_back(p.spec);
  plan.options.oracle = request.oracle;
  plan.options.all_layers = true;
  plan.options.timeout_seconds = request.timeout_seconds;
  plan.options.max_memory_bytes = request.max_memory_bytes;
  plan.store_path = request.store_path;
  plan.self_check = false;
  plan.report = false;
  plan.keep_tensors = KeepTensors::kClasses;  // locating reads the steps' inner layers
  IG_ASSIGN_OR_RETURN(const std::unique_ptr<Store> store, Store::open(request.store_path));
  StudyHooks study_hooks;
  study_hooks.note = hooks.note;
  study_hooks.error = hooks.note;
  IG_RETURN_IF_ERROR(run_study_steps(*store, plan, study_hooks).status());
  IG_ASSIGN_OR_RETURN(StudyData study, load_study(*store));
  // Each step's case is the one whose inputs come from that step's folder.
  for (size_t s = 0; s < steps.size(); ++s) {
    const std::string folder = step_dir(dir, s).string() + "/";
    out.step_cases.emplace_back();
    for (const auto& c : study.cases)
      if (fs::path(c.model_path).filename() == fs::path(request.model).filename() &&
          c.input_label.find("file:" + folder) != std::string::npos)
        out.step_cases.back() = c.input;
  }
  TensorCache cache(study);
  for (auto& d : out.divergences) locate(study, cache, pool, request, steps, out, d);
  return Status::Ok();
}

}  // namespace ig
