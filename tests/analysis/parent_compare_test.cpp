// compare --parent's arithmetic on hand-made traces with known answers: a derived model's layer
// against its parent on the same platform and against the parent's fp64 oracle value, and the
// oracle found per host.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/precision/parent_compare.h"
#include "tensor/hash.h"

namespace ig {
namespace {

// Traces held in memory, keyed as a store keys them.
struct Traces {
  std::map<TensorKey, Tensor> tensors;
  TensorKey add(const std::vector<float>& v) {
    Tensor t = Tensor::from_vector(v, Shape{1, static_cast<int64_t>(v.size())});
    const TensorKey k = TensorKey::of(t);
    tensors.emplace(k, std::move(t));
    return k;
  }
};

CaseData relu_case(const std::string& hash, const std::string& name) {
  CaseData c;
  c.model = hash;
  c.model_name = name;
  c.model_path = "/nonexistent/" + name + ".onnx";  // no file: no quantized views
  c.input = "in0";
  c.input_label = "x";
  c.nodes.push_back(StoredNode{0, "relu", "Relu", "", {"x"}, {"y"}, nlohmann::json::object()});
  c.outputs = {"y"};
  return c;
}

void add_run(CaseData& c, const std::string& label, const TensorKey& y) {
  RepRun r;
  r.verdict = Verdict::kOk;
  r.values["y"] = y;
  c.runs[label].reps.push_back(r);
}

TEST(ParentCompare, LayerAgainstTheParentOnThePlatformAndOnItsOracle) {
  Traces t;
  StudyData study;
  study.platforms = {{"ref", "ref", "host1"}};
  study.oracles = {{"ref:fp64", "ref:fp64", "host1"}};
  CaseData parent = relu_case("p0", "m"), derived = relu_case("d0", "q");
  add_run(parent, "ref", t.add({1, 2, 3, 4}));
  add_run(parent, "ref:fp64", t.add({1, 2, 3, 4.5f}));
  add_run(derived, "ref", t.add({1, 2, 3, 4.1f}));
  study.cases = {parent, derived};
  study.load = [&t](const TensorKey& k) -> Expected<Tensor> { return t.tensors.at(k); };
  finalize(study);
  TensorCache cache(study);
  auto cases = compare_with_parent(study, "q", "m", cache);
  ASSERT_TRUE(cases.ok()) << cases.status().message();
  ASSERT_EQ(cases->size(), 1u);
  const ParentCase& c = (*cases)[0];
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.oracles, std::vector<std::string>{"ref:fp64"});
  const ParentRow& row = c.rows[0];
  // Same platform: signal 1+4+9+16 = 30, noise (4.1-4)^2 (in float32: 4.1f - 4).
  const double n1 = (double(4.1f) - 4) * (double(4.1f) - 4);
  ASSERT_TRUE(row.platforms.count("ref"));
  EXPECT_NEAR(row.platforms.at("ref").sqnr_db, 10 * std::log10(30 / n1), 1e-9);
  EXPECT_NEAR(row.platforms.at("ref").rel_error, (double(4.1f) - 4) / 4, 1e-12);
  // Against the parent's oracle: signal 1+4+9+4.5^2 = 34.25, noise (4.1-4.5)^2.
  const double n2 = (double(4.1f) - 4.5) * (double(4.1f) - 4.5);
  ASSERT_TRUE(row.vs_oracle.count("ref"));
  EXPECT_NEAR(row.vs_oracle.at("ref").sqnr_db, 10 * std::log10(34.25 / n2), 1e-9);
  EXPECT_NEAR(row.vs_oracle.at("ref").rel_error, (4.5 - double(4.1f)) / 4.5, 1e-12);
  EXPECT_EQ(row.vs_oracle.at("ref").top1, 1);  // the last element is the largest in both
  // The derived model did not run on the oracle: no such column, and the oracle is no platform.
  EXPECT_FALSE(row.platforms.count("ref:fp64"));
  EXPECT_FALSE(row.vs_oracle.count("ref:fp64"));

  const nlohmann::json j = parent_cases_json(*cases);
  EXPECT_EQ(j[0].at("parent_oracles"), nlohmann::json::array({"ref:fp64"}));
  EXPECT_NEAR(j[0]["layers"][0]["vs_parent_oracle"]["ref"]["sqnr_db"].get<double>(),
              10 * std::log10(34.25 / n2), 1e-9);
}

TEST(ParentCompare, NoOracleRunMeansNoOracleColumn) {
  Traces t;
  StudyData study;
  study.platforms = {{"ref", "ref", "host1"}};
  CaseData parent = relu_case("p0", "m"), derived = relu_case("d0", "q");
  add_run(parent, "ref", t.add({1, 2}));
  add_run(derived, "ref", t.add({1, 2}));
  study.cases = {parent, derived};
  study.load = [&t](const TensorKey& k) -> Expected<Tensor> { return t.tensors.at(k); };
  finalize(study);
  TensorCache cache(study);
  auto cases = compare_with_parent(study, "q", "m", cache);
  ASSERT_TRUE(cases.ok()) << cases.status().message();
  const ParentRow& row = (*cases)[0].rows.at(0);
  EXPECT_TRUE(std::isinf(row.platforms.at("ref").sqnr_db));  // equal
  EXPECT_TRUE(row.vs_oracle.empty());
  EXPECT_TRUE((*cases)[0].oracles.empty());
}

}  // namespace
}  // namespace ig
