#include "study/import_run.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>

#include "model/limits.h"
#include "model/npy.h"
#include "model/tensor_proto.h"
#include "platform/spec.h"
#include "study/study.h"
#include "tensor/hash.h"
#include "worker/host_fingerprint.h"

namespace ig {

namespace fs = std::filesystem;

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Where a value comes from in the model: its producer and declared type, if any.
struct ValueSite {
  const Node* producer = nullptr;  // nullptr for graph inputs and initializers
  const ValueInfo* declared = nullptr;
  int output_position = -1;  // index among the graph outputs
};

std::map<std::string, ValueSite> value_sites(const Model& model) {
  std::map<std::string, ValueSite> sites;
  const Graph& g = model.graph;
  for (const auto& in : g.inputs) sites[in.name].declared = &in;
  for (const auto& [name, info] : g.value_info) sites[name].declared = &info;
  for (const auto& n : g.nodes)
    for (const auto& out : n.outputs)
      if (!out.empty()) sites[out].producer = &n;
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    sites[g.outputs[i].name].declared = &g.outputs[i];
    sites[g.outputs[i].name].output_position = static_cast<int>(i);
  }
  return sites;
}

struct FoundTensor {
  std::string file, value;
  Tensor tensor;
};

// Reads every .npy/.pb in `dir` (not recursing), each inside the folder after resolving links.
Expected<std::vector<FoundTensor>> read_folder(const std::string& dir, uint64_t budget,
                                               std::vector<std::string>& ignored) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return io_error("{}: not a folder", dir);
  const fs::path base = fs::canonical(dir, ec);
  if (ec) return io_error("{}: {}", dir, ec.message());
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(base, ec)) files.push_back(entry.path());
  if (ec) return io_error("{}: {}", dir, ec.message());
  std::sort(files.begin(), files.end());
  std::vector<FoundTensor> found;
  std::map<std::string, std::string> file_of_value;
  uint64_t total = 0;
  for (const auto& path : files) {
    const std::string ext = path.extension().string();
    const std::string name = path.filename().string();
    if (name == kImportManifest) continue;
    if (ext != ".npy" && ext != ".pb") {
      ignored.push_back(name);
      continue;
    }
    const fs::path real = fs::canonical(path, ec);
    if (ec) return io_error("{}: {}", path.string(), ec.message());
    const fs::path rel = real.lexically_relative(base);
    if (rel.empty() || *rel.begin() == "..")
      return invalid_argument("{}: links to '{}', outside the folder", path.string(),
                              real.string());
    if (!fs::is_regular_file(real, ec)) return invalid_argument("{}: not a file", path.string());
    const uint64_t size = fs::file_size(real, ec);
    if (ec) return io_error("{}: {}", path.string(), ec.message());
    total += size;
    if (total > budget)
      return invalid_argument("{}: the folder's tensors exceed the memory budget of {}", dir,
                              describe_bytes(budget));
    IG_ASSIGN_OR_RETURN(std::string bytes, read_file_bytes(real.string(), budget));
    FoundTensor t{path.string(), decode_value_file_stem(path.stem().string()), {}};
    if (ext == ".npy") {
      IG_ASSIGN_OR_RETURN(t.tensor, parse_npy(bytes, t.file));
    } else {
      std::string proto_name;
      IG_ASSIGN_OR_RETURN(t.tensor, parse_tensor_pb(bytes, t.file, &proto_name));
      if (!proto_name.empty()) t.value = proto_name;
    }
    if (auto [it, fresh] = file_of_value.emplace(t.value, t.file); !fresh)
      return invalid_argument("{} and {} both hold value '{}'", it->second, t.file, t.value);
    found.push_back(std::move(t));
  }
  return found;
}

// The device's own description (infergap-import.json), kept in the host's fingerprint.
Expected<nlohmann::json> read_manifest(const std::string& dir) {
  const fs::path path = fs::path(dir) / kImportManifest;
  std::error_code ec;
  if (!fs::exists(path, ec)) return nlohmann::json::object();
  IG_ASSIGN_OR_RETURN(std::string bytes, read_file_bytes(path.string(), uint64_t{1} << 20));
  auto j = nlohmann::json::parse(bytes, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return parse_error("{}: not a JSON object", path.string());
  return j;
}

std::string dims_text(const ValueInfo& info) {
  std::string out = "[";
  for (size_t i = 0; i < info.dims.size(); ++i) {
    if (i > 0) out += ",";
    out += info.dims[i].value >= 0 ? std::to_string(info.dims[i].value) : "?";
  }
  return out + "]";
}

// The tensor as the model declares the value, or an error naming the file, value and mismatch.
Expected<Tensor> checked_tensor(const FoundTensor& t, const ValueInfo* declared) {
  if (declared == nullptr || declared->dtype == DType::kUndefined) return t.tensor;
  // .npy has no bfloat16: such values come as float32 and must convert exactly.
  const bool widened = t.tensor.dtype() == DType::kFloat32 &&
                       (declared->dtype == DType::kBFloat16 || declared->dtype == DType::kFloat16);
  if (t.tensor.dtype() != declared->dtype && !widened) {
    return invalid_argument("{}: value '{}' is {} in the model, the file holds {}", t.file, t.value,
                            dtype_name(declared->dtype), dtype_name(t.tensor.dtype()));
  }
  IG_ASSIGN_OR_RETURN(Tensor out, npy_to_dtype(t.tensor, declared->dtype, t.file));
  if (!declared->has_shape) return out;
  const Shape& shape = out.shape();
  bool fits = shape.size() == declared->dims.size();
  for (size_t i = 0; fits && i < shape.size(); ++i)
    fits = declared->dims[i].value < 0 || declared->dims[i].value == shape[i];
  if (!fits) {
    return invalid_argument("{}: value '{}' has shape {} in the model, the file holds {}", t.file,
                            t.value, dims_text(*declared), shape_json(shape));
  }
  return out;
}

}  // namespace

std::string decode_value_file_stem(const std::string& stem) {
  std::string out;
  for (size_t i = 0; i < stem.size(); ++i) {
    if (stem[i] == '%' && i + 2 < stem.size()) {
      const int hi = hex_digit(stem[i + 1]), lo = hex_digit(stem[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += stem[i];
  }
  return out;
}

Expected<std::string> external_platform(const std::string& label) {
  const bool plain = !label.empty() && std::all_of(label.begin(), label.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
  if (!plain) {
    return invalid_argument(
        "platform label '{}' must be a plain name (letters, digits, '-', '_', '.'), e.g. "
        "mps-m2 or rocm-mi250",
        label);
  }
  return std::string(kExternalFamily) + ":" + label;
}

Expected<ImportSummary> import_run(Store& store, const ImportOptions& options) {
  ImportSummary summary;
  IG_ASSIGN_OR_RETURN(summary.platform, external_platform(options.label));
  if (options.repetition < 0) return invalid_argument("import: --repetition must be >= 0");
  LoadOptions load;
  load.max_memory_bytes = options.max_memory_bytes;
  const uint64_t budget =
      options.max_memory_bytes > 0 ? options.max_memory_bytes : default_memory_budget();
  IG_ASSIGN_OR_RETURN(ModelEntry model, load_model_entry(options.model, load));
  IG_ASSIGN_OR_RETURN(PreparedInput input, prepare_input(model.model, options.input));
  IG_ASSIGN_OR_RETURN(nlohmann::json manifest, read_manifest(options.dir));
  IG_ASSIGN_OR_RETURN(auto found, read_folder(options.dir, budget, summary.ignored));

  const auto sites = value_sites(model.model);
  RunResult result;
  result.verdict = Verdict::kOk;
  result.reason = "imported from " + fs::absolute(options.dir).string();
  std::vector<std::optional<TracedTensor>> outputs(model.model.graph.outputs.size());
  for (auto& t : found) {
    auto it = sites.find(t.value);
    if (it == sites.end() || (it->second.producer == nullptr && it->second.output_position < 0)) {
      return invalid_argument(
          "{}: '{}' is not a value computed by {} (file names are ONNX "
          "value names, '/' written as %2F)",
          t.file, t.value, options.model);
    }
    IG_ASSIGN_OR_RETURN(Tensor tensor, checked_tensor(t, it->second.declared));
    TracedTensor row = traced_value(t.value, it->second.producer, std::move(tensor), true);
    if (it->second.output_position >= 0) {
      outputs[static_cast<size_t>(it->second.output_position)] = std::move(row);
    } else {
      result.trace.push_back(std::move(row));
    }
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = model.model.graph.outputs[i].name;
    if (!outputs[i]) {
      return invalid_argument(
          "{}: no tensor for graph output '{}' of {} (expected {}.npy or "
          "{}.pb)",
          options.dir, name, options.model, name, name);
    }
    result.outputs.push_back(std::move(*outputs[i]));
  }
  std::sort(result.trace.begin(), result.trace.end(),
            [](const auto& a, const auto& b) { return a.node_index < b.node_index; });

  nlohmann::json fingerprint{{"external", manifest}, {"label", options.label}};
  if (!options.host_tag.empty()) fingerprint["tag"] = options.host_tag;
  summary.host = fingerprint_id(fingerprint);
  summary.model = model.hash;
  summary.input = input.entry.hash;
  summary.outputs = static_cast<int64_t>(result.outputs.size());
  summary.layers = static_cast<int64_t>(result.trace.size());

  const RunKey key{model.hash, input.entry.hash, summary.platform, summary.host,
                   options.repetition};
  IG_ASSIGN_OR_RETURN(auto stored, store.run_keys(summary.host));
  if (stored.count(key)) {
    return invalid_argument("{}: {} already has a run of {} on {} (repetition {}); nothing written",
                            store.path(), options.model, summary.platform, input.stored.label,
                            options.repetition);
  }
  IG_RETURN_IF_ERROR(store.put_host({summary.host, fingerprint}));
  IG_RETURN_IF_ERROR(store.put_platform(summary.platform, summary.host));
  IG_RETURN_IF_ERROR(store_model(store, model));
  IG_RETURN_IF_ERROR(store.put_input(input.stored, input.tensors));
  IG_RETURN_IF_ERROR(store.put_run(key, result).status());
  return summary;
}

}  // namespace ig
