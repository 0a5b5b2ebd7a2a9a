// Tests that the parents in this folder run in a child process started with a platform's
// environment (see run_child). Disabled: they only make sense with IG_TEST_SPEC set.
#include <cstdio>

#include "backend_test_util.h"
#include "platform/bindings/blas_options.h"

namespace ig::testing {
namespace {

const char* env_or(const char* key, const char* fallback) {
  const char* v = std::getenv(key);
  return v ? v : fallback;
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

// One sgemm with a long reduction (K = 4096) through the BLAS IG_TEST_SPEC names.
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
  // A double-precision dot product for the accuracy check in the parent.
  double exact = 0;
  for (int64_t k = 0; k < K; ++k) exact += double(a.data<float>()[k]) * b.data<float>()[k * N];
  std::printf("\nACTIVE %s\nOUT %s\nC00 %.9g\nEXACT %.9g\n", (*lib)->active.c_str(),
              hex_hash(c).c_str(), double(c.data<float>()[0]), exact);
}

}  // namespace
}  // namespace ig::testing
