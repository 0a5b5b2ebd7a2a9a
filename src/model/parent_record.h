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
// The record in a model's metadata (Model::metadata or the proto's); nullopt when absent or
// malformed.
std::optional<ParentRecord> parent_record(const std::map<std::string, std::string>& metadata);
std::optional<ParentRecord> parent_record(const onnx::ModelProto& model);

}  // namespace ig
