// Outputs computed elsewhere (a device infergap cannot run here: a phone, Apple MPS, a ROCm GPU)
// become a run of an external platform, compared like any other (docs/FORMATS.md "Imported
// outputs"). The folder holds one tensor per ONNX value (.npy or .pb), the graph outputs at least,
// and optionally infergap-import.json describing the device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "inputs/inputs.h"
#include "store/store.h"

namespace ig {

inline constexpr const char* kImportManifest = "infergap-import.json";
inline constexpr const char* kExternalFamily = "external";

struct ImportOptions {
  std::string model;   // the ONNX file the outputs were computed from
  InputRequest input;  // the inputs they were computed on, as a study takes them
  std::string dir;     // the folder of tensors
  std::string label;   // the platform: stored as "external:LABEL"
  std::string host_tag;
  int repetition = 0;
  uint64_t max_memory_bytes = 0;  // model/limits.h; 0: default_memory_budget()
};

struct ImportSummary {
  std::string platform, host, model, input;
  int64_t outputs = 0, layers = 0;
  std::vector<std::string> ignored;  // files in the folder that are not tensors
};

// Checks the folder against the model (every graph output present; every tensor names a value of
// the model, with the model's dtype and, where declared, shape) and stores one run. Nothing is
// stored on any error; a run already stored under that key is an error too.
Expected<ImportSummary> import_run(Store& store, const ImportOptions& options);

// The platform spec an import is stored under; the label must be a plain name.
Expected<std::string> external_platform(const std::string& label);

// A tensor file's value name: .npy stems are percent-decoded ("%2F" is '/'), as the helper
// script writes them.
std::string decode_value_file_stem(const std::string& stem);

}  // namespace ig
