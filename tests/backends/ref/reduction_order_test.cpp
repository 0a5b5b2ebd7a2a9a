#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "backends/ref/numerics/ordered_gemm.h"

namespace ig {
namespace {

ReductionOrder order(const std::string& s, int split = 1) {
  auto o = parse_reduction_order(s);
  EXPECT_TRUE(o.ok()) << s;
  o->split = split;
  return *o;
}

float dot(const std::vector<float>& a, const std::vector<float>& b, const ReductionOrder& o,
          bool fma = false) {
  AccumulationPolicy p;
  p.order = o;
  p.fma = fma;
  float c = 0;
  ordered_gemm<float>(p, 1, 1, static_cast<int64_t>(a.size()), a.data(), 0, 1, b.data(), 1, &c, 1);
  return c;
}

std::vector<float> random_vector(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(rng() >> 8) * 0x1.0p-24f;
  return v;
}

// Reference implementations of the stated orders, written the obvious scalar way.
float seq_sum(const std::vector<float>& t, size_t lo, size_t hi) {
  float s = 0;
  for (size_t i = lo; i < hi; ++i) s = s + t[i];
  return s;
}
float pairwise_sum(const std::vector<float>& t, size_t lo, size_t hi) {
  if (hi - lo <= 1) return seq_sum(t, lo, hi);
  const size_t mid = lo + (hi - lo) / 2;
  return pairwise_sum(t, lo, mid) + pairwise_sum(t, mid, hi);
}
float lanes_sum(const std::vector<float>& t, int lanes) {
  std::vector<float> l(static_cast<size_t>(lanes), 0.0f);
  for (size_t i = 0; i < t.size(); ++i) l[i % static_cast<size_t>(lanes)] += t[i];
  for (int w = lanes; w > 1; w /= 2) {
    for (int i = 0; i < w / 2; ++i) l[static_cast<size_t>(i)] += l[static_cast<size_t>(i + w / 2)];
  }
  return l[0];
}
float block_sum(const std::vector<float>& t, size_t k) {
  float total = 0;
  for (size_t b = 0; b < t.size(); b += k) total += seq_sum(t, b, std::min(b + k, t.size()));
  return total;
}

TEST(ReductionOrder, EachOrderMatchesItsStatedDefinitionBitForBit) {
  const auto a = random_vector(1000, 1);
  const std::vector<float> ones(a.size(), 1.0f);  // terms are then exactly a[k]
  EXPECT_EQ(std::bit_cast<uint32_t>(dot(a, ones, order("seq"))),
            std::bit_cast<uint32_t>(seq_sum(a, 0, a.size())));
  EXPECT_EQ(std::bit_cast<uint32_t>(dot(a, ones, order("pairwise"))),
            std::bit_cast<uint32_t>(pairwise_sum(a, 0, a.size())));
  for (int lanes : {2, 4, 8, 16, 32}) {
    EXPECT_EQ(std::bit_cast<uint32_t>(dot(a, ones, order("lanes" + std::to_string(lanes)))),
              std::bit_cast<uint32_t>(lanes_sum(a, lanes)))
        << lanes;
  }
  EXPECT_EQ(std::bit_cast<uint32_t>(dot(a, ones, order("block64"))),
            std::bit_cast<uint32_t>(block_sum(a, 64)));
  // split=4 with seq: four parts of 250 summed in order.
  const float parts =
      ((seq_sum(a, 0, 250) + seq_sum(a, 250, 500)) + seq_sum(a, 500, 750)) + seq_sum(a, 750, 1000);
  EXPECT_EQ(std::bit_cast<uint32_t>(dot(a, ones, order("seq", 4))), std::bit_cast<uint32_t>(parts));
}

TEST(ReductionOrder, Lanes8AndLanes16DifferOnRandomDataButAgreeWhenPartialSumsAreExact) {
  const auto a = random_vector(4096, 2);
  const auto b = random_vector(4096, 3);
  EXPECT_NE(dot(a, b, order("lanes8")), dot(a, b, order("lanes16")));
  // Small integers: every partial sum is exact in fp32, so any order gives the same bits.
  std::vector<float> ia(4096), ib(4096);
  for (size_t i = 0; i < ia.size(); ++i) {
    ia[i] = static_cast<float>(i % 7);
    ib[i] = static_cast<float>(i % 5);
  }
  const float ref = dot(ia, ib, order("seq"));
  for (const char* o : {"pairwise", "lanes4", "lanes8", "lanes16", "lanes32", "block32"}) {
    EXPECT_EQ(dot(ia, ib, order(o)), ref) << o;
    EXPECT_EQ(dot(ia, ib, order(o, 3)), ref) << o << " split 3";
    EXPECT_EQ(dot(ia, ib, order(o), true), ref) << o << " fma";
  }
}

TEST(ReductionOrder, FmaRoundsOnceAndChangesBits) {
  // x*x = 1 + 2^-11 + 2^-24 needs 25 bits. Plain: round(x*x) = 1 + 2^-11 cancels the first term
  // exactly to 0. FMA keeps the 2^-24 residue.
  const float x = 1.0f + 0x1.0p-12f;
  const std::vector<float> a = {-1.0f, x};
  const std::vector<float> b = {1.0f + 0x1.0p-11f, x};
  EXPECT_EQ(dot(a, b, order("seq")), 0.0f);
  EXPECT_EQ(dot(a, b, order("seq"), true), 0x1.0p-24f);
}

TEST(ReductionOrder, NarrowAccumulatorLosesSmallTerms) {
  // Adding 1 to 2048 in an fp16 accumulator does nothing (the ulp at 2048 is 2).
  std::vector<float> a(4097, 1.0f);
  const std::vector<float> ones(a.size(), 1.0f);
  AccumulationPolicy p;
  p.rounding = AccRounding::kFp16;
  float c = 0;
  ordered_gemm<float>(p, 1, 1, static_cast<int64_t>(a.size()), a.data(), 0, 1, ones.data(), 1, &c,
                      1);
  EXPECT_EQ(c, 2048.0f);
  EXPECT_EQ(dot(a, ones, order("seq")), 4097.0f);
}

TEST(ReductionOrder, ManyOutputsAtOnceEqualOneAtATime) {
  const int64_t M = 3, N = 17, K = 300;
  const auto A = random_vector(M * K, 4);
  const auto B = random_vector(K * N, 5);
  AccumulationPolicy p;
  p.order = order("lanes8", 2);
  std::vector<float> C(M * N);
  ordered_gemm<float>(p, M, N, K, A.data(), K, 1, B.data(), N, C.data(), N);
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t j = 0; j < N; ++j) {
      std::vector<float> row(A.begin() + m * K, A.begin() + (m + 1) * K), col(K);
      for (int64_t k = 0; k < K; ++k) col[k] = B[k * N + j];
      EXPECT_EQ(C[m * N + j], dot(row, col, p.order));
    }
  }
}

TEST(ReductionOrder, ParseRejectsUnknownOrdersListingValidOnes) {
  auto bad = parse_reduction_order("lanes7");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("lanes16"), std::string::npos);
  EXPECT_FALSE(parse_reduction_order("block0").ok());
  EXPECT_EQ(parse_reduction_order("block128")->block, 128);
}

}  // namespace
}  // namespace ig
