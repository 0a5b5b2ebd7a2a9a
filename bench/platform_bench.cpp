// Whole-run cost per platform through the worker processes (what a study pays per run), per
// model: ONNX Runtime opt=all untraced (the baseline), oneDNN untraced and traced (every layer
// hashed and streamed back), ONNX Runtime traced, the reference backend in fp32 with its
// convolutions and matrix products on OpenBLAS, and the reference backend with an emulated
// accumulation order. Benchmarks are named Platform/<model>/<what>. Needs $INFERGAP_WORKER
// (scripts/bench sets it) or infergap-worker next to this binary.
#include <benchmark/benchmark.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "inputs/random_input.h"
#include "model/model_identity.h"
#include "model/onnx_model.h"
#include "platform/registry.h"
#include "synth/quantize_model.h"
#include "synth/zoo.h"
#include "tensor/hash.h"
#include "worker/worker_pool.h"

namespace ig {
namespace {

struct BenchModel {
  const char* label;  // in benchmark names
  const char* zoo;    // zoo architecture
  int64_t size;       // input height = width
  bool int8 = false;  // quantized by `infergap quantize` (static QDQ, u8 activations)
};

// ResNet-18: the zoo's Cifar10-R18 has a 3x3 stride-1 stem and one 2x2 pooling, so at 112x112
// its four stages run on 56, 28, 14 and 7 pixels with torchvision ResNet-18's channel counts, as
// torchvision's does at 224x224 (only the stem differs: 3x3 instead of 7x7 stride 2 + max pool).
const BenchModel kModels[] = {
    {"resnet18_32", "Cifar10-R18", 32},
    {"resnet18_112", "Cifar10-R18", 112},
    {"resnet50_224", "DeepWeeds-R50v2", 224},
    {"mobilenet_v2_224", "MobileNetV2", 224},
    {"vit_tiny_32", "ViT-tiny", 32},
    // Its int8 model: every Conv and Gemm an integer group where the platform has kernels.
    {"resnet18_112_int8", "Cifar10-R18", 112, true},
};

struct BenchPlatform {
  const char* label;
  const char* spec;
  bool traced;
};

const BenchPlatform kPlatforms[] = {
    {"ort_all_untraced_baseline", "ort:opt=all,threads=1", false},
    {"onednn_untraced", "onednn:threads=1,fallback=ref", false},
    {"onednn_traced", "onednn:threads=1,fallback=ref", true},
    // The plain-layout path: normalization, eltwise and pooling on row-major tensors.
    {"onednn_plain_untraced", "onednn:threads=1,fallback=ref,layout=plain", false},
    {"onednn_plain_traced", "onednn:threads=1,fallback=ref,layout=plain", true},
    // Batch norm as oneDNN's own primitive, not the convolution's post-ops (bn=postops).
    {"onednn_bnprim_untraced", "onednn:threads=1,fallback=ref,bn=primitive", false},
    {"onednn_bnprim_traced", "onednn:threads=1,fallback=ref,bn=primitive", true},
    // A residual Add as a binary post-op, not oneDNN's sum post-op (residual=sum).
    {"onednn_binres_untraced", "onednn:threads=1,fallback=ref,residual=binary", false},
    {"onednn_binres_traced", "onednn:threads=1,fallback=ref,residual=binary", true},
    {"ort_all_traced", "ort:opt=all,threads=1", true},
    // PyPI's ORT in python: the same capture through another binding (node copies every output
    // into a JavaScript array).
    {"ort131_untraced", "ort:opt=all,threads=1,version=1.31", false},
    {"ort131_traced", "ort:opt=all,threads=1,version=1.31", true},
    {"ref_blas_openblas", "blas:lib=openblas,threads=1", false},
    {"ref_lanes8", "ref:acc=lanes8", false},
};

struct Prepared {
  std::string path;
  std::string input;
};

WorkerPool& pool() {
  static WorkerPool p{WorkerPoolOptions{}};
  return p;
}

// Builds each zoo model once per process into the temp directory.
Expected<Prepared> model_file(const BenchModel& m) {
  static std::map<std::string, Prepared> built;
  if (auto it = built.find(m.label); it != built.end()) return it->second;
  ZooOptions o;
  o.image_size = m.size;
  IG_ASSIGN_OR_RETURN(auto proto, build_zoo_model(m.zoo, o));
  if (m.int8) {
    QuantizeOptions q;
    q.samples = 2;
    IG_ASSIGN_OR_RETURN(auto quantized, quantize_model(proto, q));
    proto = std::move(quantized.model);
  }
  Prepared p;
  p.path = (std::filesystem::temp_directory_path() /
            (std::string("infergap-bench-") + m.label + ".onnx"))
               .string();
  p.input = proto.graph().input(0).name();
  IG_RETURN_IF_ERROR(save_model_proto(proto, p.path));
  // A file younger than kRacySeconds is compared by content on every run (ModelVersion); a
  // study's model files are older than that, so the benchmark waits as long.
  std::this_thread::sleep_for(std::chrono::duration<double>(kRacySeconds));
  return built[m.label] = p;
}

void BM_Platform(benchmark::State& state, BenchModel m, BenchPlatform p) {
  auto model = model_file(m);
  if (!model.ok()) {
    state.SkipWithError(model.status().message().c_str());
    return;
  }
  RunRequest req;
  req.platform = p.spec;
  req.model_path = model->path;
  req.inputs[model->input] = random_uniform_tensor(DType::kFloat32, {1, 3, m.size, m.size}, 1);
  req.capture.all_layers = p.traced;
  req.capture.keep_tensors = false;
  const RunResult warm = pool().run(req);  // starts the worker and loads the model once
  if (warm.verdict != Verdict::kOk) {
    state.SkipWithError((std::string(verdict_name(warm.verdict)) + ": " + warm.reason).c_str());
    return;
  }
  for (auto _ : state) {
    RunResult r = pool().run(req);
    benchmark::DoNotOptimize(r);
  }
  state.counters["layers"] = static_cast<double>(warm.trace.size());
}

// What every run pays before any platform computes: the worker reads, checks and converts the
// model file (run_with_backend loads it per run).
void BM_LoadModel(benchmark::State& state, BenchModel m) {
  auto model = model_file(m);
  if (!model.ok()) {
    state.SkipWithError(model.status().message().c_str());
    return;
  }
  for (auto _ : state) {
    auto loaded = load_model(model->path);
    if (!loaded.ok()) state.SkipWithError(loaded.status().message().c_str());
    benchmark::DoNotOptimize(loaded);
  }
}

// The platform's own computation: the backend in this process on a model loaded once, without
// worker, protocol or model loading.
void BM_InProcess(benchmark::State& state, BenchModel m, BenchPlatform p) {
  auto file = model_file(m);
  if (!file.ok()) {
    state.SkipWithError(file.status().message().c_str());
    return;
  }
  auto model = load_model(file->path);
  auto backend = make_backend(*parse_platform_spec(p.spec));
  if (!model.ok() || !backend.ok()) {
    state.SkipWithError("cannot load the model or make the backend");
    return;
  }
  const std::map<std::string, Tensor> feeds = {
      {file->input, random_uniform_tensor(DType::kFloat32, {1, 3, m.size, m.size}, 1)}};
  auto hash_all = [](const Node&, const std::vector<Value>& outs) {
    for (const auto& v : outs)
      if (v.is_tensor()) benchmark::DoNotOptimize(tensor_hash(v.tensor));
  };
  NodeCallback trace = p.traced ? NodeCallback(hash_all) : NodeCallback();
  if (!(*backend)->run(*model, feeds, trace).ok()) {
    state.SkipWithError("run failed");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize((*backend)->run(*model, feeds, trace));
}

// Registered at startup so that --benchmark_filter selects models and platforms by name.
const bool kRegistered = [] {
  for (const auto& m : kModels) {
    benchmark::RegisterBenchmark((std::string("Platform/") + m.label + "/load_model").c_str(),
                                 [m](benchmark::State& s) { BM_LoadModel(s, m); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    for (const auto& p : kPlatforms) {
      if (std::string(p.label).rfind("onednn", 0) == 0) {
        benchmark::RegisterBenchmark((std::string("InProcess/") + m.label + "/" + p.label).c_str(),
                                     [m, p](benchmark::State& s) { BM_InProcess(s, m, p); })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
      benchmark::RegisterBenchmark((std::string("Platform/") + m.label + "/" + p.label).c_str(),
                                   [m, p](benchmark::State& s) { BM_Platform(s, m, p); })
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  }
  return true;
}();

}  // namespace
}  // namespace ig
