// The study analysis on real traces with controlled bit differences (see study_fixture.h).
#include <gtest/gtest.h>

#include <cmath>

#include "../support/study_fixture.h"
#include "analysis/compare/compare.h"
#include "analysis/compare/eqc.h"
#include "analysis/compare/origins.h"
#include "analysis/hosts.h"
#include "analysis/oracle/oracle.h"

namespace ig {
namespace {

using testing::TempDir;

const std::vector<testing::SimPlatform> kPlatforms = {
    {"sim:base", ""},
    {"sim:same", ""},
    {"sim:conv2", "W2", 5, 0x10000},  // bit 16 of one conv2 weight
    {"sim:conv1", "W1", 0, 0x400},    // bit 10 of one conv1 weight
};

class StudyAnalysis : public ::testing::Test {
 protected:
  void SetUp() override {
    db_ = testing::build_sim_store(dir_, kPlatforms, 2);
    auto store = Store::open(db_);
    ASSERT_TRUE(store.ok());
    store_ = std::move(*store);
    auto study = load_study(*store_);
    ASSERT_TRUE(study.ok()) << study.status().message();
    study_ = std::move(*study);
  }
  TempDir dir_;
  std::string db_;
  std::unique_ptr<Store> store_;
  StudyData study_;
};

TEST_F(StudyAnalysis, ClassesPerCaseAndPerLayer) {
  ASSERT_EQ(study_.cases.size(), 2u);
  TensorCache cache(study_.load);
  const auto labels = study_.labels();
  for (const auto& c : study_.cases) {
    const Partition p = partition_values(c, labels, c.outputs);
    ASSERT_EQ(p.classes.size(), 3u);
    EXPECT_EQ(p.classes[0], (std::vector<std::string>{"sim:base", "sim:same"}));
    auto rows = layer_table(c, labels, cache);
    ASSERT_TRUE(rows.ok());
    ASSERT_EQ(rows->size(), 8u);
    std::map<std::string, const LayerRow*> by_node;
    for (const auto& r : *rows) by_node[r.node] = &r;
    EXPECT_EQ(by_node["conv1"]->partition.classes.size(), 2u);
    EXPECT_TRUE(by_node["conv1"]->split);
    EXPECT_EQ(by_node["conv2"]->partition.classes.size(), 3u);
    EXPECT_TRUE(by_node["conv2"]->split);  // sim:conv2 leaves base's class here
    EXPECT_FALSE(by_node["relu1"]->split);
    // A bit-10 change of a weight in [-0.5, 0.5) keeps the exponent: some bits still agree.
    EXPECT_GT(by_node["conv1"]->remaining_precision, 0);
    EXPECT_LT(by_node["conv1"]->remaining_precision, 23);
    for (size_t i = 1; i < rows->size(); ++i)
      EXPECT_LT((*rows)[i - 1].node_index, (*rows)[i].node_index);
  }
}

// The share of deviating elements is the share on which the classes' tensors differ bitwise:
// with two classes it equals the comparator's fraction of differing elements.
TEST_F(StudyAnalysis, DeviatingShareCountsElementsOnWhichClassesDisagree) {
  TensorCache cache(study_.load);
  const auto& c = study_.cases[0];
  auto rows = layer_table(c, study_.labels(), cache);
  ASSERT_TRUE(rows.ok());
  for (const auto& r : *rows) {
    if (r.partition.classes.size() < 2) {
      EXPECT_EQ(r.deviating_share, 0.0) << r.node;
      continue;
    }
    if (r.node != "conv1") continue;
    const RepRun* a = c.runs.at("sim:base").run();
    const RepRun* b = c.runs.at("sim:conv1").run();
    auto ta = cache.get(a->values.at(r.values[0]));
    auto tb = cache.get(b->values.at(r.values[0]));
    ASSERT_TRUE(ta.ok() && tb.ok());
    const Comparison cmp = compare_tensors(*ta, *tb);
    EXPECT_GT(cmp.differing, 0);
    EXPECT_DOUBLE_EQ(r.deviating_share, cmp.fraction_differing);
  }
}

TEST_F(StudyAnalysis, OriginsAreOperatorInducedAndTheRestPropagates) {
  TensorCache cache(study_.load);
  for (const auto& c : study_.cases) {
    auto same = pair_origins(c, "sim:base", "sim:same", cache);
    ASSERT_TRUE(same.ok());
    EXPECT_EQ(same->differing, 0);
    auto po = pair_origins(c, "sim:base", "sim:conv2", cache);
    ASSERT_TRUE(po.ok());
    ASSERT_EQ(po->induced.size(), 1u);
    EXPECT_EQ(po->induced[0].node, "conv2");
    EXPECT_EQ(po->induced[0].op_type, "Conv");
    EXPECT_EQ(po->induced[0].attributes["kernel_shape"], (std::vector<int64_t>{3, 3}));
    EXPECT_EQ(po->induced[0].inputs, std::vector<std::string>{"r1"});
    EXPECT_GT(po->propagated, 0);
    EXPECT_EQ(po->differing, po->propagated + 1);
    auto p1 = pair_origins(c, "sim:base", "sim:conv1", cache);
    ASSERT_TRUE(p1.ok());
    ASSERT_EQ(p1->induced.size(), 1u);
    EXPECT_EQ(p1->induced[0].node, "conv1");
    auto set = set_origins(c, study_.labels(), cache);
    ASSERT_TRUE(set.ok());
    ASSERT_EQ(set->size(), 2u);
    EXPECT_EQ((*set)[0].node.node, "conv1");
    EXPECT_EQ((*set)[1].node.node, "conv2");
    EXPECT_EQ((*set)[1].before.classes.size(), 2u);
    EXPECT_EQ((*set)[1].after.classes.size(), 3u);
  }
}

TEST_F(StudyAnalysis, RepetitionsThatDisagreeAreFlaggedWithTheirDistribution) {
  // Give sim:same two more repetitions: one like sim:conv2, one like itself.
  for (auto& c : study_.cases) {
    RepRun odd = c.runs.at("sim:conv2").reps[0];
    odd.repetition = 1;
    RepRun again = c.runs.at("sim:same").reps[0];
    again.repetition = 2;
    c.runs.at("sim:same").reps.push_back(odd);
    c.runs.at("sim:same").reps.push_back(again);
  }
  finalize(study_);
  const auto nd = nondeterminism(study_);
  ASSERT_EQ(nd.size(), 2u);  // one per case
  EXPECT_EQ(nd[0].platform, "sim:same");
  EXPECT_EQ(nd[0].distribution, (std::vector<int>{2, 1}));
  // The majority run is still in base's class.
  const auto& c = study_.cases[0];
  EXPECT_EQ(partition_values(c, study_.labels(), c.outputs).class_of("sim:same"), 0);
}

TEST_F(StudyAnalysis, ToleranceAdviceIsTheTightestBoundThatAcceptsEveryPlatform) {
  TensorCache cache(study_.load);
  auto advice = tolerance_advice(study_, cache);
  ASSERT_TRUE(advice.ok());
  ASSERT_EQ(advice->size(), 1u);
  const auto& a = (*advice)[0];
  EXPECT_EQ(a.reference, "pairwise");
  EXPECT_EQ(a.tensors, 6);  // three classes in each of two cases
  double worst = 0;
  uint64_t worst_ulp = 0;
  for (const auto& c : study_.cases) {
    for (const auto& x : study_.labels()) {
      for (const auto& y : study_.labels()) {
        auto tx = cache.get(c.runs.at(x).run()->values.at("Y"));
        auto ty = cache.get(c.runs.at(y).run()->values.at("Y"));
        for (int64_t i = 0; i < tx->numel(); ++i) {
          const double d = std::fabs(tx->as_double(i) - ty->as_double(i));
          EXPECT_LE(d, a.atol);
          worst = std::max(worst, d);
          const auto u = ulp_distance_bits(float_bits(*tx, i), float_bits(*ty, i), 23, 8);
          worst_ulp = std::max(worst_ulp, *u);
        }
      }
    }
  }
  EXPECT_EQ(a.atol, worst);
  EXPECT_EQ(a.ulp, worst_ulp);
  EXPECT_GT(a.ulp, 0u);
}

TEST(OracleCompare, Fp64OracleIsRoundedForUlpAndKeptForErrors) {
  Tensor oracle = Tensor::from_vector<double>({1.0 + 1e-12, -2.0, 0.1}, {3});
  Tensor platform(DType::kFloat32, {3});
  for (int i = 0; i < 3; ++i)
    platform.data<float>()[i] = static_cast<float>(oracle.data<double>()[i]);
  // One element one ULP away from the rounded oracle.
  platform.data<float>()[2] = std::nextafter(platform.data<float>()[2], 1.0f);
  const OracleComparison c = compare_with_oracle(platform, oracle);
  ASSERT_TRUE(c.comparable);
  EXPECT_EQ(c.max_ulp, 1u);
  EXPECT_EQ(c.max_abs_error, std::fabs(static_cast<double>(platform.data<float>()[2]) - 0.1));
  EXPECT_EQ(c.remaining_precision, 21);  // 0.1f ends in ...1101; +1 ulp = ...1110: 2 bits flip
}

TEST(FlagClusters, FlagsThatCoOccurFormAClusterAlignedWithTheClasses) {
  StudyData s;
  auto host = [](const std::string& id, std::vector<std::string> flags) {
    return StoredHost{id, {{"cpu", {{"flags", flags}}}}};
  };
  s.hosts = {host("h1", {"sse2", "avx2", "fma"}), host("h2", {"sse2"}),
             host("h3", {"sse2", "avx2", "fma"})};
  CaseData c;
  c.outputs = {"Y"};
  for (const auto& [h, hash] :
       std::vector<std::pair<std::string, uint64_t>>{{"h1", 1}, {"h2", 2}, {"h3", 1}}) {
    s.platforms.push_back({"lib@" + h, "lib", h});
    c.runs["lib@" + h].reps.push_back(
        {0, 0, Verdict::kOk, "", {{"Y", {hash, DType::kFloat32, {1}}}}, {}, {}});
  }
  s.cases.push_back(c);
  finalize(s);
  const auto clusters = flag_clusters(s);
  ASSERT_EQ(clusters.size(), 1u);
  EXPECT_EQ(clusters[0].flags, (std::vector<std::string>{"avx2", "fma"}));
  EXPECT_EQ(clusters[0].hosts, (std::vector<std::string>{"h1", "h3"}));
  EXPECT_EQ(clusters[0].aligned.size(), 1u);
}

}  // namespace
}  // namespace ig
