// Tests that the parents in this folder run in a child process started with a platform's
// environment (see run_child). Disabled: they only make sense with IG_TEST_SPEC set.
#include <cstdio>

#include "backend_test_util.h"
#include "backends/ref/numerics/float_gemm.h"
#include "blas_orders.h"
#include "platform/bindings/blas_options.h"
#include "tensor/convert.h"

namespace ig::testing {
namespace {

const char* env_or(const char* key, const char* fallback) {
  const char* v = std::getenv(key);
  return v ? v : fallback;
}

// The largest error of c = a b (row-major [M, K] by [K, N], fp32 or fp64) against the exact
// product, as a share of the bound of any summation order, gamma * sum_k |a_k b_k| per element.
double gemm_bound_share(const Tensor& a, const Tensor& b, const Tensor& c, double gamma) {
  const int64_t M = a.shape()[0], K = a.shape()[1], N = b.shape()[1];
  const Tensor a64 = convert_float_tensor(a, DType::kFloat64);
  const Tensor b64 = convert_float_tensor(b, DType::kFloat64);
  const double* A = a64.data<double>();
  const double* B = b64.data<double>();
  Tensor exact(DType::kFloat64, {M, N}), abs_sum(DType::kFloat64, {M, N});
  exact_gemm<double>(M, N, K, A, K, 1, B, N, exact.data<double>(), N);
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      double sum = 0;
      for (int64_t k = 0; k < K; ++k) sum += std::abs(A[m * K + k] * B[k * N + n]);
      abs_sum.data<double>()[m * N + n] = sum;
    }
  }
  return bound_share(c, exact, abs_sum, gamma);
}

// Runs IG_TEST_MODEL on IG_TEST_SPEC with a seeded input; prints the hash of every graph output.
TEST(Child, DISABLED_RunSpec) {
  auto model = load_model(env_or("IG_TEST_MODEL", ""));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  std::map<std::string, Tensor> feeds;
  for (const ValueInfo* in : model->graph.runtime_inputs()) {
    Shape shape;
    for (const auto& d : in->dims) shape.push_back(d.value);
    feeds[in->name] = random_uniform_tensor(DType::kFloat32, shape, 7);
  }
  Outcome o = run_platform(env_or("IG_TEST_SPEC", ""), *model, feeds);
  if (!o.status.ok()) {
    std::printf("\nERROR %s\n", o.status.to_string().c_str());
    return;
  }
  for (const auto& v : o.outputs) std::printf("\nOUT %s\n", hex_hash(v.tensor).c_str());
  for (const auto& [name, r] : o.reports)
    std::printf("\nIMPL %s %s\n", name.c_str(), r.note.c_str());
}

// One sgemm with a long reduction (K = 4096) through the BLAS IG_TEST_SPEC names, against the
// classical error bound of any summation order in fp32, gamma_K * sum |a_k b_k|.
TEST(Child, DISABLED_Sgemm) {
  auto spec = parse_platform_spec(env_or("IG_TEST_SPEC", ""));
  ASSERT_TRUE(spec.ok());
  auto choice = parse_blas_spec(*spec);
  ASSERT_TRUE(choice.ok()) << choice.status().to_string();
  auto lib = open_blas(*choice);
  if (!lib.ok()) {
    std::printf("\nERROR %s\n", lib.status().to_string().c_str());
    return;
  }
  const int64_t M = 8, N = 64, K = 4096;
  Tensor a = random_uniform_tensor(DType::kFloat32, {M, K}, 11);
  Tensor b = random_uniform_tensor(DType::kFloat32, {K, N}, 12);
  Tensor c(DType::kFloat32, {M, N});
  (*lib)->sgemm(M, N, K, a.data<float>(), K, b.data<float>(), N, c.data<float>(), N);
  const double worst = gemm_bound_share(a, b, c, fp32_gamma(K));
  std::printf("\nACTIVE %s\nOUT %s\nBOUND_SHARE %.6g\n", (*lib)->active.c_str(),
              hex_hash(c).c_str(), worst);
}

// One dgemm (M = 8, N = 64, K = IG_TEST_K) through the BLAS IG_TEST_SPEC names, against the scalar
// transcription of the panel order IG_TEST_PANELS ("openblas:Q:UNROLL:FMA" or "blis:KC:FMA", see
// blas_orders.h) and against the classical error bound of any order, gamma_K * sum |a_k b_k|.
TEST(Child, DISABLED_Dgemm) {
  auto spec = parse_platform_spec(env_or("IG_TEST_SPEC", ""));
  ASSERT_TRUE(spec.ok());
  auto choice = parse_blas_spec(*spec);
  ASSERT_TRUE(choice.ok()) << choice.status().to_string();
  auto lib = open_blas(*choice);
  if (!lib.ok()) {
    std::printf("\nERROR %s\n", lib.status().to_string().c_str());
    return;
  }
  const int64_t M = 8, N = 64, K = std::atoll(env_or("IG_TEST_K", "4096"));
  Tensor a = random_uniform_tensor(DType::kFloat64, {M, K}, 11);
  Tensor b = random_uniform_tensor(DType::kFloat64, {K, N}, 12);
  Tensor c(DType::kFloat64, {M, N});
  const double* A = a.data<double>();
  const double* B = b.data<double>();
  (*lib)->dgemm(M, N, K, A, K, B, N, c.data<double>(), N);
  const double worst = gemm_bound_share(a, b, c, gamma_n(K, 52));
  int64_t matches = 0;
  const auto panels = panel_order(env_or("IG_TEST_PANELS", ""), K);
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      if (panels && panel_dot(*panels, A + m * K, B + n, N) == c.data<double>()[m * N + n])
        ++matches;
    }
  }
  std::printf("\nACTIVE %s\nOUT %s\nBOUND_SHARE %.6g\nPANEL_MATCHES %lld/%lld\n",
              (*lib)->active.c_str(), hex_hash(c).c_str(), worst, static_cast<long long>(matches),
              static_cast<long long>(M * N));
}

}  // namespace
}  // namespace ig::testing
