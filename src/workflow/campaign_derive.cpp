#include "workflow/campaign_derive.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "core/strings.h"
#include "inputs/inputs.h"
#include "inputs/variant_inputs.h"
#include "model/onnx_model.h"
#include "model/parent_record.h"
#include "model/tensor_proto.h"
#include "synth/convert_precision.h"
#include "synth/mutate.h"
#include "synth/quantize_model.h"

namespace ig {

namespace fs = std::filesystem;

namespace {

// int8-inputs: `quantize --layout inputs` (QDQ on the inputs of Conv, Gemm and MatMul only).
const std::vector<std::string> kKinds = {"int8", "int8-inputs", "fp16", "bf16"};

// The campaign's input set of the parent, written once as .pb files under DIR/inputs (named by
// content, so rewriting them is harmless): the derived models carry them and int8 calibrates on
// them.
struct ParentInputs {
  std::map<std::string, std::string> specs;  // input -> file:inputs/HASH.pb (relative to DIR)
  std::vector<std::string> calibrate;        // NAME=ABSOLUTE.pb
};

Expected<ParentInputs> write_parent_inputs(const std::string& path, const DeriveRequest& r) {
  IG_ASSIGN_OR_RETURN(const Model model, load_model(path));
  IG_ASSIGN_OR_RETURN(std::vector<std::string> own, variant_input_specs(path, model));
  IG_ASSIGN_OR_RETURN(const GatheredInputs gathered,
                      gather_inputs(model, InputRequest{own, r.shapes, r.dims, r.seed}));
  ParentInputs out;
  const fs::path dir = fs::path(r.dir) / "inputs";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return io_error("--derive: cannot create {}: {}", dir.string(), ec.message());
  for (const auto& in : gathered.inputs) {
    const std::string file = in.hash + ".pb";
    const std::string abs = fs::absolute(dir / file).string();
    IG_RETURN_IF_ERROR(write_tensor_pb(in.tensor, in.name, abs));
    out.specs[in.name] = "file:inputs/" + file;
    out.calibrate.push_back(in.name + "=" + abs);
  }
  return out;
}

Expected<onnx::ModelProto> derive_one(const onnx::ModelProto& parent, const std::string& kind,
                                      const std::string& path, const ParentInputs& inputs,
                                      const DeriveRequest& r) {
  const std::string base_dir = fs::path(path).parent_path().string();
  if (kind == "int8" || kind == "int8-inputs") {
    QuantizeOptions o;
    o.inputs_only = kind == "int8-inputs";
    o.calibrate = inputs.calibrate;
    o.seed = r.seed;
    o.label = path;
    o.base_dir = base_dir;
    IG_ASSIGN_OR_RETURN(QuantizeResult q, quantize_model(parent, o));
    return std::move(q.model);
  }
  ConvertOptions o;
  IG_ASSIGN_OR_RETURN(o.to, parse_precision(kind));
  o.keep_io = true;  // the parent's inputs in, outputs comparable with the parent's
  o.label = path;
  o.base_dir = base_dir;
  IG_ASSIGN_OR_RETURN(ConvertResult c, convert_precision(parent, o));
  return std::move(c.model);
}

// A model made by quantize, convert or --derive.
bool is_derived(const onnx::ModelProto& m) {
  if (parent_record(m)) return true;
  if (auto lin = lineage_from_model(m); lin.ok())
    for (const auto& mut : lin->mutations)
      if (mut.kind == "quantize" || mut.kind == "convert") return true;
  return false;
}

}  // namespace

Expected<std::vector<std::string>> parse_derive_kinds(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& value : values) {
    size_t from = 0;
    while (from <= value.size()) {
      const size_t comma = std::min(value.find(',', from), value.size());
      const std::string k = value.substr(from, comma - from);
      from = comma + 1;
      if (std::find(kKinds.begin(), kKinds.end(), k) == kKinds.end())
        return invalid_argument(
            "--derive '{}': '{}' is not a derivation (int8, int8-inputs, fp16 or bf16)", value, k);
      if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
    }
  }
  if (out.empty()) return invalid_argument("--derive: name int8, int8-inputs, fp16 or bf16");
  return out;
}

std::string default_derive_dir(const std::string& store_path) {
  fs::path p(store_path);
  return (p.parent_path() / (p.stem().string() + "-derived")).string();
}

Expected<DerivedModels> derive_campaign_models(
    const std::vector<std::string>& models, const DeriveRequest& request,
    const std::function<void(const std::string&)>& note) {
  DerivedModels out;
  std::set<std::string> names;  // file names written, so two parents of one stem stay apart
  auto skip = [&](const std::string& model, const std::string& kind, std::string why) {
    ++out.skipped[kind];
    if (why.rfind(model + ": ", 0) == 0) why = why.substr(model.size() + 2);  // named once
    out.why.push_back(model + " (" + kind + "): " + why);
    if (note) note("campaign --derive: " + out.why.back());
  };
  for (const auto& path : models) {
    IG_ASSIGN_OR_RETURN(const onnx::ModelProto parent, read_model_proto(path));
    // A derived model among the campaign's models (a --derive-dir passed to --models) runs as it
    // is; deriving it again would stack precisions.
    if (is_derived(parent)) continue;
    IG_ASSIGN_OR_RETURN(const std::string parent_hash, model_file_hash(path));
    auto inputs = write_parent_inputs(path, request);
    if (!inputs.ok()) return inputs.status().with_context(path);
    std::string stem = fs::path(path).stem().string();
    if (names.count(stem + "." + request.kinds.front() + ".onnx"))
      stem += "-" + parent_hash.substr(0, 8);
    for (const auto& kind : request.kinds) {
      auto derived = derive_one(parent, kind, path, *inputs, request);
      if (!derived.ok()) {
        skip(path, kind, derived.status().message());
        continue;
      }
      set_variant_inputs(*derived, inputs->specs);
      const std::string name = stem + "." + kind + ".onnx";
      const std::string file = (fs::path(request.dir) / name).string();
      IG_RETURN_IF_ERROR(stamp_parent_file(*derived, path, file));
      IG_RETURN_IF_ERROR(save_model_proto(*derived, file));
      names.insert(name);
      out.paths.push_back(file);
      ++out.made[kind];
    }
  }
  return out;
}

std::vector<std::string> with_derived_models(std::vector<std::string> models,
                                             const DerivedModels& derived) {
  for (const auto& d : derived.paths) {
    const auto same = [&](const std::string& m) { return same_path(m, d); };
    if (std::none_of(models.begin(), models.end(), same)) models.push_back(d);
  }
  return models;
}

}  // namespace ig
