// The sequence `convert` and `quantize` run on a file: read the float parent, check it, derive
// the model, record its parent (infergap.parent, model/parent_record.h) and save it.
#pragma once

#include <string>

#include "synth/convert_precision.h"
#include "synth/quantize_model.h"

namespace ig {

// What was written, with the content hashes of the parent and of the derived model.
template <typename Result>
struct DerivedFile {
  Result result;
  std::string parent_hash, hash;
};

Expected<DerivedFile<ConvertResult>> convert_model_file(const std::string& model,
                                                        const std::string& out,
                                                        const ConvertOptions& options);
Expected<DerivedFile<QuantizeResult>> quantize_model_file(const std::string& model,
                                                          const std::string& out,
                                                          const QuantizeOptions& options);

}  // namespace ig
