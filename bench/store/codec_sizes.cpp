// Measures the store's tensor encodings (tensor/compact_codec.h) on the real traces of a study:
// for every (case, value), the oracle's tensor (else the first platform's) is the reference; each
// other distinct tensor is encoded with plain zstd, byte planes + zstd, and XOR with the reference
// + byte planes + zstd; the reference itself with the first two. Prints the totals as JSON.
//
// usage: infergap_bench_codecs DB
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "analysis/study_data.h"
#include "tensor/compact_codec.h"
#include "tensor/convert.h"

namespace ig {
namespace {

struct Totals {
  double raw = 0, raw_xored = 0, xored_first = 0, xored_best = 0, reference_planes = 0, zstd = 0,
         planes = 0, xored = 0, best_of_planes_and_xor = 0;
  double seconds_zstd = 0, seconds_planes = 0, seconds_xor = 0;
  int64_t tensors = 0, references = 0;
};

Expected<size_t> timed_size(const Tensor& t, TensorCodec codec, const Tensor* ref, double& secs) {
  const auto start = std::chrono::steady_clock::now();
  IG_ASSIGN_OR_RETURN(std::string blob, encode_tensor_bytes(t, codec, ref));
  secs += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return blob.size();
}

Status measure(const std::string& db, Totals& totals) {
  IG_ASSIGN_OR_RETURN(auto store, Store::open(db));
  IG_ASSIGN_OR_RETURN(StudyData study, load_study(*store));
  std::set<std::string> oracle_labels;
  for (const auto& o : study.oracles) oracle_labels.insert(o.label);
  for (const auto& c : study.cases) {
    // value -> distinct keys, the reference first.
    std::map<std::string, std::vector<TensorKey>> keys;
    auto add = [&](const RepRun& run, bool front) {
      for (const auto& [value, key] : run.values) {
        auto& v = keys[value];
        if (std::find(v.begin(), v.end(), key) != v.end()) continue;
        v.insert(front ? v.begin() : v.end(), key);
      }
    };
    for (const auto& [label, pc] : c.runs)
      for (const auto& r : pc.reps) add(r, oracle_labels.count(label) > 0);
    for (const auto& [value, list] : keys) {
      IG_ASSIGN_OR_RETURN(Tensor reference, study.load(list.front()));
      if (reference.dtype() == DType::kString) continue;
      for (size_t i = 0; i < list.size(); ++i) {
        Tensor t;
        if (i == 0) {
          t = reference;
        } else {
          IG_ASSIGN_OR_RETURN(t, study.load(list[i]));
        }
        // An fp32 platform's reference is the fp64 oracle rounded once to fp32: decoding
        // needs only the oracle's tensor, stored plainly, and the same rounding.
        Tensor ref = reference;
        if (i > 0 && t.dtype() != reference.dtype() && is_float(t.dtype()) &&
            is_float(reference.dtype()))
          ref = convert_float_tensor(reference, t.dtype());
        const bool comparable = i > 0 && t.dtype() == ref.dtype() && t.shape() == ref.shape();
        totals.raw += static_cast<double>(t.nbytes());
        IG_ASSIGN_OR_RETURN(size_t z,
                            timed_size(t, TensorCodec::kZstd, nullptr, totals.seconds_zstd));
        IG_ASSIGN_OR_RETURN(
            size_t p, timed_size(t, TensorCodec::kPlanesZstd, nullptr, totals.seconds_planes));
        size_t x = p;
        if (comparable) {
          IG_ASSIGN_OR_RETURN(x,
                              timed_size(t, TensorCodec::kXorPlanesZstd, &ref, totals.seconds_xor));
          totals.raw_xored += static_cast<double>(t.nbytes());
          // The alternative reference: the first platform's tensor of the same dtype.
          if (i > 1) {
            IG_ASSIGN_OR_RETURN(Tensor first, study.load(list[1]));
            if (first.dtype() == t.dtype() && first.shape() == t.shape()) {
              double unused = 0;
              IG_ASSIGN_OR_RETURN(size_t y,
                                  timed_size(t, TensorCodec::kXorPlanesZstd, &first, unused));
              totals.xored_first += static_cast<double>(y);
              totals.xored_best += static_cast<double>(std::min(x, y));
            } else {
              totals.xored_first += static_cast<double>(x);
              totals.xored_best += static_cast<double>(x);
            }
          } else {
            totals.xored_first += static_cast<double>(x);
            totals.xored_best += static_cast<double>(x);
          }
        }
        totals.zstd += static_cast<double>(z);
        totals.planes += static_cast<double>(p);
        totals.xored += static_cast<double>(x);
        totals.best_of_planes_and_xor += static_cast<double>(std::min(p, x));
        ++totals.tensors;
        if (i == 0) {
          ++totals.references;
          totals.reference_planes += static_cast<double>(p);
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace
}  // namespace ig

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DB\n", argv[0]);
    return 2;
  }
  ig::Totals t;
  if (ig::Status st = ig::measure(argv[1], t); !st.ok()) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  const double mb = t.raw / 1e6;
  nlohmann::json j{
      {"store", argv[1]},
      {"tensors", t.tensors},
      {"references", t.references},
      {"raw_mb", mb},
      {"zstd_mb", t.zstd / 1e6},
      {"planes_zstd_mb", t.planes / 1e6},
      {"xor_planes_zstd_mb", t.xored / 1e6},
      {"best_mb", t.best_of_planes_and_xor / 1e6},
      {"of_which_references_mb", t.reference_planes / 1e6},
      {"xor_against_first_platform_mb", (t.xored_first + t.reference_planes) / 1e6},
      {"xor_best_of_both_mb", (t.xored_best + t.reference_planes) / 1e6},
      {"encode_mb_per_s",
       {{"zstd", mb / t.seconds_zstd},
        {"planes_zstd", mb / t.seconds_planes},
        {"xor_planes_zstd", t.seconds_xor > 0 ? t.raw_xored / 1e6 / t.seconds_xor : 0.0}}}};
  std::printf("%s\n", j.dump(2).c_str());
  return 0;
}
