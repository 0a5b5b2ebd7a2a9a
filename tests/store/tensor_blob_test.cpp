// The store keeps a tensor as the XOR with another platform's tensor of the same value in the same
// case (the oracle's when it has one), and reads every tensor back bit for bit: from such blobs,
// from bare zstd frames, and after merging stores whose references differ.
#include "store/tensor_blob.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <zstd.h>

#include <bit>
#include <cstring>

#include "../support/onnx_builder.h"
#include "store/reference_index.h"
#include "tensor/hash.h"

namespace ig {
namespace {

using testing::TempDir;

Tensor ramp(DType dtype, int64_t n, uint32_t flip_mask) {
  Tensor t(dtype, {n});
  for (int64_t i = 0; i < n; ++i) {
    const double v = std::sin(0.37 * static_cast<double>(i)) * 3.0;
    if (dtype == DType::kFloat64) {
      t.data<double>()[i] = v;
    } else {
      const uint32_t bits = std::bit_cast<uint32_t>(static_cast<float>(v));
      t.data<float>()[i] = std::bit_cast<float>(bits ^ (i % 3 == 0 ? flip_mask : 0u));
    }
  }
  return t;
}

RunResult run_with(const Tensor& y) {
  RunResult r;
  r.verdict = Verdict::kOk;
  TracedTensor t;
  t.value = "y";
  t.node = "n";
  t.op_type = "Conv";
  t.node_index = 0;
  t.hash = tensor_hash(y);
  t.dtype = y.dtype();
  t.shape = y.shape();
  t.tensor = y;
  r.outputs.push_back(t);
  return r;
}

std::unique_ptr<Store> open_store(const std::string& path) {
  auto s = Store::open(path);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return std::move(*s);
}

std::string blob_of(const Store& store, const Tensor& t) {
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(store.db(), "SELECT data FROM tensors WHERE hash = ?", -1, &st, nullptr);
  const std::string hash = hash_hex(tensor_hash(t));
  sqlite3_bind_text(st, 1, hash.c_str(), -1, SQLITE_TRANSIENT);
  std::string out;
  if (sqlite3_step(st) == SQLITE_ROW)
    out.assign(static_cast<const char*>(sqlite3_column_blob(st, 0)), sqlite3_column_bytes(st, 0));
  sqlite3_finalize(st);
  return out;
}

std::optional<TensorKey> reference_of(const Store& store, const Tensor& t) {
  return parse_tensor_blob_header(blob_of(store, t), t.shape())->reference;
}

void expect_reads_back(const Store& store, const Tensor& t) {
  auto back = store.tensor(TensorKey::of(t));
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->nbytes(), t.nbytes());
  EXPECT_EQ(std::memcmp(back->raw(), t.raw(), t.nbytes()), 0);
}

TEST(TensorBlob, LaterPlatformsAreStoredAgainstTheOraclesTensorRoundedToTheirDtype) {
  TempDir dir;
  auto store = open_store(dir.file("s.db"));
  ASSERT_TRUE(store->set_meta("oracle", "oracle").ok());
  const Tensor a = ramp(DType::kFloat32, 4096, 0);
  const Tensor oracle = ramp(DType::kFloat64, 4096, 0);
  const Tensor b = ramp(DType::kFloat32, 4096, 1);  // last mantissa bit off in a third
  const Tensor c = ramp(DType::kFloat32, 4096, 2);
  const Tensor other_case = ramp(DType::kFloat32, 4096, 3);
  RunKey key{"m", "i", "a", "h", 0};
  ASSERT_TRUE(store->put_run(key, run_with(a)).ok());
  // Before the oracle: the first platform's tensor is the reference.
  key.platform = "b";
  ASSERT_TRUE(store->put_run(key, run_with(b)).ok());
  EXPECT_EQ(reference_of(*store, b), TensorKey::of(a));
  // The oracle is stored plainly and takes over as the reference.
  key.platform = "oracle";
  ASSERT_TRUE(store->put_run(key, run_with(oracle)).ok());
  EXPECT_FALSE(reference_of(*store, oracle).has_value());
  key.platform = "c";
  ASSERT_TRUE(store->put_run(key, run_with(c)).ok());
  EXPECT_EQ(reference_of(*store, c), TensorKey::of(oracle));
  EXPECT_LT(blob_of(*store, c).size() * 4, blob_of(*store, a).size());
  // Another input is another case: no reference across cases.
  key.input = "j";
  ASSERT_TRUE(store->put_run(key, run_with(other_case)).ok());
  EXPECT_FALSE(reference_of(*store, other_case).has_value());
  for (const Tensor* t : {&a, &b, &c, &oracle, &other_case}) expect_reads_back(*store, *t);
  // A fresh connection (no references in memory) reads them all back too.
  store.reset();
  auto reopened = open_store(dir.file("s.db"));
  for (const Tensor* t : {&a, &b, &c, &oracle, &other_case}) expect_reads_back(*reopened, *t);
}

TEST(TensorBlob, BareZstdFramesStillDecode) {
  TempDir dir;
  auto store = open_store(dir.file("s.db"));
  const Tensor t = ramp(DType::kFloat32, 100, 0);
  std::string frame(ZSTD_compressBound(t.nbytes()), '\0');
  frame.resize(ZSTD_compress(frame.data(), frame.size(), t.raw(), t.nbytes(), 3));
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(store->db(),
                     "INSERT INTO tensors(hash, dtype, shape, nbytes, data) VALUES(?, ?, ?, ?, ?)",
                     -1, &st, nullptr);
  const std::string hash = hash_hex(tensor_hash(t));
  sqlite3_bind_text(st, 1, hash.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, dtype_name(t.dtype()), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 3, shape_json(t.shape()).c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(st, 4, static_cast<int64_t>(t.nbytes()));
  sqlite3_bind_blob(st, 5, frame.data(), static_cast<int>(frame.size()), SQLITE_TRANSIENT);
  ASSERT_EQ(sqlite3_step(st), SQLITE_DONE);
  sqlite3_finalize(st);
  expect_reads_back(*store, t);
}

TEST(TensorBlob, MergedStoresWithTheirOwnReferencesReadBack) {
  TempDir dir;
  std::vector<Tensor> all;
  for (int s = 0; s < 2; ++s) {
    auto store = open_store(dir.file("s" + std::to_string(s) + ".db"));
    for (int p = 0; p < 3; ++p) {
      // Store 1's first tensor is store 0's second: merged, a reference may itself be an XOR blob.
      const Tensor t = ramp(DType::kFloat32, 1024, static_cast<uint32_t>(s + p));
      all.push_back(t);
      ASSERT_TRUE(store
                      ->put_run({"m", "i", "p" + std::to_string(s) + std::to_string(p), "h", 0},
                                run_with(t))
                      .ok());
    }
  }
  auto merged = open_store(dir.file("merged.db"));
  ASSERT_TRUE(merged->merge_from(dir.file("s1.db")).ok());
  ASSERT_TRUE(merged->merge_from(dir.file("s0.db")).ok());
  for (const auto& t : all) expect_reads_back(*merged, t);
}

TEST(TensorBlob, CorruptOrUnknownBlobsAreErrors) {
  const Tensor t = ramp(DType::kFloat32, 64, 0);
  auto blob = encode_tensor_blob(t, nullptr, nullptr);
  ASSERT_TRUE(blob.ok());
  std::string unknown = *blob;
  unknown[3] = 9;
  auto loader = [](const TensorKey&) -> Expected<Tensor> { return not_found("none"); };
  auto r = decode_tensor_blob(unknown, TensorKey::of(t), loader);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown codec 9"), std::string::npos);
  const Tensor b = ramp(DType::kFloat32, 64, 1);
  const TensorKey ref_key = TensorKey::of(t);
  auto xored = encode_tensor_blob(b, &t, &ref_key);
  ASSERT_TRUE(xored.ok());
  r = decode_tensor_blob(*xored, TensorKey::of(b), loader);  // its reference is gone
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("none"), std::string::npos);
  r = decode_tensor_blob(xored->substr(0, 10), TensorKey::of(b), loader);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("too short"), std::string::npos);
}

TEST(ReferenceIndex, OnlyCommittedReferencesCountAndOldOnesAreDropped) {
  ReferenceIndex index(3 * 1024 * sizeof(float), 1024 * sizeof(float));
  const Tensor t = ramp(DType::kFloat32, 1024, 0);
  index.offer("a", {TensorKey::of(t), false});
  EXPECT_NE(index.find("a"), nullptr);  // visible inside its transaction
  index.rollback();
  EXPECT_EQ(index.find("a"), nullptr);
  for (const char* id : {"a", "b", "c"}) index.offer(id, {TensorKey::of(t), false});
  index.commit();
  EXPECT_NE(index.find("a"), nullptr);  // "a" is now the most recent
  index.offer("d", {TensorKey::of(t), false});
  index.commit();
  EXPECT_EQ(index.find("b"), nullptr);  // least recently used, dropped past the budget
  EXPECT_NE(index.find("a"), nullptr);
  EXPECT_NE(index.find("c"), nullptr);
  EXPECT_NE(index.find("d"), nullptr);
}

}  // namespace
}  // namespace ig
