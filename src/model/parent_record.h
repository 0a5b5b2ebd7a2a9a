// Where a derived model (`infergap quantize`, `convert`, `campaign --derive`) came from, as a file:
// metadata_props key infergap.parent holds {"hash": XXH3-64 of the parent file's bytes, "file":
// the parent's path relative to the derived model's folder}. The lineage (synth/mutate.h) names
// the parent by the hash of its serialised proto, which a file written by another tool need not
// match; this record names the very file a study stores under that hash.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <optional>
#include <string>

#include "core/status.h"

namespace ig {

inline constexpr const char* kParentKey = "infergap.parent";

struct ParentRecord {
  std::string hash;  // model_file_hash of the parent
  std::string file;  // relative to the derived model's folder
};

// XXH3-64 of the file's bytes as 16 hex digits (the hash a study stores a model under), read in
// pieces so a large model is not held whole.
Expected<std::string> model_file_hash(const std::string& path);

// Records the parent (replacing an earlier record).
void stamp_parent(onnx::ModelProto& model, const ParentRecord& parent);
// Records the file `parent_path` as the parent of the model about to be written to `out_path`.
Status stamp_parent_file(onnx::ModelProto& model, const std::string& parent_path,
                         const std::string& out_path);
// The record in a model's metadata (Model::metadata or the proto's); nullopt when absent or
// malformed.
std::optional<ParentRecord> parent_record(const std::map<std::string, std::string>& metadata);
std::optional<ParentRecord> parent_record(const onnx::ModelProto& model);

// The parent a derived model records, looked for where the record allows: beside the model
// (its file name in the model's folder) or at the recorded relative path if that stays inside the
// model's folder. Used only when its bytes hash to the recorded hash.
struct ParentLookup {
  std::string path;     // the parent found; "" when none is usable
  std::string found;    // "MODEL: parent found by lineage: PATH (hash H)" when found
  std::string missing;  // why the recorded parent is not used ("" when found or none recorded)
  // The line to tell the user when the model is used alone or with the parent found; "" when
  // the model records no parent.
  std::string note() const;
};
ParentLookup find_recorded_parent(const std::string& derived_path);

}  // namespace ig
