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

namespace {

struct MutateArgs {
  std::string model, out;
  int64_t count = 10;
  uint64_t seed = 0;
  bool json = false, extract = false;
  int64_t per_node = 0;
  std::vector<std::string> inputs, shapes, dims;
};

void add_mutate_options(CLI::App* cmd, MutateArgs& a) {
  cmd->add_option("model", a.model, "Parent .onnx model")->required();
  cmd->add_option("--count", a.count, "Variants to write")->capture_default_str();
  cmd->add_option("--seed", a.seed, "Seed (same seed, same variants)")->capture_default_str();
  cmd->add_option("-o,--output", a.out, "Folder to write into (created)")->required();
  cmd->add_flag("--extract", a.extract,
                "One variant per node, fed the tensors that reached it (parent run on ref)");
  cmd->add_option("--per-node", a.per_node, "With --extract: mutated variants of each node")
      ->capture_default_str();
  cmd->add_option("--input", a.inputs, "With --extract: NAME=SPEC for the parent's run");
  add_sizing_options(cmd, &a.shapes, &a.dims);
  cmd->add_flag("--json", a.json, "Print the counts as JSON");
}

// The variants to write, how many were asked for, and the parent's open dims left at their
// default (--extract runs the parent).
struct Variants {
  MutateResult result;
  int64_t wanted = 0;
  nlohmann::json defaulted_dims = nlohmann::json::array();
};

// --extract: one variant per node, each followed by --per-node mutations of it; all are wanted.
Expected<Variants> extracted_variants(const MutateArgs& a) {
  IG_ASSIGN_OR_RETURN(
      const ExtractResult ex,
      extract_variants(a.model, InputRequest{a.inputs, a.shapes, a.dims, a.seed}, a.out));
  Variants v;
  std::vector<std::pair<std::string, DefaultedDim>> defaulted;
  for (const auto& d : ex.defaulted) defaulted.emplace_back(a.model, d);
  v.defaulted_dims = announce_defaulted("mutate", defaulted);
  MutateResult& r = v.result;
  r.discarded = ex.discarded;
  for (size_t i = 0; i < ex.variants.size(); ++i) {
    r.variants.push_back(ex.variants[i]);
    r.hashes.push_back(ex.hashes[i]);
    if (a.per_node <= 0) continue;
    MutateResult more = generate_variants(ex.variants[i], a.per_node,
                                          a.seed + 1000003 * static_cast<uint64_t>(i + 1));
    for (const auto& [reason, n] : more.discarded) r.discarded[reason] += n;
    r.variants.insert(r.variants.end(), more.variants.begin(), more.variants.end());
    r.hashes.insert(r.hashes.end(), more.hashes.begin(), more.hashes.end());
  }
  v.wanted = static_cast<int64_t>(r.variants.size());
  return v;
}

// Each variant as DIR/<content hash>.onnx; the paths written, in order.
Expected<nlohmann::json> write_variants(const MutateResult& r, const std::string& out) {
  nlohmann::json files = nlohmann::json::array();
  for (size_t i = 0; i < r.variants.size(); ++i) {
    const std::string path = (std::filesystem::path(out) / (r.hashes[i] + ".onnx")).string();
    IG_RETURN_IF_ERROR(save_model_proto(r.variants[i], path));
    files.push_back(path);
  }
  return files;
}

void print_written(const MutateArgs& a, const onnx::ModelProto& parent, const Variants& v,
                   const nlohmann::json& files) {
  const MutateResult& r = v.result;
  int64_t discarded = 0;
  for (const auto& [reason, n] : r.discarded) discarded += n;
  if (a.json) {
    std::printf("%s\n", nlohmann::json{{"parent", content_hash(parent)},
                                       {"written", files.size()},
                                       {"discarded", discarded},
                                       {"discarded_by_reason", r.discarded},
                                       {"defaulted_dims", v.defaulted_dims},
                                       {"files", files}}
                            .dump(2)
                            .c_str());
  } else {
    std::printf("wrote %zu variants of %s to %s; discarded %lld\n", files.size(), a.model.c_str(),
                a.out.c_str(), static_cast<long long>(discarded));
    for (const auto& [reason, n] : r.discarded)
      std::printf("  %lld x %s\n", static_cast<long long>(n), reason.c_str());
  }
}

Status run_mutate(const MutateArgs& a, int& exit_code) {
  if (a.count < 0) return invalid_argument("--count must be >= 0");
  IG_ASSIGN_OR_RETURN(const onnx::ModelProto parent, read_model_proto(a.model));
  if (Status st = check_model_proto(parent); !st.ok()) return st.with_context(a.model);
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) return io_error("{}: {}", a.out, ec.message());
  Variants v;
  if (a.extract) {
    IG_ASSIGN_OR_RETURN(v, extracted_variants(a));
  } else {
    v.result = generate_variants(parent, a.count, a.seed);
    v.wanted = a.count;
  }
  IG_ASSIGN_OR_RETURN(const nlohmann::json files, write_variants(v.result, a.out));
  print_written(a, parent, v, files);
  // Fewer than asked: the model offers too few valid mutations; say so through the exit code.
  if (static_cast<int64_t>(files.size()) < v.wanted) exit_code = kExitFailures;
  return Status::Ok();
}

}  // namespace

void add_mutate_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<MutateArgs>();
  auto* cmd = app.add_subcommand("mutate", "Synthesize checker-valid variants of an ONNX model");
  add_mutate_options(cmd, *a);
  cmd->callback([a, &exit_code] {
    if (Status st = run_mutate(*a, exit_code); !st.ok()) {
      std::fprintf(stderr, "infergap mutate: %s\n", st.message().c_str());
      exit_code = kExitBadInput;
    }
  });
}

}  // namespace ig::cli
