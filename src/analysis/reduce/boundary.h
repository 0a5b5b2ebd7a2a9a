// Boundary search (iNNformant, the paper's ref. [35]): inputs whose top-1 label differs between
// two platforms. Natural inputs rarely flip labels; inputs close to a decision boundary do. The
// search bisects the segment between two inputs that platform A labels differently, evaluating A
// and B at each midpoint, until their labels differ or the segment has no float left to split.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "tensor/tensor.h"

namespace ig {

// One evaluation: the logits (first graph output, flattened) of `input` on a platform.
using LogitsFn = std::function<Expected<std::vector<double>>(const Tensor& input)>;

struct Labelled {
  int label = -1;  // argmax (first on ties)
  double gap = 0;  // top-1 minus top-2 logit
};
Labelled top1(const std::vector<double>& logits);

struct BoundaryOptions {
  int max_steps = 64;  // bisection steps per pair
  int max_pairs = 4;   // start-point pairs tried
};

struct BoundaryResult {
  bool found = false;
  int natural_inputs = 0, natural_flips = 0;  // start points where A and B already disagree
  int pairs_tried = 0, evaluations = 0;       // evaluations count A and B separately
  double t = 0;                               // position on the segment between the two starts
  int start_a = -1, start_b = -1;             // the pair's indices among the start points
  Tensor input;                               // the flipping input (when found)
  Labelled on_a, on_b;
  std::vector<double> logits_a, logits_b;
  std::string note;  // why the search stopped
};

// `starts` are the natural inputs (all of one dtype and shape, float). Errors from a platform end
// the search with that error.
Expected<BoundaryResult> find_boundary(const std::vector<Tensor>& starts, const LogitsFn& a,
                                       const LogitsFn& b, const BoundaryOptions& options);

}  // namespace ig
