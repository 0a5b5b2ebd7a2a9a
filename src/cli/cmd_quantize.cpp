// infergap quantize MODEL -o Q.onnx [--input NAME=SPEC...] [--calibrate [NAME=]PATH...]
//   [--activations u8|s8] [--reduce-range] [--layout qdq|inputs] [--calibration
//   minmax|percentile[:P]] [--samples N]
//   [--seed S] [--block OPS|NODES] [--json]
// Writes a static QDQ int8 model (synth/quantize_model.h) calibrated on the reference backend.
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/input_options.h"
#include "workflow/derive_model.h"

namespace ig::cli {

namespace {

struct QuantizeArgs {
  std::string model, out, activations = "u8", calibration = "minmax", layout = "qdq";
  bool reduce_range = false, json = false;
  int64_t samples = 8;
  uint64_t seed = 0;
  std::vector<std::string> inputs, shapes, dims, calibrate, block;
};

void add_quantize_options(CLI::App* cmd, QuantizeArgs& a) {
  cmd->add_option("model", a.model, "Float .onnx model")->required();
  cmd->add_option("-o,--output", a.out, "The quantized .onnx to write")->required();
  cmd->add_option("--input", a.inputs,
                  "NAME=SPEC for the generated calibration samples (as `run`); sample k draws "
                  "its random values from the seed and k");
  cmd->add_option("--calibrate", a.calibrate,
                  "[NAME=]PATH: a .npy/.pb file or a folder of them, one calibration sample per "
                  "file (replaces --samples; repeatable for several inputs)");
  add_sizing_options(cmd, &a.shapes, &a.dims);
  cmd->add_option("--activations", a.activations,
                  "u8: asymmetric, zero point from [min,max] widened to 0 (ORT's default); s8: "
                  "symmetric, zero point 0")
      ->check(CLI::IsMember({"u8", "s8"}))
      ->capture_default_str();
  cmd->add_flag("--reduce-range", a.reduce_range, "Weights in 7 bits: |q| <= 63 instead of 127");
  cmd->add_option("--layout", a.layout,
                  "qdq: QDQ on the inputs and outputs of every quantized node (ONNX Runtime's "
                  "quantizer); inputs: QDQ on the inputs of Conv, Gemm and MatMul only, their "
                  "outputs left in float (TensorRT's explicit quantization, NVIDIA ModelOpt)")
      ->check(CLI::IsMember({"qdq", "inputs"}))
      ->capture_default_str();
  cmd->add_option("--calibration", a.calibration,
                  "minmax, or percentile[:P]: clip the range at the P-th percentile of |x| "
                  "(default 99.99)")
      ->capture_default_str();
  cmd->add_option("--samples", a.samples, "Generated calibration samples")->capture_default_str();
  cmd->add_option("--seed", a.seed, "Seed of the generated samples (same seed, same bytes)")
      ->capture_default_str();
  cmd->add_option("--block", a.block,
                  "Op types or node names to keep in float (comma-separated or repeated)")
      ->delimiter(',');
  cmd->add_flag("--json", a.json, "Print a summary as JSON");
  cmd->footer(
      "Quantized: Conv, Gemm and MatMul (int8 symmetric per-channel weights, int32 bias, QDQ on "
      "activations), Add and MaxPool/AveragePool/GlobalAveragePool (QDQ on inputs and "
      "outputs; with --layout inputs, only the inputs of Conv, Gemm and MatMul). A Relu or Clip "
      "that alone reads a quantized node's output stays in the graph "
      "and its output is quantized instead (ORT's quantizer removes it; runtimes fuse it).");
}

Expected<QuantizeOptions> options_of(const QuantizeArgs& a) {
  QuantizeOptions o;
  o.signed_activations = a.activations == "s8";
  o.reduce_range = a.reduce_range;
  o.inputs_only = a.layout == "inputs";
  if (a.calibration.rfind("percentile", 0) == 0 &&
      (a.calibration.size() == 10 || a.calibration[10] == ':')) {
    o.percentile = true;
    if (a.calibration.size() > 11) {
      try {
        o.percentile_value = std::stod(a.calibration.substr(11));
      } catch (const std::exception&) {
        return invalid_argument("--calibration {}: the percentile is not a number", a.calibration);
      }
      if (!(o.percentile_value > 0 && o.percentile_value <= 100))
        return invalid_argument("--calibration {}: the percentile must be in (0, 100]",
                                a.calibration);
    }
  } else if (a.calibration != "minmax") {
    return invalid_argument("--calibration must be minmax or percentile[:P], not '{}'",
                            a.calibration);
  }
  o.samples = a.samples;
  o.seed = a.seed;
  o.block = a.block;
  o.inputs = InputRequest{a.inputs, a.shapes, a.dims, a.seed};
  o.calibrate = a.calibrate;
  o.label = a.model;
  o.base_dir = std::filesystem::path(a.model).parent_path().string();
  o.progress = [](int64_t done, int64_t total) {
    std::fprintf(stderr, "infergap quantize: calibration sample %lld/%lld\n",
                 static_cast<long long>(done), static_cast<long long>(total));
  };
  return o;
}

Status run_quantize(const QuantizeArgs& a) {
  IG_ASSIGN_OR_RETURN(const QuantizeOptions o, options_of(a));
  IG_ASSIGN_OR_RETURN(const auto file, quantize_model_file(a.model, a.out, o));
  const QuantizeResult& r = file.result;
  if (a.json) {
    nlohmann::json acts = nlohmann::json::array();
    for (const auto& t : r.activations)
      acts.push_back({{"tensor", t.name},
                      {"min", t.min},
                      {"max", t.max},
                      {"scale", t.scale},
                      {"zero_point", t.zero_point}});
    std::printf("%s\n", nlohmann::json{{"model", a.model},
                                       {"output", a.out},
                                       {"parent", file.parent_hash},
                                       {"hash", file.hash},
                                       {"samples", r.samples},
                                       {"opset_raised", r.opset_raised},
                                       {"nodes_quantized", r.quantized_nodes.size()},
                                       {"nodes", r.quantized_nodes},
                                       {"folded", r.folded},
                                       {"weights", r.weights},
                                       {"weight_scales", r.weight_channels},
                                       {"biases", r.biases},
                                       {"activation_scales", r.activations.size()},
                                       {"activations", acts}}
                            .dump(2)
                            .c_str());
  } else {
    std::printf(
        "wrote %s: %zu nodes quantized, %zu activation scale/zero-point pairs, %lld weights "
        "(%lld channel scales), %lld int32 biases; %lld calibration samples%s\n",
        a.out.c_str(), r.quantized_nodes.size(), r.activations.size(),
        static_cast<long long>(r.weights), static_cast<long long>(r.weight_channels),
        static_cast<long long>(r.biases), static_cast<long long>(r.samples),
        r.opset_raised ? "; opset raised to 13" : "");
  }
  return Status::Ok();
}

}  // namespace

void add_quantize_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<QuantizeArgs>();
  auto* cmd = app.add_subcommand(
      "quantize", "Write a static int8 QDQ version of a float model, calibrated on ref");
  add_quantize_options(cmd, *a);
  cmd->callback([a, &exit_code] {
    if (Status st = run_quantize(*a); !st.ok()) {
      std::fprintf(stderr, "infergap quantize: %s\n", st.message().c_str());
      exit_code = exit_code_for(st);
    }
  });
}

}  // namespace ig::cli
