// Writes the fuzzers' seed corpora from Debian's ONNX backend test data (libonnx-testdata):
// models for fuzz_onnx_model, input/output .pb files for fuzz_tensor_proto, the same tensors as
// .npy and as worker messages, and platform specs. Generated, never committed.
//   fuzz_seeds DATA_DIR OUT_DIR [MAX_PER_TARGET]
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "model/npy.h"
#include "model/tensor_proto.h"
#include "worker/protocol.h"

namespace fs = std::filesystem;

namespace {

// Every k-th of `files`, so that a capped corpus still spans all the operators.
std::vector<fs::path> spread(std::vector<fs::path> files, size_t max) {
  std::sort(files.begin(), files.end());
  if (files.size() <= max) return files;
  std::vector<fs::path> out;
  for (size_t i = 0; i < max; ++i) out.push_back(files[i * files.size() / max]);
  return out;
}

bool put(const fs::path& dir, size_t n, const std::string& bytes) {
  return ig::write_file_bytes((dir / ("seed" + std::to_string(n))).string(), bytes).ok();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: fuzz_seeds DATA_DIR OUT_DIR [MAX_PER_TARGET]\n");
    return 2;
  }
  const fs::path data = argv[1];
  const fs::path out = argv[2];
  const size_t max = argc > 3 ? std::stoul(argv[3]) : 100000;
  std::vector<fs::path> models, tensors;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(data, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == "model.onnx") models.push_back(it->path());
    if (it->path().extension() == ".pb") tensors.push_back(it->path());
  }
  if (ec || models.empty()) {
    std::fprintf(stderr, "fuzz_seeds: no ONNX test data under %s (apt install libonnx-testdata)\n",
                 argv[1]);
    return 1;
  }
  for (const char* t : {"fuzz_onnx_model", "fuzz_tensor_proto", "fuzz_npy", "fuzz_platform_spec",
                        "fuzz_worker_protocol"}) {
    fs::create_directories(out / t);
  }
  size_t n = 0;
  for (const auto& m : spread(models, max)) {
    auto bytes = ig::read_file_bytes(m.string(), uint64_t{1} << 20);  // large models fuzz slowly
    if (bytes.ok()) put(out / "fuzz_onnx_model", n++, *bytes);
  }
  size_t pb = 0, npy = 0, msg = 0;
  for (const auto& p : spread(tensors, max)) {
    auto bytes = ig::read_file_bytes(p.string(), uint64_t{1} << 20);
    if (!bytes.ok()) continue;
    put(out / "fuzz_tensor_proto", pb++, *bytes);
    std::string name;
    auto t = ig::parse_tensor_pb(*bytes, p.string(), &name);
    if (!t.ok()) continue;
    if (t->dtype() != ig::DType::kString) put(out / "fuzz_npy", npy++, ig::encode_npy(*t));
    ig::RunRequest req;
    req.platform = "ref:acc=lanes8";
    req.model_path = "model.onnx";
    req.inputs[name] = *t;
    ig::TracedTensor traced;
    traced.value = name;
    traced.node = "n0";
    traced.op_type = "Relu";
    traced.dtype = t->dtype();
    traced.shape = t->shape();
    traced.tensor = *t;
    ig::RunResult res;
    res.verdict = ig::Verdict::kOk;
    res.rejections.push_back({"n1", "Conv", 1, "no kernel"});
    res.outputs.push_back(traced);
    put(out / "fuzz_worker_protocol", msg++, '\0' + ig::wire::encode_request(req));
    put(out / "fuzz_worker_protocol", msg++, '\1' + ig::wire::encode_result(res, {}));
    put(out / "fuzz_worker_protocol", msg++, '\2' + ig::wire::encode_traced(traced));
  }
  put(out / "fuzz_worker_protocol", msg++,
      '\3' + ig::wire::encode_status(ig::invalid_argument("model.onnx: bad")));
  size_t spec = 0;
  for (const char* s : {"ref", "ref:acc=lanes16", "ref:fma=on,conv=winograd4", "ref:dtype=fp64",
                        "onednn:isa=avx2,threads=1", "blas:core=Haswell,lib=openblas,threads=1",
                        "opencv:disable=AVX512-SKX+AVX2", "ort:opt=disabled,threads=1"}) {
    put(out / "fuzz_platform_spec", spec++, s);
  }
  std::printf("seeds: %zu models, %zu .pb, %zu .npy, %zu worker messages, %zu specs\n", n, pb, npy,
              msg, spec);
  return 0;
}
