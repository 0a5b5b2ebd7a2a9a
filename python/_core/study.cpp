// infergap._core.study and import_run: `infergap study` and `infergap import` with the CLI's
// progress bar and notes on stderr; a failure raises infergap.Error with the CLI's message.
#include <pybind11/stl.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "core.h"
#include "study/import_run.h"
#include "views/progress.h"
#include "workflow/study.h"

namespace ig::python {

namespace {

struct StudyArgs {
  std::string store;
  std::vector<std::string> models, inputs, platforms, presets, shapes, dims;
  std::string oracle = "default";
  bool all_layers = true, self_check = true, report = false;
  uint64_t seed = 0;
  int input_sets = 1, repeat = 1;
  double timeout = 300;
};

std::string study(const StudyArgs& a) {
  py::gil_scoped_release unlocked;
  StudyPlan plan;
  StudyOptions& o = plan.options;
  o.models = a.models;
  o.input_files = a.inputs;
  o.platforms = a.platforms;
  o.shapes = a.shapes;
  o.dims = a.dims;
  o.seed = a.seed;
  o.input_sets = a.input_sets;
  o.repeat = a.repeat;
  o.all_layers = a.all_layers;
  o.timeout_seconds = a.timeout;
  o.oracle = oracle_from_choice(a.oracle);
  plan.store_path = a.store;
  plan.presets = a.presets;
  plan.self_check = a.self_check;
  plan.report = a.report;
  const auto store = value_or_raise(Store::open(a.store));
  ProgressBar bar("study");
  StudyHooks hooks;
  hooks.progress = [&](const StudyProgress& p) {
    bar.update(p.done, p.total, p.executed, p.current);
  };
  hooks.note = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  hooks.error = [](const std::string& e) {
    std::fprintf(stderr, "infergap study: %s\n", e.c_str());
  };
  auto outcome = run_study_steps(*store, plan, hooks);
  bar.finish();
  const StudyOutcome done = value_or_raise(std::move(outcome));
  const StudySummary& s = done.summary;
  return nlohmann::json{{"host", s.host},
                        {"oracle", s.oracle},
                        {"runs_total", s.total},
                        {"runs_executed", s.executed},
                        {"runs_skipped", s.skipped},
                        {"verdicts", s.verdicts}}
      .dump();
}

std::string import_outputs(const std::string& store_path, const ImportOptions& options) {
  py::gil_scoped_release unlocked;
  const auto store = value_or_raise(Store::open(store_path));
  const ImportSummary s = value_or_raise(import_run(*store, options));
  ok_or_raise(store->push_to_remote());
  return nlohmann::json{{"platform", s.platform}, {"host", s.host},       {"model", s.model},
                        {"input", s.input},       {"outputs", s.outputs}, {"layers", s.layers}}
      .dump();
}

}  // namespace

void bind_study(py::module_& m) {
  m.def(
      "study",
      [](std::string store, std::vector<std::string> models, std::vector<std::string> inputs,
         std::vector<std::string> platforms, std::string oracle, bool all_layers,
         std::vector<std::string> presets, uint64_t seed, int input_sets, int repeat,
         std::vector<std::string> shapes, std::vector<std::string> dims, bool self_check,
         bool report, double timeout) {
        return study(StudyArgs{store, models, inputs, platforms, presets, shapes, dims, oracle,
                               all_layers, self_check, report, seed, input_sets, repeat, timeout});
      },
      py::arg("store"), py::arg("models"), py::arg("inputs"), py::arg("platforms"),
      py::arg("oracle") = "default", py::arg("all_layers") = true,
      py::arg("presets") = std::vector<std::string>{}, py::arg("seed") = 0,
      py::arg("input_sets") = 1, py::arg("repeat") = 1,
      py::arg("shapes") = std::vector<std::string>{}, py::arg("dims") = std::vector<std::string>{},
      py::arg("self_check") = true, py::arg("report") = false, py::arg("timeout") = 300.0,
      "Runs `infergap study` into `store`; returns the summary as JSON");
  m.def(
      "import_run",
      [](std::string store, std::string model, std::vector<std::string> inputs, uint64_t seed,
         std::string dir, std::string label) {
        ImportOptions o;
        o.model = model;
        o.input.specs = inputs;
        o.input.seed = seed;
        o.dir = dir;
        o.label = label;
        return import_outputs(store, o);
      },
      py::arg("store"), py::arg("model"), py::arg("inputs"), py::arg("seed"), py::arg("dir"),
      py::arg("label"),
      "Runs `infergap import DIR`: the tensors in `dir` become a run of external:LABEL");
}

}  // namespace ig::python
