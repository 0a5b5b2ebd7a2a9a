// The matrix units the emulator knows, each from a published characterisation, and the knobs
// that change one parameter of a preset.
#include <algorithm>

#include "backends/ref/numerics/matrix_unit.h"
#include "core/strings.h"

namespace ig {

namespace {

constexpr const char* kMmaSim =
    "MMA-Sim (Xie et al., arXiv 2511.10909; PyPI mmasim 2.1.1), verified against it bit for bit";
constexpr const char* kSdm = "Intel SDM, instruction pseudocode";
constexpr const char* kArm = "Arm ARM, BFDOT/BFMMLA and FPCR.EBF";

// NVIDIA tensor cores: one fused step of k products with the accumulator, `bits` kept, the sum
// truncated to fp32 (rz) or rounded to fp16; zeros align at e_zero.
MatrixUnit nvidia(const char* in, int k, int bits, int e_zero) {
  MatrixUnit u;
  u.family = MmaFamily::kFused;
  u.in = in;
  u.in_truncate = std::string(in) == "tf32";
  u.k = k;
  u.bits = bits;
  u.out = MmaRounding::kRz;
  u.e_zero = e_zero;
  u.positive_zero = true;
  u.canonical_nan = true;
  return u;
}
MatrixUnit nvidia_fp16_acc(int k, int bits, int e_zero) {
  MatrixUnit u = nvidia("fp16", k, bits, e_zero);
  u.out = MmaRounding::kRne;
  u.accfmt = "fp16";
  return u;
}
MatrixUnit nvidia_fp8(int bits, const char* accfmt) {
  MatrixUnit u = nvidia("e4m3", 32, bits, -133);
  u.accfmt = accfmt;
  return u;
}
MatrixUnit cdna2(const char* in) {
  MatrixUnit u;
  u.family = MmaFamily::kTree;
  u.in = in;
  u.k = 4;
  u.ftz = true;
  u.daz = true;
  return u;
}
MatrixUnit cdna3(const char* in, int k) {
  MatrixUnit u;
  u.family = std::string(in) == "e4m3fnuz" ? MmaFamily::kTwoStageEvenOdd : MmaFamily::kTwoStage;
  u.in = in;
  u.in_truncate = std::string(in) == "tf32";
  u.k = k;
  u.bits = 24;
  u.bits2 = 31;
  u.canonical_nan = true;
  return u;
}
// pad: a convolution tap's channels as the x86 kernels lay them out: in VNNI pairs (2), or in
// whole AMX tile rows (32, oneDNN's brgemm convolutions; measured on Emerald Rapids).
MatrixUnit x86(const char* in, MmaFamily family, int k, int pad = 1) {
  MatrixUnit u;
  u.family = family;
  u.in = in;
  u.k = k;
  u.daz = u.ftz = std::string(in) == "bf16";  // the FP16 instructions keep subnormals
  u.accfmt = std::string(in) == "fp16" ? "fp16" : "fp32";
  u.odd_first = family == MmaFamily::kFused && k == 2;
  u.pad_channels = pad;
  return u;
}
MatrixUnit arm(bool ebf) {
  MatrixUnit u;
  u.in = "bf16";
  u.k = 2;
  u.acc_last = true;
  if (!ebf) {
    u.round_products = true;
    u.out = MmaRounding::kRo;
    u.daz = u.ftz = true;
  }
  return u;
}

std::vector<MmaPreset> make_presets() {
  std::vector<MmaPreset> p = {
      {"v100-fp16", "NVIDIA V100 (Volta) mma.m8n8k4 f16 -> f32", kMmaSim,
       nvidia("fp16", 4, 23, -131)},
      {"a100-fp16", "NVIDIA A100 (Ampere) mma f16 -> f32", kMmaSim, nvidia("fp16", 8, 24, -132)},
      {"a100-fp16-acc16", "NVIDIA A100 (Ampere) mma f16 -> f16", kMmaSim,
       nvidia_fp16_acc(8, 24, -20)},
      {"a100-bf16", "NVIDIA A100 (Ampere) mma bf16 -> f32", kMmaSim, nvidia("bf16", 8, 24, -132)},
      {"a100-tf32", "NVIDIA A100 (Ampere) mma tf32 -> f32", kMmaSim, nvidia("tf32", 4, 24, -132)},
      {"h100-fp16", "NVIDIA H100 (Hopper) wgmma f16 -> f32", kMmaSim, nvidia("fp16", 16, 25, -133)},
      {"h100-fp16-acc16", "NVIDIA H100 (Hopper) wgmma f16 -> f16", kMmaSim,
       nvidia_fp16_acc(16, 25, -21)},
      {"h100-bf16", "NVIDIA H100 (Hopper) wgmma bf16 -> f32", kMmaSim,
       nvidia("bf16", 16, 25, -133)},
      {"h100-tf32", "NVIDIA H100 (Hopper) wgmma tf32 -> f32", kMmaSim, nvidia("tf32", 8, 25, -133)},
      {"h100-fp8", "NVIDIA H100 (Hopper) wgmma e4m3 -> f32 (13 fraction bits kept)", kMmaSim,
       nvidia_fp8(13, "e8m13")},
      {"b200-fp16", "NVIDIA B200 (Blackwell) tcgen05.mma f16 -> f32", kMmaSim,
       nvidia("fp16", 16, 25, -133)},
      {"b200-bf16", "NVIDIA B200 (Blackwell) tcgen05.mma bf16 -> f32", kMmaSim,
       nvidia("bf16", 16, 25, -133)},
      {"b200-tf32", "NVIDIA B200 (Blackwell) tcgen05.mma tf32 -> f32", kMmaSim,
       nvidia("tf32", 8, 25, -133)},
      {"b200-fp8", "NVIDIA B200 (Blackwell) tcgen05.mma e4m3 -> f32", kMmaSim,
       nvidia_fp8(25, "fp32")},
      {"mi250-fp16", "AMD MI250 (CDNA2) v_mfma f16 -> f32", kMmaSim, cdna2("fp16")},
      {"mi250-bf16", "AMD MI250 (CDNA2) v_mfma bf16_1k -> f32", kMmaSim, cdna2("bf16")},
      {"mi300-fp16", "AMD MI300 (CDNA3) v_mfma f16 -> f32", kMmaSim, cdna3("fp16", 8)},
      {"mi300-bf16", "AMD MI300 (CDNA3) v_mfma bf16 -> f32", kMmaSim, cdna3("bf16", 8)},
      {"mi300-tf32", "AMD MI300 (CDNA3) v_mfma xf32 -> f32", kMmaSim, cdna3("tf32", 4)},
      {"mi300-fp8", "AMD MI300 (CDNA3) v_mfma fp8 (e4m3fnuz) -> f32", kMmaSim,
       cdna3("e4m3fnuz", 16)},
      {"amx-bf16", "Intel AMX TDPBF16PS (one tile row: 32 products)",
       std::string(kSdm) + "; verified on Intel Emerald Rapids",
       x86("bf16", MmaFamily::kInterleaved, 32, 32)},
      {"avx512-bf16", "Intel/AMD AVX512-BF16 VDPBF16PS (one lane: a pair per step)",
       std::string(kSdm) + "; verified on AMD Zen 4 and Intel Emerald Rapids",
       x86("bf16", MmaFamily::kFused, 2, 2)},
      {"avx512-fp16", "Intel AVX512-FP16 VFMADDPH (an fp16 FMA chain)",
       std::string(kSdm) + "; verified on Intel Emerald Rapids", x86("fp16", MmaFamily::kFused, 1)},
      {"arm-bf16-ebf0", "Arm BFDOT/BFMMLA, FPCR.EBF=0 (round to odd, flush)", kArm, arm(false)},
      {"arm-bf16-ebf1", "Arm BFDOT/BFMMLA, FPCR.EBF=1 (fused pair, RNE)", kArm, arm(true)},
  };
  for (MmaPreset& x : p) x.config.preset = x.name;
  return p;
}

const char* family_name(MmaFamily f) {
  switch (f) {
    case MmaFamily::kFused:
      return "fused";
    case MmaFamily::kTwoStage:
      return "two-stage";
    case MmaFamily::kTwoStageEvenOdd:
      return "two-stage-eo";
    case MmaFamily::kTree:
      return "tree";
    case MmaFamily::kInterleaved:
      return "interleaved";
  }
  return "?";
}

const char* rounding_name(MmaRounding r) {
  return r == MmaRounding::kRz ? "rz" : (r == MmaRounding::kRne ? "rne" : "ro");
}

Expected<int> parse_int(const std::string& key, const std::string& value, int lo, int hi) {
  if (!value.empty() && value.size() <= 3 &&
      value.find_first_not_of("0123456789") == std::string::npos) {
    const int v = std::stoi(value);
    if (v >= lo && v <= hi) return v;
  }
  return invalid_argument("{}={} is not valid (valid: {}..{})", key, value, lo, hi);
}

Expected<std::string> parse_choice(const std::string& key, const std::string& value,
                                   const std::vector<std::string>& valid) {
  if (std::find(valid.begin(), valid.end(), value) != valid.end()) return value;
  return invalid_argument("{}={} is not valid (valid: {})", key, value, join_names(valid));
}

}  // namespace

const std::vector<MmaPreset>& mma_presets() {
  static const std::vector<MmaPreset> kPresets = make_presets();
  return kPresets;
}

std::vector<std::string> mma_preset_names() {
  std::vector<std::string> names;
  for (const MmaPreset& p : mma_presets()) names.push_back(p.name);
  return names;
}

std::string MatrixUnit::describe() const {
  std::string s = preset + " (" + family_name(family) + ", " + in +
                  (in_truncate ? " truncated" : "") + ", k=" + std::to_string(k) +
                  ", bits=" + (bits == kMmaExactBits ? std::string("exact") : std::to_string(bits));
  if (family == MmaFamily::kTwoStage || family == MmaFamily::kTwoStageEvenOdd)
    s += ", bits2=" + std::to_string(bits2);
  s += std::string(", ") + rounding_name(out) + " " + accfmt;
  if (acc_last) s += ", acc last";
  if (daz || ftz) s += std::string(", ") + (daz && ftz ? "flush" : (daz ? "daz" : "ftz"));
  return s + ")";
}

bool is_mma_key(const std::string& key) { return key == "mma" || key.rfind("mma-", 0) == 0; }

const std::map<std::string, std::string>& mma_knobs() {
  static const std::map<std::string, std::string> kKnobs = [] {
    return std::map<std::string, std::string>{
        {"mma", fmt::format("{}", fmt::join(mma_preset_names(), "|")) +
                    " (off): MatMul, Gemm and Conv computed by this matrix unit, bit for bit "
                    "(docs/PLATFORMS.md names each one's source)"},
        {"mma-in", fmt::format("{}", fmt::join(mma_format_names(), "|")) +
                       " (the preset's): the unit's input format"},
        {"mma-k", "1..64 (the preset's): products per fused step"},
        {"mma-bits",
         "exact|1..54 (the preset's): fraction bits kept below the step's largest "
         "exponent"},
        {"mma-out", "rz|rne|ro (the preset's): rounding of each step's result"},
        {"mma-accfmt", "fp32|fp16|e8m13 (the preset's): accumulator format"},
        {"mma-acc", "first|last (the preset's): accumulator inside the fused sum or added after"},
        {"mma-sub",
         "keep|daz|ftz|flush (the preset's): subnormal inputs read as zero (daz), "
         "results flushed (ftz), both (flush)"},
        {"mma-pad",
         "1..64 (the preset's): a convolution's channels at each kernel tap padded with zeros "
         "to a multiple of this (conv=direct), as the kernel lays them out in the unit's rows"},
    };
  }();
  return kKnobs;
}

Expected<MatrixUnit> parse_matrix_unit(const std::map<std::string, std::string>& options) {
  MatrixUnit u;
  if (auto it = options.find("mma"); it != options.end()) {
    const auto& presets = mma_presets();
    auto p = std::find_if(presets.begin(), presets.end(),
                          [&](const MmaPreset& x) { return x.name == it->second; });
    if (p == presets.end()) {
      return invalid_argument("mma={} is not a known matrix unit (valid: {})", it->second,
                              join_names(mma_preset_names()));
    }
    u = p->config;
  }
  bool changed = false;
  for (const auto& [key, value] : options) {
    if (key == "mma" || !is_mma_key(key)) continue;
    changed = true;
    if (key == "mma-in") {
      IG_ASSIGN_OR_RETURN(u.in, parse_choice(key, value, mma_format_names()));
      u.in_truncate = false;
    } else if (key == "mma-k") {
      IG_ASSIGN_OR_RETURN(u.k, parse_int(key, value, 1, 64));
    } else if (key == "mma-bits") {
      if (value == "exact") {
        u.bits = kMmaExactBits;
      } else {
        IG_ASSIGN_OR_RETURN(u.bits, parse_int(key, value, 1, 54));
      }
    } else if (key == "mma-out") {
      IG_ASSIGN_OR_RETURN(const std::string r, parse_choice(key, value, {"rz", "rne", "ro"}));
      u.out = r == "rz" ? MmaRounding::kRz : (r == "rne" ? MmaRounding::kRne : MmaRounding::kRo);
    } else if (key == "mma-accfmt") {
      IG_ASSIGN_OR_RETURN(u.accfmt, parse_choice(key, value, {"fp32", "fp16", "e8m13"}));
    } else if (key == "mma-acc") {
      IG_ASSIGN_OR_RETURN(const std::string a, parse_choice(key, value, {"first", "last"}));
      u.acc_last = a == "last";
    } else if (key == "mma-sub") {
      IG_ASSIGN_OR_RETURN(const std::string s,
                          parse_choice(key, value, {"keep", "daz", "ftz", "flush"}));
      u.daz = s == "daz" || s == "flush";
      u.ftz = s == "ftz" || s == "flush";
    } else if (key == "mma-pad") {
      IG_ASSIGN_OR_RETURN(u.pad_channels, parse_int(key, value, 1, 64));
    } else {
      std::vector<std::string> keys;
      for (const auto& [k, _] : mma_knobs()) keys.push_back(k);
      return invalid_argument("unknown key '{}' (matrix-unit keys: {})", key, join_names(keys));
    }
  }
  if (changed) u.preset += "+";
  if (u.family == MmaFamily::kTree && u.k != 2 && u.k != 4)
    return invalid_argument("mma={}: the tree unit sums pairs or quads (mma-k=2 or 4)", u.preset);
  if ((u.family == MmaFamily::kTwoStage || u.family == MmaFamily::kTwoStageEvenOdd) &&
      u.bits == kMmaExactBits)
    return invalid_argument("mma={}: a two-stage unit keeps a finite number of bits", u.preset);
  return u;
}

}  // namespace ig
