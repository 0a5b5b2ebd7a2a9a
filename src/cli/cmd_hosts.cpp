// infergap hosts record -o DIR [-p SPEC...] [--json]
// infergap hosts compare DIR [--json]
// A record per kind of machine of the bits each platform computes on a fixed host study, and the
// CPU flags that split those bits across the recorded hosts (docs/HOSTS.md).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "core/strings.h"
#include "views/progress.h"
#include "workflow/hosts.h"

namespace ig::cli {

namespace {

struct RecordArgs {
  std::string dir;
  std::vector<std::string> platforms;
  bool json = false;
};

Status run_record(const RecordArgs& a, int& exit_code) {
  ProgressBar bar("host study");
  StudyHooks hooks;
  hooks.progress = [&](const StudyProgress& p) {
    bar.update(p.done, p.total, p.executed, p.current);
  };
  hooks.note = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  HostRecordRequest request;
  request.dir = a.dir;
  request.platforms = a.platforms;
  IG_ASSIGN_OR_RETURN(const HostRecordOutcome out, record_host(request, hooks));
  bar.finish();
  const HostRecord& r = out.record;
  if (out.status == "nondeterministic") exit_code = kExitFailures;
  if (a.json) {
    std::printf("%s\n", nlohmann::json{{"file", out.file},
                                       {"status", out.status},
                                       {"differing", out.differing},
                                       {"library_changed", out.library_changed},
                                       {"host", host_record_json(r)["host"]},
                                       {"runs", out.summary.total}}
                            .dump(2)
                            .c_str());
    return Status::Ok();
  }
  std::printf("host %s: %s %s (%s, family %d model %d stepping %d), %zu dispatch flags\n",
              r.id.c_str(), r.cpu.vendor.c_str(), r.cpu.name.c_str(),
              r.cpu.microarchitecture.empty() ? "microarchitecture not in the table"
                                              : r.cpu.microarchitecture.c_str(),
              r.cpu.family, r.cpu.model, r.cpu.stepping, r.cpu.flags.size());
  for (const auto& p : r.platforms)
    std::printf("  %-48s %s\n", p.spec.c_str(),
                p.verdict == "ok" ? (std::to_string(p.cases.size()) + " case(s)").c_str()
                                  : p.verdict.c_str());
  if (out.status == "new") std::printf("wrote %s\n", out.file.c_str());
  if (out.status == "identical")
    std::printf("%s: the bits are those of the earlier record of this host; rewritten\n",
                out.file.c_str());
  if (out.status == "updated")
    std::printf(
        "%s: rewritten; the library or version of %s changed since the earlier record (its bits "
        "are not compared), the other platforms' bits are those of the earlier record\n",
        out.file.c_str(), join_names(out.library_changed).c_str());
  if (out.status == "nondeterministic")
    std::printf(
        "%s kept: this host's bits differ from its earlier record on %s; the host is "
        "nondeterministic there (or its software changed: compare the records' \"software\")\n",
        out.file.c_str(), join_names(out.differing).c_str());
  return Status::Ok();
}

Status run_compare(const std::string& dir, bool json) {
  IG_ASSIGN_OR_RETURN(std::vector<HostRecord> records, read_host_records(dir));
  if (records.empty()) return not_found("{}: no host records (infergap hosts record -o DIR)", dir);
  const HostsComparison c = compare_host_records(std::move(records));
  if (json) {
    std::printf("%s\n", hosts_comparison_json(c).dump(2).c_str());
    return Status::Ok();
  }
  std::printf("%zu host(s):\n", c.hosts.size());
  for (const auto& h : c.hosts)
    std::printf("  %s  %s %s (%s), %zu dispatch flags\n", h.id.c_str(), h.cpu.vendor.c_str(),
                h.cpu.name.c_str(),
                h.cpu.microarchitecture.empty() ? "?" : h.cpu.microarchitecture.c_str(),
                h.cpu.flags.size());
  std::printf(
      "Per platform: classes of identical bits across the hosts, and the CPU flags that\n"
      "separate them (confidence: how many hosts and flag sets support it)\n");
  for (const auto& p : c.platforms) {
    std::string classes;
    for (const auto& cls : p.classes) classes += (classes.empty() ? "" : " | ") + join_names(cls);
    std::printf("  %-48s %zu class(es): %s\n", p.spec.c_str(), p.classes.size(), classes.c_str());
    std::string versions;
    for (const auto& v : p.library_versions) versions += (versions.empty() ? "" : " | ") + v;
    if (p.confidence == "library") {
      std::printf("    split by: the library's version, %s (the CPUs are not compared on it)\n",
                  versions.c_str());
    } else if (p.classes.size() > 1) {
      if (!versions.empty()) std::printf("    library versions by class: %s\n", versions.c_str());
      std::printf(
          "    split by: %s (confidence %s%s)\n",
          p.split_by.empty() ? "no set of up to three flags" : join_names(p.split_by).c_str(),
          p.confidence.c_str(),
          p.alternatives.empty()
              ? ""
              : (", " + std::to_string(p.alternatives.size()) + " other set(s) fit too").c_str());
    }
    if (!p.hosts_without.empty())
      std::printf("    not run on: %s\n", join_names(p.hosts_without).c_str());
  }
  return Status::Ok();
}

}  // namespace

void add_hosts_command(CLI::App& app, int& exit_code) {
  auto* hosts = app.add_subcommand(
      "hosts", "Record this machine's bits on a fixed host study; compare recorded hosts");
  hosts->require_subcommand(1);
  auto rec = std::make_shared<RecordArgs>();
  auto* record = hosts->add_subcommand(
      "record", "Run the host study (preset host) and write this host's record into a folder");
  record->add_option("-o,--output", rec->dir, "Folder of host records (e.g. experiments/hosts)")
      ->required();
  record->add_option("-p,--platform", rec->platforms, "More platforms beside preset host");
  record->add_flag("--json", rec->json, "Print the outcome as JSON");
  record->callback([rec, &exit_code] {
    if (Status st = run_record(*rec, exit_code); !st.ok()) {
      std::fprintf(stderr, "infergap hosts record: %s\n", st.message().c_str());
      exit_code = exit_code_for(st);
    }
  });
  auto dir = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto* compare = hosts->add_subcommand(
      "compare",
      "Per platform: classes of bits across the recorded hosts and the flags that split them");
  compare->add_option("dir", *dir, "Folder of host records")->required();
  compare->add_flag("--json", *json, "Print as JSON");
  compare->callback([dir, json, &exit_code] {
    if (Status st = run_compare(*dir, *json); !st.ok()) {
      std::fprintf(stderr, "infergap hosts compare: %s\n", st.message().c_str());
      exit_code = exit_code_for(st);
    }
  });
}

}  // namespace ig::cli
