#include "workflow/triage.h"

#include <set>

#include <filesystem>

#include "analysis/triage/index.h"
#include "analysis/triage/markdown.h"
#include "worker/probe.h"
#include "worker/worker_pool.h"

namespace ig {

namespace fs = std::filesystem;

namespace {

void say(const TriagePlan& plan, const std::string& line) {
  if (plan.progress) plan.progress(line);
}

// Rewrites a known finding's README.md with the grown counts (its folder's files stay).
Status refresh_readme(const std::string& dir, const nlohmann::json& entry) {
  const fs::path folder = fs::path(dir) / entry.value("folder", std::string());
  if (!fs::exists(folder)) return Status::Ok();
  std::FILE* f = std::fopen((folder / "README.md").string().c_str(), "w");
  if (!f) return io_error("{}: cannot write README.md", folder.string());
  const std::string md = triage::finding_readme(entry);
  std::fwrite(md.data(), 1, md.size(), f);
  std::fclose(f);
  return Status::Ok();
}

}  // namespace

Expected<TriageOutcome> run_triage(const TriagePlan& given) {
  TriagePlan plan = given;
  {
    // The knob tables say which platform spec is the eager mode of which (ort opt, oneDNN fuse).
    WorkerPool pool(WorkerPoolOptions{.worker_executable = "", .isolate = true});
    IG_ASSIGN_OR_RETURN(const Catalog catalog, read_catalog(pool.worker_executable()));
    plan.options.analysis.knobs = catalog.knobs;
  }
  IG_ASSIGN_OR_RETURN(auto store, Store::open(plan.store_path));
  IG_ASSIGN_OR_RETURN(const auto findings, triage::find_findings(*store, plan.options));
  std::error_code ec;
  fs::create_directories(plan.out_dir, ec);
  if (ec) return io_error("{}: {}", plan.out_dir, ec.message());
  TriageOutcome out;
  IG_ASSIGN_OR_RETURN(out.index, triage::read_index(plan.out_dir));
  say(plan, fmt::format("{} finding signature(s) in {}", findings.size(), plan.store_path));
  // (kind, operator) that plain ref itself shows; a fused group by its first operator, attributes
  // aside, so that oneDNN's Conv+Relu meets ref's Conv (leaning to "not a defect", never to
  // inventing one).
  auto base_op = [](const std::string& op) { return op.substr(0, op.find_first_of("+[ ")); };
  std::set<std::pair<std::string, std::string>> in_ref;
  for (const auto& f : findings)  // the plain fp32 reference, not a knob such as ref:nan=ignore
    if (f.platforms().count("ref")) in_ref.insert({f.kind, base_op(f.op)});
  for (const auto& f : findings) {
    if (nlohmann::json* known = triage::find_entry(out.index, f.signature)) {
      triage::count_again(*known, f);
      // Judged again with today's rules from the kept explain summary and rewrite evidence:
      // verdicts do not go stale, and a rerun does not lose what the first run established.
      (*known)["judgement"] =
          judge_finding(*store, f, *known, in_ref.count({f.kind, base_op(f.op)}) != 0);
      IG_RETURN_IF_ERROR(refresh_readme(plan.out_dir, *known));
      ++out.known_findings;
      continue;
    }
    nlohmann::json entry = triage::new_entry(f, triage::next_id(out.index));
    say(plan, fmt::format("{}: {} ({} variant(s))", entry["id"].get<std::string>(), f.signature,
                          f.variants().size()));
    IG_RETURN_IF_ERROR(
        write_finding_folder(*store, plan, f, in_ref.count({f.kind, base_op(f.op)}) != 0, entry));
    out.index["findings"].push_back(std::move(entry));
    ++out.new_findings;
    // Written after every finding: an interrupted triage keeps what it finished.
    IG_RETURN_IF_ERROR(triage::write_index(plan.out_dir, out.index));
  }
  IG_RETURN_IF_ERROR(triage::write_index(plan.out_dir, out.index));
  return out;
}

}  // namespace ig
