// Calibration for quantize_model: the float model runs on the reference backend over seeded or
// given samples while a node callback folds every watched tensor into its min/max and, for the
// percentile method, a histogram of |x|.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "backends/ref/ref_backend.h"
#include "backends/ref/ref_opsets.h"
#include "inputs/rng.h"
#include "model/onnx_model.h"
#include "synth/quantize_model.h"

namespace ig {

namespace fs = std::filesystem;

namespace {

// Min/max and a histogram of |x| over [0, top) whose range doubles (merging bin pairs, so counts
// stay exact) when a larger value arrives: the result does not depend on the sample order's
// first maximum the way a fixed range would.
struct Stats {
  static constexpr size_t kBins = 2048;
  double min = INFINITY, max = -INFINITY;
  double top = 0;
  std::vector<uint64_t> bins;
  uint64_t count = 0;

  void add_range(double lo, double hi) {
    min = std::min(min, lo);
    max = std::max(max, hi);
  }
  void grow(double a) {
    if (bins.empty()) {
      bins.assign(kBins, 0);
      top = a > 0 ? a : 1e-30;
    }
    while (a >= top) {
      for (size_t i = 0; i < kBins / 2; ++i) bins[i] = bins[2 * i] + bins[2 * i + 1];
      std::fill(bins.begin() + kBins / 2, bins.end(), 0);
      top *= 2;
    }
  }
  void add_abs(double a) {
    auto i = static_cast<size_t>(a / top * kBins);
    ++bins[std::min(i, kBins - 1)];
    ++count;
  }
  // The |x| below which `p` percent of the values lie (the upper edge of that bin).
  double percentile(double p) const {
    if (count == 0) return 0;
    const double want = p / 100.0 * static_cast<double>(count);
    uint64_t seen = 0;
    for (size_t i = 0; i < kBins; ++i) {
      seen += bins[i];
      if (static_cast<double>(seen) >= want) return top * static_cast<double>(i + 1) / kBins;
    }
    return top;
  }
};

void observe(Stats& s, const Tensor& t, bool histogram) {
  if (!t.defined() || t.numel() == 0 || t.dtype() != DType::kFloat32 || !t.raw()) return;
  const auto v = t.values<float>();
  double lo = INFINITY, hi = -INFINITY, amax = 0;
  for (float x : v) {
    if (!std::isfinite(x)) continue;
    lo = std::min<double>(lo, x);
    hi = std::max<double>(hi, x);
    amax = std::max<double>(amax, std::fabs(x));
  }
  if (lo > hi) return;  // nothing finite
  s.add_range(lo, hi);
  if (!histogram) return;
  s.grow(amax);
  for (float x : v)
    if (std::isfinite(x)) s.add_abs(std::fabs(x));
}

// --calibrate [NAME=]PATH expanded: input name -> its files, one per sample.
Expected<std::map<std::string, std::vector<std::string>>> calibration_files(
    const Model& model, const QuantizeOptions& o) {
  std::map<std::string, std::vector<std::string>> files;
  for (const std::string& arg : o.calibrate) {
    std::string name, path = arg;
    if (auto eq = arg.find('='); eq != std::string::npos && !fs::exists(arg)) {
      name = arg.substr(0, eq);
      path = arg.substr(eq + 1);
    }
    if (name.empty()) {
      const auto inputs = model.graph.runtime_inputs();
      if (inputs.size() != 1)
        return invalid_argument("--calibrate {}: the model has {} inputs; write NAME=PATH", arg,
                                inputs.size());
      name = inputs[0]->name;
    }
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<std::string> found;
      for (const auto& e : fs::directory_iterator(path, ec)) {
        const auto ext = e.path().extension().string();
        if (e.is_regular_file() && (ext == ".npy" || ext == ".pb")) found.push_back(e.path());
      }
      std::sort(found.begin(), found.end());
      if (found.empty()) return invalid_argument("--calibrate {}: no .npy or .pb files", path);
      files[name].insert(files[name].end(), found.begin(), found.end());
    } else if (fs::is_regular_file(path, ec)) {
      files[name].push_back(path);
    } else {
      return not_found("--calibrate {}: no such file or folder", path);
    }
  }
  size_t n = 0;
  for (const auto& [name, list] : files) {
    if (n != 0 && list.size() != n)
      return invalid_argument("--calibrate: input '{}' has {} files, another has {}", name,
                              list.size(), n);
    n = list.size();
  }
  return files;
}

// A calibration file whose tensor contradicts the input's declared rank or fixed dims.
Status check_file_shape(const Model& model, const std::string& name,
                        const std::vector<NamedInput>& inputs, const std::string& file) {
  for (const auto* info : model.graph.runtime_inputs()) {
    if (info->name != name || !info->has_shape) continue;
    for (const auto& in : inputs) {
      if (in.name != name) continue;
      const Shape& got = in.tensor.shape();
      bool fits = got.size() == info->dims.size();
      for (size_t d = 0; fits && d < got.size(); ++d)
        fits = info->dims[d].value < 0 || info->dims[d].value == got[d];
      if (!fits)
        return invalid_argument("calibration file {} holds {} but input '{}' of {} is {}", file,
                                in.tensor.describe(), name, model.path, info->describe());
    }
  }
  return Status::Ok();
}

}  // namespace

Expected<std::map<std::string, TensorRange>> calibrate_ranges(const onnx::ModelProto& proto,
                                                              const std::vector<std::string>& names,
                                                              const QuantizeOptions& o,
                                                              int64_t* samples_run) {
  onnx::ModelProto copy = proto;
  LoadOptions load;
  load.onnx_in_this_process = true;  // the caller already ran the checker on this proto
  IG_ASSIGN_OR_RETURN(Model model, model_from_proto(copy, o.label, o.base_dir, load));
  IG_RETURN_IF_ERROR(check_ref_opsets(model));
  IG_ASSIGN_OR_RETURN(const auto files, calibration_files(model, o));
  const int64_t n = files.empty() ? o.samples : static_cast<int64_t>(files.begin()->second.size());
  if (n <= 0) return invalid_argument("--samples must be at least 1");
  const std::set<std::string> watched(names.begin(), names.end());
  std::map<std::string, Stats> stats;
  RefBackend ref;
  for (int64_t k = 0; k < n; ++k) {
    InputRequest req = o.inputs;
    req.seed = derive_seed(o.seed, "calibration/" + std::to_string(k));
    for (const auto& [name, list] : files)
      req.specs.push_back(name + "=file:" + list[static_cast<size_t>(k)]);
    auto gathered = gather_inputs(model, req);
    if (!gathered.ok()) {
      std::string which;
      for (const auto& [name, list] : files) which += " " + list[static_cast<size_t>(k)];
      return gathered.status().with_context(
          which.empty() ? "calibration sample " + std::to_string(k) : "calibration file" + which);
    }
    for (const auto& [name, list] : files)
      IG_RETURN_IF_ERROR(
          check_file_shape(model, name, gathered->inputs, list[static_cast<size_t>(k)]));
    std::map<std::string, Tensor> feeds;
    for (const auto& in : gathered->inputs) {
      feeds[in.name] = in.tensor;
      if (watched.count(in.name)) observe(stats[in.name], in.tensor, o.percentile);
    }
    auto run = ref.run(model, feeds, [&](const Node& node, const std::vector<Value>& outs) {
      for (size_t i = 0; i < outs.size() && i < node.outputs.size(); ++i)
        if (outs[i].is_tensor() && watched.count(node.outputs[i]))
          observe(stats[node.outputs[i]], outs[i].tensor, o.percentile);
    });
    if (!run.ok())
      return invalid_argument("{}: the float model does not run on ref for calibration: {}",
                              o.label, run.status().message());
    if (o.progress) o.progress(k + 1, n);
  }
  std::map<std::string, TensorRange> out;
  for (const auto& name : names) {
    auto it = stats.find(name);
    if (it == stats.end() || it->second.min > it->second.max) {
      out[name] = {0, 0};  // never seen finite: scale 1, zero point 0
      continue;
    }
    TensorRange r{it->second.min, it->second.max};
    if (o.percentile) {
      const double t = it->second.percentile(o.percentile_value);
      r.min = std::max(r.min, -t);
      r.max = std::min(r.max, t);
    }
    out[name] = r;
  }
  *samples_run = n;
  return out;
}

}  // namespace ig
