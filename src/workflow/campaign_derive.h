// `campaign --derive int8,fp16,bf16`: each campaign model's derived models, written beside the
// store before the campaign runs them like its other variants. int8 is `infergap quantize`
// (synth/quantize_model.h) calibrated on the very input set the campaign runs the parent on;
// fp16 and bf16 are `infergap convert` (synth/convert_precision.h) with float32 graph inputs and
// outputs, so the derived model reads the parent's inputs and its outputs compare with the
// parent's. Every derived model carries that input set (inputs/variant_inputs.h), its lineage and
// its parent file's hash (model/parent_record.h): the analysis pairs it with the parent's run on
// the same platform and input. Same models and seed, same bytes.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace ig {

// "int8,fp16" (repeatable, comma-separated) -> {"int8", "fp16"}, in the order given, without
// repeats; anything else is an error naming the value and the accepted ones.
Expected<std::vector<std::string>> parse_derive_kinds(const std::vector<std::string>& values);

struct DeriveRequest {
  std::vector<std::string> kinds;  // parse_derive_kinds's
  std::string dir;                 // where the derived models and their inputs are written
  // The campaign's input options: a model's own inputs, else seeded random data sized by these.
  uint64_t seed = 0;
  std::vector<std::string> shapes, dims;
};

struct DerivedModels {
  std::vector<std::string> paths;          // written, in the models' order then the kinds'
  std::map<std::string, int64_t> made;     // kind -> derived models written
  std::map<std::string, int64_t> skipped;  // kind -> models it could not derive
  std::vector<std::string> why;            // "MODEL (kind): reason", one per skipped model
};

// Derives every model of `models` in each kind. A model that cannot be derived (nothing to
// quantize, already quantized, control flow) is skipped with the reason (and `note`d); a derived
// model itself is left as it is; an unreadable model or a folder that cannot be written is an
// error.
Expected<DerivedModels> derive_campaign_models(const std::vector<std::string>& models,
                                               const DeriveRequest& request,
                                               const std::function<void(const std::string&)>& note);

// The folder `campaign --derive` writes into by default: `<store without extension>-derived`
// beside a SQLite store.
std::string default_derive_dir(const std::string& store_path);

// `models` with the derived ones appended, each once: a rerun over a folder holding the derive
// dir finds them already among the models.
std::vector<std::string> with_derived_models(std::vector<std::string> models,
                                             const DerivedModels& derived);

}  // namespace ig
