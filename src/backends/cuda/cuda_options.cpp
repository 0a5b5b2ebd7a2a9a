#include "backends/cuda/cuda_options.h"

namespace ig::cuda {

const char* algo_name(Algo a) { return kAlgoNames[static_cast<size_t>(a)]; }

std::vector<std::string> algo_names() { return {kAlgoNames.begin(), kAlgoNames.end()}; }

std::string algos_to_string(const std::vector<Algo>& algos) {
  std::string s;
  for (Algo a : algos) s += (s.empty() ? "" : "/") + std::string(algo_name(a));
  return s;
}

Expected<Algo> algo_for_conv(const Options& o, size_t index, size_t count) {
  if (o.algos.size() == 1) return o.algos[0];
  if (o.algos.size() != count) {
    return invalid_argument(
        "algo={} lists {} algorithms but the model has {} convolutions (give one per Conv node, "
        "in node order, or a single algorithm for all)",
        algos_to_string(o.algos), o.algos.size(), count);
  }
  return o.algos[index];
}

}  // namespace ig::cuda
