#include "backends/blas/blas_library.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <mutex>

#include "core/strings.h"

namespace ig {

namespace {

constexpr int kCblasRowMajor = 101;
constexpr int kCblasNoTrans = 111;
template <typename T>
using CblasGemm = void (*)(int, int, int, int, int, int, T, const T*, int, const T*, int, T, T*,
                           int);

// Only one library per process, so one pointer each.
CblasGemm<float> g_cblas_sgemm = nullptr;
CblasGemm<double> g_cblas_dgemm = nullptr;

template <typename T>
void gemm_through_cblas(CblasGemm<T> gemm, int64_t M, int64_t N, int64_t K, const T* A, int64_t lda,
                        const T* B, int64_t ldb, T* C, int64_t ldc) {
  gemm(kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, static_cast<int>(M), static_cast<int>(N),
       static_cast<int>(K), T(1), A, static_cast<int>(lda), B, static_cast<int>(ldb), T(0), C,
       static_cast<int>(ldc));
}

void sgemm_through_cblas(int64_t M, int64_t N, int64_t K, const float* A, int64_t lda,
                         const float* B, int64_t ldb, float* C, int64_t ldc) {
  gemm_through_cblas(g_cblas_sgemm, M, N, K, A, lda, B, ldb, C, ldc);
}

void dgemm_through_cblas(int64_t M, int64_t N, int64_t K, const double* A, int64_t lda,
                         const double* B, int64_t ldb, double* C, int64_t ldc) {
  gemm_through_cblas(g_cblas_dgemm, M, N, K, A, lda, B, ldb, C, ldc);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

#ifndef INFERGAP_LIBDIR
#define INFERGAP_LIBDIR "/usr/lib/x86_64-linux-gnu"
#endif

// The pthread builds, named by path: the bare soname goes through Debian's alternatives, which
// may point at another threading variant.
std::vector<std::string> candidates(const std::string& lib) {
  if (lib == "openblas")
    return {INFERGAP_LIBDIR "/openblas-pthread/libopenblas.so.0", "libopenblas.so.0"};
  return {INFERGAP_LIBDIR "/blis-pthread/libblis.so.4", "libblis.so.4"};
}

Expected<BlasLibrary> load(const BlasChoice& choice) {
  void* handle = nullptr;
  std::string tried;
  BlasLibrary lib;
  for (const auto& path : candidates(choice.lib)) {
    // DEEPBIND: BLIS's cblas_sgemm calls sgemm_, which would otherwise bind to the libblas.so.3
    // that OpenCV (linked into the same worker) brings into the global scope.
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (handle) {
      lib.path = path;
      break;
    }
    tried += std::string(tried.empty() ? "" : "; ") + dlerror();
  }
  if (!handle) {
    return unsupported("blas: cannot load {} ({}); install {}", choice.lib, tried,
                       choice.lib == "openblas" ? "libopenblas0-pthread" : "libblis4-pthread");
  }
  g_cblas_sgemm = reinterpret_cast<CblasGemm<float>>(dlsym(handle, "cblas_sgemm"));
  g_cblas_dgemm = reinterpret_cast<CblasGemm<double>>(dlsym(handle, "cblas_dgemm"));
  if (!g_cblas_sgemm || !g_cblas_dgemm)
    return unsupported("blas: {} exports no cblas_sgemm or cblas_dgemm", lib.path);
  lib.sgemm = sgemm_through_cblas;
  lib.dgemm = dgemm_through_cblas;
  if (choice.lib == "openblas") {
    auto corename = reinterpret_cast<char* (*)()>(dlsym(handle, "openblas_get_corename"));
    auto set_threads = reinterpret_cast<void (*)(int)>(dlsym(handle, "openblas_set_num_threads"));
    if (!corename || !set_threads) return unsupported("blas: {} is not OpenBLAS", lib.path);
    lib.active = corename();
    lib.name = "OpenBLAS";
    // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Zen MAX_THREADS=64": the second word.
    if (auto config = reinterpret_cast<char* (*)()>(dlsym(handle, "openblas_get_config"))) {
      const std::string text = config();
      const size_t start = text.find(' ') + 1;
      lib.version = text.substr(start, text.find(' ', start) - start);
    }
    set_threads(choice.threads);
  } else {
    // bli_init first: before it, BLIS 0.9 checks BLIS_ARCH_TYPE against a context table that is
    // not filled yet and aborts for every value.
    auto init = reinterpret_cast<void (*)()>(dlsym(handle, "bli_init"));
    auto arch_id = reinterpret_cast<int (*)()>(dlsym(handle, "bli_arch_query_id"));
    auto arch_string = reinterpret_cast<const char* (*)(int)>(dlsym(handle, "bli_arch_string"));
    auto set_threads =
        reinterpret_cast<void (*)(int64_t)>(dlsym(handle, "bli_thread_set_num_threads"));
    if (!init || !arch_id || !arch_string || !set_threads) {
      return unsupported("blas: {} is not BLIS", lib.path);
    }
    init();
    lib.active = arch_string(arch_id());
    lib.name = "BLIS";
    if (auto version =
            reinterpret_cast<const char* (*)()>(dlsym(handle, "bli_info_get_version_str")))
      lib.version = version();
    set_threads(choice.threads);
  }
  return lib;
}

}  // namespace

const std::vector<std::string>& openblas_core_names() {
  static const std::vector<std::string> kNames = {
      "Prescott",    "Core2",       "Penryn",  "Dunnington", "Nehalem",
      "Atom",        "Sandybridge", "Haswell", "SkylakeX",   "Cooperlake",
      "Opteron",     "Barcelona",   "Bobcat",  "Bulldozer",  "Piledriver",
      "Steamroller", "Excavator",   "Zen",     "Nano",       "SapphireRapids"};
  return kNames;
}

const std::vector<std::string>& blis_arch_names() {
  // bli_arch_string(i) for i = 0..25 in BLIS 0.9.0.
  static const std::vector<std::string> kNames = {
      "skx",     "knl",       "knc",       "haswell",     "sandybridge", "penryn",    "zen3",
      "zen2",    "zen",       "excavator", "steamroller", "piledriver",  "bulldozer", "armsve",
      "a64fx",   "firestorm", "thunderx2", "cortexa57",   "cortexa53",   "cortexa15", "cortexa9",
      "power10", "power9",    "power7",    "bgq",         "generic"};
  return kNames;
}

Expected<const BlasLibrary*> open_blas(const BlasChoice& choice) {
  static std::mutex mu;
  static std::string loaded_lib;
  static Expected<BlasLibrary> loaded = internal_error("not loaded");
  std::lock_guard lock(mu);
  if (loaded_lib.empty()) {
    loaded = load(choice);
    loaded_lib = choice.lib;
  } else if (loaded_lib != choice.lib) {
    return unsupported("blas: this process already loaded {}; {} needs its own worker", loaded_lib,
                       choice.lib);
  }
  if (!loaded.ok()) return loaded.status();
  const std::string& want = choice.lib == "openblas" ? choice.core : choice.arch;
  if (!want.empty() && lower(loaded->active) != lower(want)) {
    return unsupported("blas: {} runs {} here, not {} ({} must be set when the process starts)",
                       choice.lib, loaded->active, want,
                       choice.lib == "openblas" ? "OPENBLAS_CORETYPE" : "BLIS_ARCH_TYPE");
  }
  return &loaded.value();
}

}  // namespace ig
