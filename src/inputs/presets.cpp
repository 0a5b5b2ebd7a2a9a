#include "inputs/presets.h"

#include <algorithm>
#include <vector>

namespace ig {

const ImagePreset* find_image_preset(const std::string& name) {
  static const std::vector<ImagePreset> presets = {
      {"imagenet", 224, 256, {0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}},
      {"cifar", 32, 32, {0, 0, 0}, {1, 1, 1}},
      {"none", 0, 0, {0, 0, 0}, {1, 1, 1}},
  };
  for (const auto& p : presets)
    if (p.name == name) return &p;
  return nullptr;
}

std::pair<double, double> image_preset_range(const ImagePreset& p) {
  double lo = 0, hi = 0;
  for (size_t c = 0; c < 3; ++c) {
    const double a = (0 - p.mean[c]) / p.std[c];
    const double b = (1 - p.mean[c]) / p.std[c];
    lo = c == 0 ? a : std::min(lo, a);
    hi = c == 0 ? b : std::max(hi, b);
  }
  return {lo, hi};
}

}  // namespace ig
