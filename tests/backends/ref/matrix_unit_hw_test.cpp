// The x86 matrix-unit presets against the instructions themselves, where this CPU has them:
// VDPBF16PS (avx512-bf16), TDPBF16PS (amx-bf16, after asking the kernel for the tile state) and
// VFMADDPH (avx512-fp16). Machines differ; a missing instruction skips with its CPU flag named.
// 10^5 random dot products and the discriminating cases each.
#include <gtest/gtest.h>
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>

#include "backends/ref/numerics/matrix_unit.h"
#include "core/float16.h"

namespace ig {
namespace mma_hw_test {
namespace {

const MatrixUnit& preset(const std::string& name) {
  for (const MmaPreset& p : mma_presets())
    if (p.name == name) return p.config;
  throw std::runtime_error("no preset " + name);
}

// Random values of several magnitudes, signs and zeros, some subnormal in the input format.
float random_value(std::mt19937& rng, int emin) {
  std::uniform_int_distribution<int> kind(0, 9), e(-12, 12), sub(emin - 8, emin + 1);
  std::uniform_real_distribution<float> m(1.0f, 2.0f);
  const float sign = (rng() & 1) ? -1.0f : 1.0f;
  switch (kind(rng)) {
    case 0:
      return sign * 0.0f;
    case 1:
      return sign * std::ldexp(m(rng), sub(rng));
    default:
      return sign * std::ldexp(m(rng), e(rng));
  }
}

uint32_t bits(float v) { return std::bit_cast<uint32_t>(v); }

// --- VDPBF16PS: one dot product per lane, pairs in order.

__attribute__((target("avx512f,avx512bf16"))) void dpbf16_lanes(const uint16_t* a,
                                                                const uint16_t* b, int pairs,
                                                                float* acc) {
  __m512 c = _mm512_loadu_ps(acc);
  for (int p = 0; p < pairs; ++p) {
    // Lane j holds pair p of dot product j: a[(j * pairs + p) * 2 + {0, 1}].
    alignas(64) uint16_t va[32], vb[32];
    for (int j = 0; j < 16; ++j) {
      for (int h = 0; h < 2; ++h) {
        va[2 * j + h] = a[(j * pairs + p) * 2 + h];
        vb[2 * j + h] = b[(j * pairs + p) * 2 + h];
      }
    }
    __m512bh x, y;
    std::memcpy(&x, va, 64);
    std::memcpy(&y, vb, 64);
    c = _mm512_dpbf16_ps(c, x, y);
  }
  _mm512_storeu_ps(acc, c);
}

// Compares 16 dot products of 2 * pairs terms with the preset; returns the mismatches.
int check_dpbf16(const std::vector<float>& a, const std::vector<float>& b,
                 const std::vector<float>& c, int pairs) {
  std::vector<uint16_t> ha(a.size()), hb(b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ha[i] = float_to_bfloat16_bits(a[i]);
    hb[i] = float_to_bfloat16_bits(b[i]);
  }
  std::vector<float> acc = c;
  dpbf16_lanes(ha.data(), hb.data(), pairs, acc.data());
  int bad = 0;
  for (int j = 0; j < 16; ++j) {
    std::vector<float> x(static_cast<size_t>(2 * pairs)), y(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
      x[i] = bfloat16_bits_to_float(ha[static_cast<size_t>(j * 2 * pairs) + i]);
      y[i] = bfloat16_bits_to_float(hb[static_cast<size_t>(j * 2 * pairs) + i]);
    }
    const float want = mma_dot(preset("avx512-bf16"), x.data(), 1, y.data(), 1, 2 * pairs,
                               c[static_cast<size_t>(j)]);
    if (bits(want) != bits(acc[static_cast<size_t>(j)])) {
      if (bad < 3)
        ADD_FAILURE() << "lane " << j << ": VDPBF16PS " << std::hex << bits(acc[j])
                      << ", avx512-bf16 preset " << bits(want);
      ++bad;
    }
  }
  return bad;
}

TEST(MatrixUnitHardware, Avx512Bf16MatchesVdpbf16ps) {
  if (!__builtin_cpu_supports("avx512bf16")) GTEST_SKIP() << "CPU lacks avx512_bf16";
  // The discriminating cases, each as lane 0 of one instruction sequence (others zero):
  // the odd product first (c + 1 cancels before 2^-30 is added), each addition rounded (two
  // half-ulp terms do not move 1), subnormal inputs read as zero, subnormal results flushed.
  struct Case {
    std::vector<float> a, b;
    float c;
  };
  const std::vector<Case> cases = {
      {{0x1p-30f, 1.0f}, {1.0f, 1.0f}, -1.0f},    {{0x1p-24f, 0x1p-24f}, {1.0f, 1.0f}, 1.0f},
      {{0x1p-130f, 0.0f}, {0x1p10f, 0.0f}, 0.0f}, {{0x1p-70f, 0.0f}, {0x1p-70f, 0.0f}, 0.0f},
      {{-0.0f, -0.0f}, {1.0f, 1.0f}, -0.0f},      {{0x1p127f, 0x1p127f}, {2.0f, 2.0f}, 0.0f},
  };
  for (const Case& k : cases) {
    std::vector<float> a(32, 0.0f), b(32, 0.0f), c(16, 0.0f);
    a[0] = k.a[0], a[1] = k.a[1], b[0] = k.b[0], b[1] = k.b[1], c[0] = k.c;
    EXPECT_EQ(check_dpbf16(a, b, c, 1), 0) << "case a=" << k.a[0] << "," << k.a[1];
  }
  std::mt19937 rng(7);
  int bad = 0;
  const int pairs = 16;  // dot products of 32 terms
  for (int round = 0; round < 100000 / 16; ++round) {
    std::vector<float> a(static_cast<size_t>(16 * 2 * pairs)), b(a.size()), c(16);
    for (auto& v : a) v = random_value(rng, -126);
    for (auto& v : b) v = random_value(rng, -126);
    for (auto& v : c) v = random_value(rng, -126);
    bad += check_dpbf16(a, b, c, pairs);
  }
  EXPECT_EQ(bad, 0) << "of 100000 dot products";
}

// --- TDPBF16PS: a 16 x 16 tile of dot products of 32 terms.

struct alignas(64) TileConfig {
  uint8_t palette = 1, start_row = 0, reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};

bool amx_permitted() {
  constexpr int kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
}

__attribute__((target("amx-tile,amx-bf16"))) void tile_dpbf16(const uint16_t* a,
                                                              const uint16_t* b_vnni, float* c) {
  TileConfig cfg;
  for (int t = 0; t < 3; ++t) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  _tile_loadconfig(&cfg);
  _tile_loadd(0, c, 64);
  _tile_loadd(1, a, 64);
  _tile_loadd(2, b_vnni, 64);
  _tile_dpbf16ps(0, 1, 2);
  _tile_stored(0, c, 64);
  _tile_release();
}

TEST(MatrixUnitHardware, AmxBf16MatchesTdpbf16ps) {
  if (!__builtin_cpu_supports("amx-bf16")) GTEST_SKIP() << "CPU lacks amx_bf16";
  if (!amx_permitted()) GTEST_SKIP() << "the kernel refused the AMX tile state (arch_prctl)";
  std::mt19937 rng(11);
  int bad = 0;
  for (int round = 0; round < 100000 / 256 + 1; ++round) {
    std::vector<uint16_t> a(16 * 32), b(32 * 16), bv(32 * 16);  // A [16 x 32], B [32 x 16]
    std::vector<float> c(256);
    for (auto& v : a) v = float_to_bfloat16_bits(random_value(rng, -126));
    for (auto& v : b) v = float_to_bfloat16_bits(random_value(rng, -126));
    for (auto& v : c) v = random_value(rng, -126);
    for (int k = 0; k < 16; ++k) {  // B's pairs along K side by side (the VNNI layout)
      for (int n = 0; n < 16; ++n) {
        bv[static_cast<size_t>(k * 32 + 2 * n)] = b[static_cast<size_t>((2 * k) * 16 + n)];
        bv[static_cast<size_t>(k * 32 + 2 * n + 1)] = b[static_cast<size_t>((2 * k + 1) * 16 + n)];
      }
    }
    std::vector<float> got = c;
    tile_dpbf16(a.data(), bv.data(), got.data());
    for (int m = 0; m < 16; ++m) {
      for (int n = 0; n < 16; ++n) {
        std::vector<float> x(32), y(32);
        for (int k = 0; k < 32; ++k) {
          x[static_cast<size_t>(k)] = bfloat16_bits_to_float(a[static_cast<size_t>(m * 32 + k)]);
          y[static_cast<size_t>(k)] = bfloat16_bits_to_float(b[static_cast<size_t>(k * 16 + n)]);
        }
        const float want = mma_dot(preset("amx-bf16"), x.data(), 1, y.data(), 1, 32,
                                   c[static_cast<size_t>(m * 16 + n)]);
        bad += bits(want) != bits(got[static_cast<size_t>(m * 16 + n)]);
      }
    }
  }
  EXPECT_EQ(bad, 0);
}

// --- VFMADDPH: an fp16 FMA chain per lane.

__attribute__((target("avx512f,avx512fp16"))) void fmadd_ph_lanes(const uint16_t* a,
                                                                  const uint16_t* b, int k,
                                                                  uint16_t* acc) {
  __m512h c;
  std::memcpy(&c, acc, 64);
  for (int i = 0; i < k; ++i) {
    __m512h x, y;
    std::memcpy(&x, a + i * 32, 64);
    std::memcpy(&y, b + i * 32, 64);
    c = _mm512_fmadd_ph(x, y, c);
  }
  std::memcpy(acc, &c, 64);
}

TEST(MatrixUnitHardware, Avx512Fp16MatchesVfmaddph) {
  if (!__builtin_cpu_supports("avx512fp16")) GTEST_SKIP() << "CPU lacks avx512_fp16";
  std::mt19937 rng(13);
  int bad = 0;
  const int k = 16;
  for (int round = 0; round < 100000 / 32 + 1; ++round) {
    std::vector<uint16_t> a(static_cast<size_t>(k * 32)), b(a.size()), c(32);
    for (auto& v : a) v = float_to_half_bits(random_value(rng, -14));
    for (auto& v : b) v = float_to_half_bits(random_value(rng, -14));
    for (auto& v : c) v = float_to_half_bits(random_value(rng, -14));
    std::vector<uint16_t> got = c;
    fmadd_ph_lanes(a.data(), b.data(), k, got.data());
    for (int j = 0; j < 32; ++j) {
      std::vector<float> x(k), y(k);
      for (int i = 0; i < k; ++i) {
        x[static_cast<size_t>(i)] = half_bits_to_float(a[static_cast<size_t>(i * 32 + j)]);
        y[static_cast<size_t>(i)] = half_bits_to_float(b[static_cast<size_t>(i * 32 + j)]);
      }
      const float want = mma_dot(preset("avx512-fp16"), x.data(), 1, y.data(), 1, k,
                                 half_bits_to_float(c[static_cast<size_t>(j)]));
      bad += float_to_half_bits(want) != got[static_cast<size_t>(j)];
    }
  }
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace mma_hw_test
}  // namespace ig
