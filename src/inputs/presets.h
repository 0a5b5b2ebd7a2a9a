// Image preprocessing presets shared by the image input source and the zoo's model metadata.
#pragma once

#include <array>
#include <string>
#include <utility>

namespace ig {

struct ImagePreset {
  std::string name;
  int64_t default_size;  // output height = width when the model does not fix it
  int64_t resize_to;     // the shorter side is resized to this (for default_size), then cropped
  std::array<double, 3> mean;  // per RGB channel, applied after scaling to [0, 1]
  std::array<double, 3> std;
};

// "imagenet": resize 256, center crop 224, mean/std normalisation; "cifar": 32x32, /255;
// "none": the image at its own size, /255. Returns nullptr for an unknown name.
const ImagePreset* find_image_preset(const std::string& name);
// The smallest and largest value the preset can produce (over all channels).
std::pair<double, double> image_preset_range(const ImagePreset& p);

}  // namespace ig
