#include "analysis/reduce/boundary.h"

#include <cstring>

namespace ig {

Labelled top1(const std::vector<double>& logits) {
  Labelled r;
  double best = 0, second = 0;
  for (size_t i = 0; i < logits.size(); ++i) {
    const double v = logits[i];
    if (r.label < 0 || v > best) {
      second = r.label < 0 ? v : best;
      best = v;
      r.label = static_cast<int>(i);
    } else if (i == 1 || v > second) {
      second = v;
    }
  }
  r.gap = logits.size() > 1 ? best - second : 0;
  return r;
}

namespace {

// x(t) = a + t (b - a), rounded to float once per element; t in [0, 1].
Tensor interpolate(const Tensor& a, const Tensor& b, double t) {
  Tensor out = a.clone();
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  float* po = out.data<float>();
  for (int64_t i = 0; i < a.numel(); ++i)
    po[i] = static_cast<float>(static_cast<double>(pa[i]) +
                               t * (static_cast<double>(pb[i]) - static_cast<double>(pa[i])));
  return out;
}

bool same_bits(const Tensor& x, const Tensor& y) {
  return std::memcmp(x.data<float>(), y.data<float>(), x.nbytes()) == 0;
}

struct Point {
  Labelled a, b;
  std::vector<double> logits_a, logits_b;
};

}  // namespace

Expected<BoundaryResult> find_boundary(const std::vector<Tensor>& starts, const LogitsFn& fa,
                                       const LogitsFn& fb, const BoundaryOptions& options) {
  if (starts.size() < 2) return invalid_argument("boundary search needs >= 2 start inputs");
  for (const auto& s : starts)
    if (s.dtype() != DType::kFloat32 || s.shape() != starts[0].shape())
      return invalid_argument("boundary search needs float32 start inputs of one shape; got {}",
                              s.describe());
  BoundaryResult result;
  auto eval = [&](const Tensor& x) -> Expected<Point> {
    Point p;
    IG_ASSIGN_OR_RETURN(p.logits_a, fa(x));
    IG_ASSIGN_OR_RETURN(p.logits_b, fb(x));
    result.evaluations += 2;
    p.a = top1(p.logits_a);
    p.b = top1(p.logits_b);
    return p;
  };
  auto record = [&](const Tensor& x, const Point& p, double t, size_t i, size_t j) {
    result.found = true;
    result.input = x;
    result.t = t;
    result.start_a = static_cast<int>(i);
    result.start_b = static_cast<int>(j);
    result.on_a = p.a;
    result.on_b = p.b;
    result.logits_a = p.logits_a;
    result.logits_b = p.logits_b;
  };
  std::vector<Point> natural;
  for (size_t i = 0; i < starts.size(); ++i) {
    IG_ASSIGN_OR_RETURN(Point p, eval(starts[i]));
    ++result.natural_inputs;
    if (p.a.label != p.b.label) {
      ++result.natural_flips;
      if (!result.found) record(starts[i], p, 0, i, i);
    }
    natural.push_back(std::move(p));
  }
  if (result.found) {
    result.note = "a natural input already flips";
    return result;
  }
  for (size_t i = 0; i < starts.size() && result.pairs_tried < options.max_pairs; ++i) {
    for (size_t j = i + 1; j < starts.size() && result.pairs_tried < options.max_pairs; ++j) {
      if (natural[i].a.label == natural[j].a.label) continue;
      ++result.pairs_tried;
      // Invariant: A labels x(lo) with lo_label and x(hi) with something else.
      const int lo_label = natural[i].a.label;
      double lo = 0, hi = 1;
      for (int step = 0; step < options.max_steps; ++step) {
        const double mid = lo + (hi - lo) / 2;
        Tensor x = interpolate(starts[i], starts[j], mid);
        if (same_bits(x, interpolate(starts[i], starts[j], lo)) ||
            same_bits(x, interpolate(starts[i], starts[j], hi)))
          break;  // no float left between the ends
        IG_ASSIGN_OR_RETURN(Point p, eval(x));
        if (p.a.label != p.b.label) {
          record(x, p, mid, i, j);
          result.note = "bisection step " + std::to_string(step + 1);
          return result;
        }
        (p.a.label == lo_label ? lo : hi) = mid;
      }
    }
  }
  result.note =
      result.pairs_tried == 0
          ? "platform A gives every start input the same label; try more starts"
          : "no flip within float resolution on " + std::to_string(result.pairs_tried) + " pair(s)";
  return result;
}

}  // namespace ig
