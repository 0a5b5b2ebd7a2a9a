// infergap mutate MODEL --count N --seed S -o DIR [--json]
// infergap mutate MODEL --extract [--per-node K] [--input NAME=SPEC...] [--shape NAME=DIMS...]
//   [--dim SYMBOL=SIZE...] --seed S -o DIR [--json]
// Writes N checker-valid variants of MODEL named <content hash>.onnx, each carrying its lineage;
// with --extract, one single-node variant per node fed its captured inputs (DIR/inputs/*.pb), and
// K further mutations of each.
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/input_options.h"
#include "model/onnx_model.h"
#include "synth/extract.h"
#include "synth/mutate.h"

namespace ig::cli {

void add_mutate_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::string model, out;
    int64_t count = 10;
    uint64_t seed = 0;
    bool json = false, extract = false;
    int64_t per_node = 0;
    std::vector<std::string> inputs, shapes, dims;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("mutate", "Synthesize checker-valid variants of an ONNX model");
  cmd->add_option("model", a->model, "Parent .onnx model")->required();
  cmd->add_option("--count", a->count, "Variants to write")->capture_default_str();
  cmd->add_option("--seed", a->seed, "Seed (same seed, same variants)")->capture_default_str();
  cmd->add_option("-o,--output", a->out, "Folder to write into (created)")->required();
  cmd->add_flag("--extract", a->extract,
                "One variant per node, fed the tensors that reached it (parent run on ref)");
  cmd->add_option("--per-node", a->per_node, "With --extract: mutated variants of each node")
      ->capture_default_str();
  cmd->add_option("--input", a->inputs, "With --extract: NAME=SPEC for the parent's run");
  add_sizing_options(cmd, &a->shapes, &a->dims);
  cmd->add_flag("--json", a->json, "Print the counts as JSON");
  cmd->callback([a, &exit_code] {
    auto fail = [&](const Status& st) {
      std::fprintf(stderr, "infergap mutate: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    };
    if (a->count < 0) return fail(invalid_argument("--count must be >= 0"));
    auto parent = read_model_proto(a->model);
    if (!parent.ok()) return fail(parent.status());
    if (Status st = check_model_proto(*parent); !st.ok()) return fail(st.with_context(a->model));
    std::error_code ec;
    std::filesystem::create_directories(a->out, ec);
    if (ec) return fail(io_error("{}: {}", a->out, ec.message()));
    MutateResult r;
    nlohmann::json defaulted_dims = nlohmann::json::array();
    if (a->extract) {
      auto ex =
          extract_variants(a->model, InputRequest{a->inputs, a->shapes, a->dims, a->seed}, a->out);
      if (!ex.ok()) return fail(ex.status());
      std::vector<std::pair<std::string, DefaultedDim>> defaulted;
      for (const auto& d : ex->defaulted) defaulted.emplace_back(a->model, d);
      defaulted_dims = announce_defaulted("mutate", defaulted);
      r.discarded = ex->discarded;
      for (size_t i = 0; i < ex->variants.size(); ++i) {
        r.variants.push_back(ex->variants[i]);
        r.hashes.push_back(ex->hashes[i]);
        if (a->per_node <= 0) continue;
        MutateResult more = generate_variants(ex->variants[i], a->per_node,
                                              a->seed + 1000003 * static_cast<uint64_t>(i + 1));
        for (const auto& [reason, n] : more.discarded) r.discarded[reason] += n;
        r.variants.insert(r.variants.end(), more.variants.begin(), more.variants.end());
        r.hashes.insert(r.hashes.end(), more.hashes.begin(), more.hashes.end());
      }
      a->count = static_cast<int64_t>(r.variants.size());
    } else {
      r = generate_variants(*parent, a->count, a->seed);
    }
    nlohmann::json files = nlohmann::json::array();
    for (size_t i = 0; i < r.variants.size(); ++i) {
      const std::string path = (std::filesystem::path(a->out) / (r.hashes[i] + ".onnx")).string();
      if (Status st = save_model_proto(r.variants[i], path); !st.ok()) return fail(st);
      files.push_back(path);
    }
    int64_t discarded = 0;
    for (const auto& [reason, n] : r.discarded) discarded += n;
    if (a->json) {
      std::printf("%s\n", nlohmann::json{{"parent", content_hash(*parent)},
                                         {"written", files.size()},
                                         {"discarded", discarded},
                                         {"discarded_by_reason", r.discarded},
                                         {"defaulted_dims", defaulted_dims},
                                         {"files", files}}
                              .dump(2)
                              .c_str());
    } else {
      std::printf("wrote %zu variants of %s to %s; discarded %lld\n", files.size(),
                  a->model.c_str(), a->out.c_str(), static_cast<long long>(discarded));
      for (const auto& [reason, n] : r.discarded)
        std::printf("  %lld x %s\n", static_cast<long long>(n), reason.c_str());
    }
    // Fewer than asked: the model offers too few valid mutations; say so through the exit code.
    if (static_cast<int64_t>(files.size()) < a->count) exit_code = kExitFailures;
  });
}

}  // namespace ig::cli
