// infergap import DIR --store DB --platform LABEL --model M [--input NAME=SPEC...] [--seed S]
//   [--shape NAME=DIMS...] [--dim SYMBOL=SIZE...] [--host-tag T] [--repetition N] [--json]
// Outputs computed on a device infergap cannot run (study/import_run.h) become a run of the
// platform external:LABEL in the store, compared like any other.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/input_options.h"
#include "cli/limit_options.h"
#include "store/pg_store.h"
#include "study/import_run.h"

namespace ig::cli {

void add_import_command(CLI::App& app, int& exit_code) {
  struct Args {
    ImportOptions opt;
    std::string store = "infergap-study.db";
    std::string max_memory = "half of RAM";
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "import",
      "Store outputs computed elsewhere (.npy/.pb per ONNX value) as a run of platform "
      "external:LABEL");
  cmd->add_option("dir", args->opt.dir,
                  "Folder with one tensor per ONNX value (every graph output, optionally inner "
                  "values), file name = value name with '/' as %2F; optional " +
                      std::string(kImportManifest) + " describing the device")
      ->required();
  cmd->add_option("--store", args->store, "Study store (SQLite file)")->capture_default_str();
  cmd->add_option("--platform", args->opt.label,
                  "Label of the device, e.g. mps-m2; stored as external:LABEL")
      ->required();
  cmd->add_option("--model", args->opt.model, "The ONNX model the outputs were computed from")
      ->required();
  cmd->add_option("--input", args->opt.input.specs,
                  "NAME=SPEC, exactly as the study was given it, so the run joins the study's "
                  "case (inputs not given: seeded random data, as in a study)");
  cmd->add_option("--seed", args->opt.input.seed, "Seed for random inputs, as in the study")
      ->capture_default_str();
  add_sizing_options(cmd, &args->opt.input.shapes, &args->opt.input.dims);
  cmd->add_option("--host-tag", args->opt.host_tag,
                  "Added to the device's fingerprint, to tell apart identical devices");
  cmd->add_option("--repetition", args->opt.repetition,
                  "Repetition number, to import several runs of one device")
      ->capture_default_str();
  cmd->add_option("--max-memory", args->max_memory, "Memory budget for the model and tensors")
      ->check([](const std::string& text) -> std::string {
        auto bytes = parse_byte_size(text);
        return bytes.ok() ? "" : bytes.status().message();
      })
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print what was stored as JSON");
  cmd->callback([args, &exit_code] {
    auto fail = [&](const Status& st) {
      std::fprintf(stderr, "infergap import: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    };
    if (args->max_memory != "half of RAM")
      args->opt.max_memory_bytes = parse_byte_size(args->max_memory).value();
    auto store = Store::open(args->store);
    if (!store.ok()) return fail(store.status());
    auto summary = import_run(**store, args->opt);
    if (!summary.ok()) return fail(summary.status());
    if (Status st = (*store)->push_to_remote(); !st.ok()) return fail(st);
    nlohmann::json j{{"store", redact_url(args->store)},
                     {"platform", summary->platform},
                     {"host", summary->host},
                     {"model", summary->model},
                     {"input", summary->input},
                     {"outputs", summary->outputs},
                     {"layers", summary->layers},
                     {"ignored_files", summary->ignored}};
    if (args->json) {
      std::printf("%s\n", j.dump(2).c_str());
      return;
    }
    std::printf("%s: stored a run of %s (host %s): %lld graph output(s), %lld inner value(s)\n",
                redact_url(args->store).c_str(), summary->platform.c_str(), summary->host.c_str(),
                static_cast<long long>(summary->outputs), static_cast<long long>(summary->layers));
    for (const auto& f : summary->ignored)
      std::fprintf(stderr, "infergap import: note: ignored %s (not .npy or .pb)\n", f.c_str());
  });
}

}  // namespace ig::cli
