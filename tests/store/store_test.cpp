#include "store/store.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "../support/study_fixture.h"
#include "tensor/hash.h"

namespace ig {
namespace {

using testing::SimPlatform;
using testing::TempDir;

TEST(Store, RerunOfAStoredRunWritesNothing) {
  TempDir dir;
  const std::string db = testing::build_sim_store(dir, {{"sim:base", ""}}, 1);
  auto store = Store::open(db);
  ASSERT_TRUE(store.ok());
  auto runs = (*store)->runs();
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  const auto outputs_before = (*store)->count("node_outputs");
  RunResult again;
  again.verdict = Verdict::kOk;
  auto put = (*store)->put_run(runs->front().key, again);
  ASSERT_TRUE(put.ok());
  EXPECT_FALSE(*put);
  EXPECT_EQ(*(*store)->count("runs"), 1);
  EXPECT_EQ(*(*store)->count("node_outputs"), *outputs_before);
  const auto keys = (*store)->run_keys(runs->front().key.host);
  ASSERT_TRUE(keys.ok());
  EXPECT_EQ(*keys, std::set<RunKey>{runs->front().key});
}

TEST(Store, TenPlatformsThatMostlyAgreeStoreEachDistinctTensorOnce) {
  TempDir dir;
  std::vector<SimPlatform> platforms;
  for (int i = 0; i < 8; ++i) platforms.push_back({"sim:same" + std::to_string(i), ""});
  // Two platforms whose last operator differs (same way): one extra tensor for its output. The
  // flip is in the top mantissa bit so that rounding cannot absorb it.
  platforms.push_back({"sim:fc-a", "Bfc", 3, 0x400000});
  platforms.push_back({"sim:fc-b", "Bfc", 3, 0x400000});
  std::vector<RunResult> results;
  const std::string db = testing::build_sim_store(dir, platforms, 1, &results);
  std::set<TensorKey> distinct;
  size_t traced = 0;
  for (const auto& r : results) {
    for (const auto* list : {&r.trace, &r.outputs})
      for (const auto& t : *list) distinct.insert({t.hash, t.dtype, t.shape}), ++traced;
  }
  auto store = Store::open(db);
  ASSERT_TRUE(store.ok());
  const int64_t inputs = 1;  // the input set's one tensor is stored too
  EXPECT_EQ(*(*store)->count("tensors"), static_cast<int64_t>(distinct.size()) + inputs);
  // Every layer but the last agrees: one copy per layer plus one for the diverging output.
  const size_t per_run = results.front().trace.size();
  EXPECT_EQ(distinct.size(), per_run + 1);
  EXPECT_EQ(*(*store)->count("node_outputs"), static_cast<int64_t>(10 * per_run));
  EXPECT_GT(traced, 10 * per_run);  // graph outputs appear in trace and outputs
  // Round trip through zstd gives the same bits.
  for (const auto& k : distinct) {
    auto t = (*store)->tensor(k);
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_EQ(TensorKey::of(*t), k);
  }
}

TEST(Store, MergeUnionsWithoutDuplicatesAndRejectsNonStores) {
  TempDir dir;
  const std::string a = testing::build_sim_store(dir, {{"sim:base", ""}}, 2);
  auto merged = Store::open(dir.file("merged.db"));
  ASSERT_TRUE(merged.ok());
  ASSERT_TRUE((*merged)->merge_from(a).ok());
  ASSERT_TRUE((*merged)->merge_from(a).ok());
  EXPECT_EQ(*(*merged)->count("runs"), 2);
  auto src = Store::open(a);
  EXPECT_EQ(*(*merged)->count("node_outputs"), *(*src)->count("node_outputs"));
  EXPECT_EQ(*(*merged)->count("tensors"), *(*src)->count("tensors"));
  const Status bad = (*merged)->merge_from(dir.file("missing.db"));
  EXPECT_FALSE(bad.ok());
}

}  // namespace
}  // namespace ig

namespace ig {
namespace {

// What a platform says it did at a node (the convolution algorithm, a fallback, a fused group)
// is stored with the run, read back with its outputs, and kept by a merge.
TEST(Store, NodeNotesAreStoredReadBackAndMerged) {
  testing::TempDir dir;
  auto store = Store::open(dir.file("a.db"));
  ASSERT_TRUE(store.ok());
  RunResult r;
  r.verdict = Verdict::kOk;
  TracedTensor conv;
  conv.value = "c";
  conv.node = "conv";
  conv.op_type = "Conv";
  conv.node_index = 0;
  conv.tensor = Tensor::from_vector<float>({1.0f, 2.0f}, {2});
  conv.hash = tensor_hash(conv.tensor);
  conv.dtype = DType::kFloat32;
  conv.shape = {2};
  conv.note = "algo=fft (autotune)";
  conv.covers = "conv,relu";
  TracedTensor plain = conv;
  plain.value = "y";
  plain.note.clear();
  plain.covers.clear();
  r.trace = {conv};
  r.outputs = {plain};
  const RunKey key{"m", "i", "cuda:algo=autotune", "h", 0};
  ASSERT_TRUE((*store)->put_run(key, r).ok());
  auto check = [&](Store& s) {
    auto runs = s.runs();
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs->size(), 1u);
    auto outs = s.outputs(runs->front().id);
    ASSERT_TRUE(outs.ok());
    std::map<std::string, StoredOutput> by_value;
    for (const auto& o : *outs) by_value[o.value] = o;
    EXPECT_EQ(by_value["c"].note, "algo=fft (autotune)");
    EXPECT_EQ(by_value["c"].covers, "conv,relu");
    EXPECT_EQ(by_value["y"].note, "");
  };
  check(**store);
  auto merged = Store::open(dir.file("b.db"));
  ASSERT_TRUE(merged.ok());
  ASSERT_TRUE((*merged)->merge_from(dir.file("a.db")).ok());
  check(**merged);
}

// Each run says which library its platform ran; the store keeps one line per platform and host,
// the latest run's, and a merge carries it.
TEST(Store, PlatformLibrariesAreKeptPerPlatformAndHostAndMerged) {
  testing::TempDir dir;
  auto store = Store::open(dir.file("a.db"));
  ASSERT_TRUE(store.ok());
  RunResult r;
  r.verdict = Verdict::kOk;
  r.library = "ONNX Runtime";
  r.library_version = "1.31.1";
  ASSERT_TRUE((*store)->put_run({"m", "i", "ort:version=1.31", "h", 0}, r).ok());
  ASSERT_TRUE((*store)->put_run({"m", "i2", "ort:version=1.31", "h", 0}, r).ok());
  RunResult unmade;  // a backend that could not be made names no library
  unmade.verdict = Verdict::kUnsupported;
  ASSERT_TRUE((*store)->put_run({"m", "i", "torch:version=2.15", "h", 0}, unmade).ok());
  auto check = [&](Store& s) {
    auto libs = s.platform_libraries();
    ASSERT_TRUE(libs.ok()) << libs.status().to_string();
    ASSERT_EQ(libs->size(), 1u);
    EXPECT_EQ(libs->front().spec, "ort:version=1.31");
    EXPECT_EQ(libs->front().host, "h");
    EXPECT_EQ(libs->front().library, "ONNX Runtime");
    EXPECT_EQ(libs->front().version, "1.31.1");
  };
  check(**store);
  auto merged = Store::open(dir.file("b.db"));
  ASSERT_TRUE(merged.ok());
  ASSERT_TRUE((*merged)->merge_from(dir.file("a.db")).ok());
  check(**merged);
}

// ORT traces a copy of the model in which nothing fuses; its graph output comes from the model
// itself. The store keeps that output, and the note and covers the worker gave it.
TEST(Store, AGraphOutputReplacesItsTracedValue) {
  testing::TempDir dir;
  auto store = Store::open(dir.file("a.db"));
  ASSERT_TRUE(store.ok());
  TracedTensor traced;
  traced.value = "y";
  traced.node = "add";
  traced.op_type = "Add";
  traced.node_index = 1;
  traced.tensor = Tensor::from_vector<float>({1.0f, 2.0f}, {2});
  traced.hash = tensor_hash(traced.tensor);
  traced.dtype = DType::kFloat32;
  traced.shape = {2};
  TracedTensor output = traced;
  output.tensor = Tensor::from_vector<float>({1.0f, 2.5f}, {2});
  output.hash = tensor_hash(output.tensor);
  output.covers = "mul,add";
  output.note = "graph output of the unmodified model; its traced copy gave other bits";
  RunResult r;
  r.verdict = Verdict::kOk;
  r.trace = {traced};
  r.outputs = {output};
  ASSERT_TRUE((*store)->put_run({"m", "i", "ort", "h", 0}, r).ok());
  auto outs = (*store)->outputs((*store)->runs()->front().id);
  ASSERT_TRUE(outs.ok());
  ASSERT_EQ(outs->size(), 1u);
  EXPECT_EQ(outs->front().tensor.hash, output.hash);
  EXPECT_TRUE(outs->front().is_output);
  EXPECT_EQ(outs->front().covers, "mul,add");
  EXPECT_EQ(outs->front().note, output.note);
  EXPECT_TRUE((*store)->tensor(outs->front().tensor).ok());
  // A trace added later (a campaign's per-layer rerun) never replaces the recorded output.
  ASSERT_TRUE((*store)->add_trace((*store)->runs()->front().id, {traced}).ok());
  outs = (*store)->outputs((*store)->runs()->front().id);
  EXPECT_EQ(outs->front().tensor.hash, output.hash);
  EXPECT_EQ(outs->front().covers, "mul,add");
}

TEST(Store, SelfChecksAreStoredOnceReadBackAndMerged) {
  testing::TempDir dir;
  auto store = Store::open(dir.file("a.db"));
  ASSERT_TRUE(store.ok());
  RunResult r;
  r.verdict = Verdict::kOk;
  ASSERT_TRUE((*store)->put_run({"m", "i", "onednn", "h", 0}, r).ok());
  const int64_t run = (*store)->runs()->front().id;
  const Tensor t = Tensor::from_vector<float>({0.5f, 0.25f}, {2});
  StoredSelfCheck ok{run,          "y", SelfCheckKind::kUnfused, "onednn:fuse=off", {3, 4},
                     Verdict::kOk, "",  TensorKey::of(t)};
  StoredSelfCheck failed{run,
                         "y",
                         SelfCheckKind::kOracle,
                         "ref:acc=exact,dtype=fp64",
                         {3, 4},
                         Verdict::kCrash,
                         "SIGSEGV",
                         std::nullopt};
  ASSERT_TRUE((*store)->put_self_check(ok, &t).ok());
  ASSERT_TRUE((*store)->put_self_check(failed, nullptr).ok());
  StoredSelfCheck again = ok;
  again.spec = "onednn";
  ASSERT_TRUE((*store)->put_self_check(again, &t).ok());  // kept: the first row stays
  auto check = [&](Store& s) {
    auto rows = s.self_checks();
    ASSERT_TRUE(rows.ok()) << rows.status().message();
    ASSERT_EQ(rows->size(), 1u);
    const auto& list = rows->begin()->second;
    ASSERT_EQ(list.size(), 2u);
    EXPECT_EQ(list[0].kind, SelfCheckKind::kOracle);
    EXPECT_EQ(list[0].verdict, Verdict::kCrash);
    EXPECT_EQ(list[0].reason, "SIGSEGV");
    EXPECT_FALSE(list[0].tensor.has_value());
    EXPECT_EQ(list[1].spec, "onednn:fuse=off");
    EXPECT_EQ(list[1].nodes, (std::vector<int64_t>{3, 4}));
    ASSERT_TRUE(list[1].tensor.has_value());
    auto back = s.tensor(*list[1].tensor);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(tensor_hash(*back), tensor_hash(t));
  };
  check(**store);
  auto merged = Store::open(dir.file("b.db"));
  ASSERT_TRUE(merged.ok());
  ASSERT_TRUE((*merged)->merge_from(dir.file("a.db")).ok());
  check(**merged);
}

}  // namespace
}  // namespace ig
