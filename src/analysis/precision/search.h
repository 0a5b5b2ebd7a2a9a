// The keep-in-float search of `infergap precision`: the fewest layers to leave in float so that a
// derived model meets a bound. First the shortest prefix of the layers ranked by the error they
// make on their own (binary search over the prefix length, assuming more float never hurts), then
// delta debugging (ddmin) on that prefix until removing any one layer breaks the bound: the set is
// 1-minimal. Each distinct set is tried once.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"

namespace ig {

struct PrecisionTrial {
  std::vector<std::string> kept;  // layers left in float, in ranking order
  bool meets = false;
  std::string how;    // the measured figure, in words (e.g. "rel error 0.0031")
  std::string phase;  // "start", "all", "prefix" or "ddmin"
};

struct PrecisionSearch {
  bool found = false;  // false: even with every layer in float the bound is missed
  std::vector<std::string> kept;
  std::vector<PrecisionTrial> trials;  // in the order run
  size_t prefix = 0;                   // the greedy prefix the ddmin phase started from
};

struct TrialResult {
  bool meets = false;
  std::string how;
};
using TryKept = std::function<Expected<TrialResult>(const std::vector<std::string>& kept)>;

// `ranked`: candidate layers, the worst first. `try_kept` builds and runs the model with those
// layers in float and says whether it meets the bound.
Expected<PrecisionSearch> search_keep_in_float(const std::vector<std::string>& ranked,
                                               const TryKept& try_kept);

}  // namespace ig
