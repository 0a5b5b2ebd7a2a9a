// infergap origins --store DB [--model M] [--a P --b Q | --oracle] [--json | --csv]
// infergap export --store DB --run R --node N -o X.npy [--json]
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "model/npy.h"
#include "study/restore_tensors.h"
#include "views/study_json.h"
#include "views/study_reports.h"
#include "workflow/compare.h"

namespace ig::cli {

namespace {

struct OriginsArgs {
  std::string store, model, a, b;
  bool json = false, csv = false, oracle = false;
};

// origins --oracle: per platform, where its error against the oracle is born.
Status run_oracle_origins(const OriginsArgs& args) {
  IG_ASSIGN_OR_RETURN(auto store, open_store_restoring(args.store, "origins"));
  IG_ASSIGN_OR_RETURN(const auto outcome, oracle_origins_study(*store, args.model, args.store));
  const StudyData& study = outcome.study;
  const OracleOriginsReport& report = outcome.report;
  const auto& origins = report.origins;
  const auto& largest = report.largest;
  const nlohmann::json& j = report.json["oracle_origins"];
  if (args.json) {
    std::printf("%s\n", report.json.dump(2).c_str());
  } else if (args.csv) {
    std::printf(
        "platform,case,node_index,node,op_type,covers,input_error,output_error,jump,self_check\n");
    for (const auto& o : origins) {
      std::string covers;
      for (const auto& n : o.span.covers) covers += (covers.empty() ? "" : " ") + n;
      std::printf("%s,%s,%lld,%s,%s,%s,%s,%s,%s,%s\n", o.platform.c_str(), o.case_label.c_str(),
                  static_cast<long long>(o.span.node_index), o.span.node.c_str(),
                  o.span.op_type.c_str(), covers.c_str(), error_text(o.span.input_error).c_str(),
                  error_text(o.span.output_error).c_str(), error_text(o.jump).c_str(),
                  std::string(self_check_verdict_name(o.self_check.verdict)).c_str());
    }
  } else {
    std::printf(
        "Origins against the oracle (%s): where each platform's error is born. Replayed (the "
        "span re-run alone on the oracle from the platform's own inputs): its own error is >= "
        "%g of its output's, or, quantized, >= %g steps off the replay or a step off in > %g of "
        "its elements. Not replayed: output error >= %g x its inputs' (error = max|y - oracle| "
        "/ max|oracle| per tensor); a quantized output, from inputs within %g step, as above\n",
        study.oracles[0].spec.c_str(), kReplayShare, kStepsBornMax, kStepsBornShare, kBornJump,
        kStepsQuietInput);
    print_oracle_origins(j, SIZE_MAX);
    // A platform without an origin: how close it came.
    for (const auto& o : largest) {
      bool has_origin = false;
      for (const auto& x : origins) has_origin = has_origin || x.platform == o.platform;
      if (has_origin) continue;
      std::printf("%s: no origin; the largest jump: %s\n", o.platform.c_str(),
                  origin_text(oracle_origin_json(o)).c_str());
    }
  }
  return Status::Ok();
}

Status print_origins(const OriginsArgs& args) {
  IG_ASSIGN_OR_RETURN(auto store, open_store_restoring(args.store, "origins"));
  IG_ASSIGN_OR_RETURN(auto study, load_study(*store, args.model));
  TensorCache cache(study);
  if (args.json) {
    auto j = pair_origins_report(study, args.a, args.b, cache);
    if (!j.ok()) return j.status().with_context(args.store);
    std::printf("%s\n", j->dump(2).c_str());
    return Status::Ok();
  }
  auto cases = study_origins(study, args.a, args.b, cache);
  if (!cases.ok()) return cases.status().with_context(args.store);
  if (args.csv) std::printf("a,b,case,first,node_index,node,op_type,remaining_precision\n");
  for (const auto& c : *cases) {
    for (const auto& po : c.pairs) {
      const std::string& a = po.a;
      const std::string& b = po.b;
      if (args.csv) {
        for (size_t k = 0; k < po.induced.size(); ++k) {
          const auto& o = po.induced[k];
          std::printf("%s,%s,%s,%d,%lld,%s,%s,%d\n", a.c_str(), b.c_str(), po.case_label.c_str(),
                      k == 0, static_cast<long long>(o.node_index), o.node.c_str(),
                      o.op_type.c_str(), o.remaining_precision);
        }
      } else {
        std::printf("%s vs %s on %s: %lld node(s) differ, %zu operator-induced, %lld propagated\n",
                    a.c_str(), b.c_str(), po.case_label.c_str(),
                    static_cast<long long>(po.differing), po.induced.size(),
                    static_cast<long long>(po.propagated));
        for (size_t k = 0; k < po.induced.size(); ++k) {
          const auto& o = po.induced[k];
          const std::string how =
              o.steps ? fmt::format("{} step(s) off in {:.3g}% of elements (step {:.3g}){}",
                                    steps_text(steps_json(o.steps->steps_max)),
                                    100 * o.steps->steps_share, o.steps->step,
                                    o.by_steps ? ", inputs within half a step" : "")
                      : fmt::format("RP {}", o.remaining_precision);
          const std::string group =
              o.covers.empty() ? ""
                               : fmt::format(" (untraced on one side, with {} nodes: {} ... {})",
                                             o.covers.size(), o.covers.front(), o.covers.back());
          std::printf("  %s #%lld %s '%s'%s %s, %s\n", k == 0 ? "origin " : "also   ",
                      static_cast<long long>(o.node_index), o.op_type.c_str(), o.node.c_str(),
                      group.c_str(), o.attributes.dump().c_str(), how.c_str());
        }
      }
    }
    if (args.csv) continue;
    for (const auto& s : c.splits) {
      std::printf("set split on %s at #%lld %s '%s': %zu -> %zu classes %s\n", s.case_label.c_str(),
                  static_cast<long long>(s.node.node_index), s.node.op_type.c_str(),
                  s.node.node.c_str(), s.before.classes.size(), s.after.classes.size(),
                  nlohmann::json(s.after.classes).dump().c_str());
    }
  }
  return Status::Ok();
}

}  // namespace

void add_origins_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<OriginsArgs>();
  auto* cmd = app.add_subcommand("origins", "Where divergences are born (per pair and per set)");
  cmd->add_option("--store", args->store, "Study store")->required();
  cmd->add_option("--model", args->model, "Only this model (name or hash prefix)");
  auto* a = cmd->add_option("--a", args->a, "First platform of the pair");
  cmd->add_option("--b", args->b, "Second platform of the pair")->needs(a);
  a->needs(cmd->get_option("--b"));
  auto* json = cmd->add_flag("--json", args->json, "Print as JSON");
  cmd->add_flag("--csv", args->csv, "Print pair origins as CSV")->excludes(json);
  cmd->add_flag("--oracle", args->oracle,
                "Per platform, where its error against the oracle is born (output error far "
                "beyond its inputs'), with the self-check's verdict")
      ->excludes(a);
  cmd->callback([args, &exit_code] {
    Status st = args->oracle ? run_oracle_origins(*args) : print_origins(*args);
    if (!st.ok()) {
      std::fprintf(stderr, "infergap origins: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    }
  });
}

void add_export_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::string store, node, output;
    int64_t run = 0;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("export", "Write one stored node output as .npy");
  cmd->add_option("--store", args->store, "Study store")->required();
  cmd->add_option("--run", args->run, "Run id (compare --json lists them)")->required();
  cmd->add_option("--node", args->node, "Value name, node name or node index")->required();
  cmd->add_option("-o,--output", args->output, ".npy file to write")->required();
  cmd->add_flag("--json", args->json, "Print what was written as JSON");
  cmd->callback([args, &exit_code] {
    Status st = [&]() -> Status {
      IG_ASSIGN_OR_RETURN(auto store, open_store_restoring(args->store, "export"));
      IG_RETURN_IF_ERROR(store->run(args->run).status());
      IG_ASSIGN_OR_RETURN(auto outs, store->outputs(args->run));
      IG_ASSIGN_OR_RETURN(StoredOutput o, find_output(outs, args->node, args->run));
      IG_ASSIGN_OR_RETURN(Tensor t, store->tensor(o.tensor));
      IG_RETURN_IF_ERROR(write_npy(t, args->output));
      nlohmann::json j{{"run", args->run},     {"value", o.value},
                       {"node", o.node},       {"node_index", o.node_index},
                       {"op_type", o.op_type}, {"dtype", dtype_name(t.dtype())},
                       {"shape", t.shape()},   {"output", args->output}};
      if (args->json) {
        std::printf("%s\n", j.dump(2).c_str());
      } else {
        std::printf("%s: %s of run %lld (%s)\n", args->output.c_str(), o.value.c_str(),
                    static_cast<long long>(args->run), t.describe().c_str());
      }
      return Status::Ok();
    }();
    if (!st.ok()) {
      std::fprintf(stderr, "infergap export: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace ig::cli
