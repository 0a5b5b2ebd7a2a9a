#include "workflow/derive_model.h"

#include "model/onnx_model.h"
#include "model/parent_record.h"
#include "synth/mutate.h"

namespace ig {

namespace {

template <typename Result, typename Derive>
Expected<DerivedFile<Result>> derive_file(const std::string& model, const std::string& out,
                                          Derive&& derive) {
  IG_ASSIGN_OR_RETURN(const onnx::ModelProto parent, read_model_proto(model));
  if (Status st = check_model_proto(parent); !st.ok()) return st.with_context(model);
  IG_ASSIGN_OR_RETURN(Result r, derive(parent));
  IG_RETURN_IF_ERROR(stamp_parent_file(r.model, model, out));
  IG_RETURN_IF_ERROR(save_model_proto(r.model, out));
  DerivedFile<Result> file{std::move(r), content_hash(parent), ""};
  file.hash = content_hash(file.result.model);
  return file;
}

}  // namespace

Expected<DerivedFile<ConvertResult>> convert_model_file(const std::string& model,
                                                        const std::string& out,
                                                        const ConvertOptions& options) {
  return derive_file<ConvertResult>(
      model, out, [&](const onnx::ModelProto& m) { return convert_precision(m, options); });
}

Expected<DerivedFile<QuantizeResult>> quantize_model_file(const std::string& model,
                                                          const std::string& out,
                                                          const QuantizeOptions& options) {
  return derive_file<QuantizeResult>(
      model, out, [&](const onnx::ModelProto& m) { return quantize_model(m, options); });
}

}  // namespace ig
