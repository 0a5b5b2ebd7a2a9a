// infergap explain --store DB --platform P --node N [--run R] [--max-trials N] [--json]
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "analysis/study_data.h"
#include "cli/commands.h"
#include "cli/study_json.h"
#include "model/onnx_model.h"
#include "study/explain.h"
#include "study/self_check.h"

namespace ig::cli {

namespace {

struct ExplainArgs {
  std::string store, platform, node;
  int64_t run = 0;
  size_t max_trials = 400;
  bool json = false;
};

struct Located {
  const CaseData* c = nullptr;
  const RepRun* run = nullptr;
  std::string platform;
};

// The run to explain: --run, else the platform's (majority) run in the first case that traced
// the node.
Expected<Located> locate(const StudyData& study, const ExplainArgs& a, const std::string& db) {
  const auto labels = study.labels();
  if (a.run == 0 && std::find(labels.begin(), labels.end(), a.platform) == labels.end()) {
    return invalid_argument("{}: no platform '{}' (platforms: {})", db, a.platform,
                            nlohmann::json(labels).dump());
  }
  for (const auto& c : study.cases) {
    for (const auto& [label, pc] : c.runs) {
      if (a.run != 0) {
        for (const auto& r : pc.reps) {
          if (r.run_id == a.run) return Located{&c, &r, label};
        }
        continue;
      }
      if (label != a.platform || !pc.run()) continue;
      return Located{&c, pc.run(), label};
    }
  }
  if (a.run != 0) return invalid_argument("{}: no run {}", db, a.run);
  return invalid_argument("{}: platform '{}' has no successful run", db, a.platform);
}

Expected<ExplainProblem> set_up(const Store& store, const Located& at, const ExplainArgs& a,
                                Model& model, std::string& value) {
  const CaseData& c = *at.c;
  const StoredNode* sn = nullptr;
  for (const auto& n : c.nodes) {
    bool named = n.name == a.node;
    for (const auto& o : n.outputs) named = named || o == a.node;
    if (named) sn = &n;
  }
  if (!sn) return invalid_argument("model {}: no node or value named '{}'", c.model_name, a.node);
  size_t index = 0;
  for (; index < sn->outputs.size(); ++index) {
    value = sn->outputs[index];
    if (at.run->values.count(value)) break;
  }
  if (index == sn->outputs.size()) {
    for (const auto& [v, covered] : at.run->covers) {
      if (("," + covered + ",").find("," + sn->name + ",") != std::string::npos) {
        return invalid_argument(
            "run {} ({}): node '{}' was computed inside the fused group '{}' (reported at '{}'); "
            "explain needs the node's own output: study the platform with its fusion off",
            at.run->run_id, at.platform, sn->name, covered, v);
      }
    }
    return invalid_argument(
        "run {} ({}): node '{}' has no captured output (study with --layers "
        "all)",
        at.run->run_id, at.platform, sn->name);
  }
  IG_ASSIGN_OR_RETURN(model, load_model(c.model_path));
  const Node* node = nullptr;
  for (const auto& n : model.graph.nodes) {
    if (static_cast<int64_t>(n.index) == sn->index && n.name == sn->name) node = &n;
  }
  if (!node) {
    return invalid_argument(
        "{}: node '{}' is not where the study recorded it (the model file "
        "changed?)",
        c.model_path, sn->name);
  }
  ExplainProblem p;
  p.model = &model;
  p.node = node;
  p.output_index = index;
  IG_ASSIGN_OR_RETURN(p.target, store.tensor(at.run->values.at(value)));
  std::map<std::string, TensorKey> graph_inputs;
  bool graph_inputs_loaded = false;
  for (const auto& in : node_reads(*node)) {
    auto init = model.graph.initializers.find(in);
    if (init != model.graph.initializers.end()) {
      p.inputs[in] = Value::of(init->second);
      continue;
    }
    auto traced = at.run->values.find(in);
    if (traced != at.run->values.end()) {
      IG_ASSIGN_OR_RETURN(Tensor t, store.tensor(traced->second));
      p.inputs[in] = Value::of(std::move(t));
      continue;
    }
    if (!graph_inputs_loaded) {
      IG_ASSIGN_OR_RETURN(graph_inputs, input_set_keys(store, c.input));
      graph_inputs_loaded = true;
    }
    auto gi = graph_inputs.find(in);
    if (gi == graph_inputs.end()) {
      return invalid_argument(
          "run {} ({}): input '{}' of node '{}' was not captured (study with "
          "--layers all)",
          at.run->run_id, at.platform, in, node->name);
    }
    IG_ASSIGN_OR_RETURN(Tensor t, store.tensor(gi->second));
    p.inputs[in] = Value::of(std::move(t));
  }
  return p;
}

nlohmann::json trial_json(const ExplainTrial& t) {
  nlohmann::json j{{"emulator", t.emulator}, {"exact", t.exact}};
  if (!t.error.empty()) {
    j["error"] = t.error;
  } else {
    j["remaining_precision"] = t.remaining_precision;
    j["differing"] = t.differing;
  }
  return j;
}

Status run_explain(const ExplainArgs& a) {
  IG_ASSIGN_OR_RETURN(auto store, open_existing_store(a.store));
  IG_ASSIGN_OR_RETURN(auto study, load_study(*store));
  IG_ASSIGN_OR_RETURN(Located at, locate(study, a, a.store));
  Model model;
  std::string value;
  IG_ASSIGN_OR_RETURN(ExplainProblem p, set_up(*store, at, a, model, value));
  const bool tty = ::isatty(2);
  auto progress = [&](size_t n, const ExplainTrial& t) {
    if (tty)
      std::fprintf(stderr, "\rexplain: %zu configurations tried (%s)\033[K", n, t.emulator.c_str());
  };
  IG_ASSIGN_OR_RETURN(ExplainResult r, explain_node(p, a.max_trials, progress));
  if (tty) std::fprintf(stderr, "\r\033[K");
  const int64_t elements = p.target.numel();
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& t : r.tried) trials.push_back(trial_json(t));
  nlohmann::json j{{"platform", at.platform},
                   {"run", at.run->run_id},
                   {"case", at.c->label()},
                   {"node", p.node->name},
                   {"op_type", p.node->op_type},
                   {"value", value},
                   {"match", r.exact ? "exact" : "closest"},
                   {"emulator", r.emulator},
                   {"remaining_precision", r.remaining_precision},
                   {"mantissa_bits", r.mantissa_bits},
                   {"differing", r.differing},
                   {"elements", elements},
                   {"cause", r.causes},
                   {"tried", r.tried.size()},
                   {"trials", trials}};
  if (a.json) {
    std::printf("%s\n", j.dump(2).c_str());
    return Status::Ok();
  }
  std::printf("%s, node %s (%s) of run %lld, case %s:\n", at.platform.c_str(), p.node->name.c_str(),
              p.node->op_type.c_str(), static_cast<long long>(at.run->run_id),
              at.c->label().c_str());
  if (r.exact) {
    std::printf("  reproduced bit for bit by %s\n", r.emulator.c_str());
  } else {
    std::printf(
        "  not reproduced exactly; closest: %s (%d of %d mantissa bits agree, %lld of %lld "
        "elements differ)\n",
        r.emulator.c_str(), r.remaining_precision, j["mantissa_bits"].get<int>(),
        static_cast<long long>(r.differing), static_cast<long long>(elements));
  }
  std::string causes;
  for (const auto& c : r.causes) causes += (causes.empty() ? "" : ", ") + c;
  std::printf("  cause: %s\n", causes.empty() ? "none (the reference's own order: sequential sums, "
                                                "no FMA)"
                                              : causes.c_str());
  std::printf("  %zu configurations tried\n", r.tried.size());
  return Status::Ok();
}

}  // namespace

void add_explain_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ExplainArgs>();
  auto* cmd = app.add_subcommand(
      "explain",
      "Which emulator configuration reproduces a platform's output of one node, and the cause");
  cmd->add_option("--store", args->store, "Study store (SQLite file)")->required();
  cmd->add_option("--platform", args->platform, "The platform whose output to explain");
  cmd->add_option("--node", args->node, "Node name, or the name of a value it produces")
      ->required();
  cmd->add_option("--run", args->run, "A run id instead of the platform's first case");
  cmd->add_option("--max-trials", args->max_trials, "Configurations to try at most")
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print JSON");
  cmd->callback([args, &exit_code] {
    if (args->platform.empty() && args->run == 0) {
      std::fprintf(stderr, "infergap explain: give --platform or --run\n");
      exit_code = kExitBadInput;
      return;
    }
    Status st = run_explain(*args);
    if (!st.ok()) {
      std::fprintf(stderr, "infergap explain: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace ig::cli
