// What `infergap hosts record` and `hosts compare` run. A record is the fixed host study (the
// default study's two zoo models on its three demo images, every layer traced, on the platforms
// of preset `host`: each CPU-dispatching library at its own default plus pinned ISA levels, the
// reference interpreter as a control, and the fp64 oracle) reduced to bits per platform and case
// (analysis/host_records.h), written as one JSON per kind of machine into a folder.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/host_records.h"
#include "workflow/study.h"

namespace ig {

struct HostRecordRequest {
  std::string dir;                              // the folder of records (experiments/hosts)
  std::vector<std::string> presets = {"host"};  // the host study's platforms
  std::vector<std::string> platforms;           // more platforms, beside the presets
};

struct HostRecordOutcome {
  HostRecord record;
  std::string file;  // the record's file in the folder
  // "new": written; "identical": an earlier record of this host had the same bits, replaced by
  // this one; "updated": the same bits but where a platform's library or version changed
  // (upgraded), replaced by this one; "nondeterministic": a platform with the same library gave
  // other bits, the earlier record is kept.
  std::string status;
  std::vector<std::string> differing;        // platforms whose bits differ (nondeterministic)
  std::vector<std::string> library_changed;  // platforms whose library or version changed
  StudySummary summary;                      // of the host study
};

Expected<HostRecordOutcome> record_host(const HostRecordRequest& request, const StudyHooks& hooks);

// Every record (*.json) of a folder, each checked (analysis/host_records.h); two records of one
// host are an error naming both files. `files`, when given, receives each record's file.
Expected<std::vector<HostRecord>> read_host_records(const std::string& dir,
                                                    std::vector<std::string>* files = nullptr);

// The file name of a record: vendor, microarchitecture (or CPU family/model) and id.
std::string host_record_file_name(const HostRecord& r);

}  // namespace ig
