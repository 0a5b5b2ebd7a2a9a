// Attribution of EQC splits to causes from the platforms' specs.
#include "analysis/explain/attribute.h"

#include <gtest/gtest.h>

#include "worker/probe.h"

namespace ig {
namespace {

using V = std::vector<std::string>;

// The knob tables every backend's binding declares, as the coordinator reads them.
const KnobTables& knobs() {
  static const KnobTables tables = [] {
    auto catalog = read_catalog(INFERGAP_WORKER);
    EXPECT_TRUE(catalog.ok()) << catalog.status().to_string();
    return catalog.ok() ? catalog->knobs : KnobTables{};
  }();
  return tables;
}

std::vector<std::string> spec_causes(const std::string& a, const std::string& b) {
  return ig::spec_causes(knobs(), a, b);
}

TEST(SpecCauses, KnobsNameThePapersCauses) {
  EXPECT_EQ(spec_causes("onednn:isa=avx2,threads=1", "onednn:isa=avx512_core,threads=1"),
            V{"simd-width"});
  EXPECT_EQ(spec_causes("onednn:isa=avx512_core,threads=1", "onednn:isa=avx512_core,threads=3"),
            V{"thread-split"});
  EXPECT_EQ(spec_causes("onednn", "onednn:fuse=off"), V{"fusion"});
  EXPECT_EQ(spec_causes("ort:opt=all", "ort:opt=disabled"), V{"fusion"});
  EXPECT_EQ(spec_causes("blas:core=Haswell,lib=openblas", "blas:core=Sandybridge,lib=openblas"),
            V{"simd-width"});
  EXPECT_EQ(spec_causes("torch", "torch:mkldnn=off"), V{"conv-algorithm"});
  EXPECT_EQ(spec_causes("ref", "ref:acc=lanes16,fma=on"), (V{"simd-width", "fma"}));
  EXPECT_EQ(spec_causes("ref:acc=pairwise", "ref:conv=winograd4"),
            (V{"accumulation-order", "conv-algorithm"}));
  EXPECT_EQ(spec_causes("ref", "ref:math=sleef-u35"), V{"math-library"});
  EXPECT_EQ(spec_causes("ref", "ref:dtype=fp16"), V{"precision"});
  EXPECT_EQ(spec_causes("onednn", "ort"), V{"library"});
  // Defaults count as stated: threads=1 is every library backend's default.
  EXPECT_EQ(spec_causes("blas:core=SkylakeX,lib=openblas,threads=1", "blas:arch=zen3,lib=blis"),
            (V{"simd-width", "library"}));
  EXPECT_EQ(spec_causes("xnnpack", "xnnpack:fp16=on,threads=1"), V{"precision"});
  EXPECT_EQ(spec_causes("onednn@a1b2", "onednn@c3d4"), V{"host-cpu"});
  // A value equal to the default is the default; a knob no table declares names itself.
  EXPECT_EQ(spec_causes("cuda", "cuda:tf32=off"), V{});
  EXPECT_EQ(spec_causes("cuda", "cuda:tf32=on"), V{"precision"});
  EXPECT_EQ(spec_causes("ref:acc=lanes16", "ref:acc=exact"), (V{"simd-width", "precision"}));
  EXPECT_EQ(spec_causes("crashtest", "crashtest:delay_ms=5"), V{});
  KnobTables bare = knobs();
  bare["onednn"].clear();
  EXPECT_EQ(ig::spec_causes(bare, "onednn", "onednn:isa=avx2"), V{"isa"});
}

TEST(AttributeSplits, OneAttributionPerBornClassWithTheClosestPair) {
  SetOrigin s;
  s.case_label = "m/x";
  s.node.node = "conv1";
  s.node.op_type = "Conv";
  s.before.classes = {{"ref", "ref:split=2", "onednn:isa=avx2", "onednn:isa=avx512_core"}};
  s.after.classes = {{"ref", "onednn:isa=avx2"}, {"ref:split=2"}, {"onednn:isa=avx512_core"}};
  const auto a = attribute_splits(knobs(), {s});
  ASSERT_EQ(a.size(), 2u);  // one class split into three: two classes born
  EXPECT_EQ(a[0].side_b, V{"ref:split=2"});
  EXPECT_EQ(a[0].causes, V{"thread-split"});  // ref vs ref:split=2, not onednn vs ref
  EXPECT_EQ(a[1].a, "onednn:isa=avx2");
  EXPECT_EQ(a[1].causes, V{"simd-width"});
  const auto t = tabulate(a);
  EXPECT_EQ(t.splits, 2);
  EXPECT_EQ(t.unexplained, 0);
  EXPECT_EQ(t.per_cause.at("simd-width"), 1);
}

// A class born later is attributed against the closest earlier part, not only the first: the
// upgrade of one library is named as such when another library ran first in the class.
TEST(AttributeSplits, AnUpgradeIsNamedAgainstItsOwnEarlierRelease) {
  SetOrigin s;
  s.case_label = "gru/x";
  s.node.node = "/rnn/GRU";
  s.node.op_type = "GRU";
  s.before.classes = {{"ort", "torch:version=2.15", "torch"}};
  s.after.classes = {{"ort"}, {"torch:version=2.15"}, {"torch"}};
  const auto a = attribute_splits(knobs(), {s});
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].causes, V{"library"});  // torch 2.15 against ORT: two libraries
  EXPECT_EQ(a[1].a, "torch:version=2.15");
  EXPECT_EQ(a[1].b, "torch");
  EXPECT_EQ(a[1].side_a, V{"torch:version=2.15"});
  EXPECT_EQ(a[1].causes, V{"library-version"});
  EXPECT_EQ(spec_causes("ort", "ort:version=1.31"), V{"library-version"});
}

}  // namespace
}  // namespace ig
