// image:PATH inputs: PNG/JPEG files or folders decoded by OpenCV imgcodecs, resized (shorter side,
// as torchvision's Resize), center-cropped, scaled to [0, 1] and normalised per channel.
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "inputs/image_codec.h"
#include "inputs/inputs.h"
#include "inputs/presets.h"
#include "inputs/rng.h"

namespace ig {

namespace fs = std::filesystem;

namespace {

Expected<std::vector<std::string>> list_images(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(path, ec))
      if (e.is_regular_file(ec) && is_image_path(e.path().string()))
        files.push_back(e.path().string());
    if (ec) return io_error("{}: cannot list the folder: {}", path, ec.message());
    if (files.empty())
      return not_found("{}: no images in the folder (PNG, JPEG, BMP, TIFF, WebP)", path);
    std::sort(files.begin(), files.end());
    return files;
  }
  if (!fs::exists(path, ec)) return not_found("{}: no such image file or folder", path);
  return std::vector<std::string>{path};
}

Expected<int64_t> count_option(const InputSource& src, const char* key, int64_t fallback) {
  auto it = src.options.find(key);
  if (it == src.options.end()) return fallback;
  try {
    size_t used = 0;
    const long long v = std::stoll(it->second, &used);
    if (used == it->second.size() && v >= 0) return v;
  } catch (const std::exception&) {
  }
  return invalid_argument("{}='{}' is not a non-negative integer", key, it->second);
}

struct Layout {
  bool nhwc = false;
  int64_t channels = 3;
  int64_t height = -1, width = -1;  // -1: from the preset or the image
  int64_t batch = -1;               // -1: any
};

Layout layout_of(const InputTarget& t) {
  Layout l;
  if (!t.has_shape || t.dims.size() != 4) return l;
  const auto& d = t.dims;
  auto is_channels = [](const Dim& x) { return x.value == 1 || x.value == 3; };
  l.nhwc = !is_channels(d[1]) && is_channels(d[3]);
  l.batch = d[0].value;
  l.channels = l.nhwc ? d[3].value : (d[1].value > 0 ? d[1].value : 3);
  l.height = l.nhwc ? d[1].value : d[2].value;
  l.width = l.nhwc ? d[2].value : d[3].value;
  return l;
}

Expected<const ImagePreset*> choose_preset(const InputSource& src, const InputTarget& t,
                                           const Layout& l) {
  std::string name;
  if (auto it = src.options.find("preset"); it != src.options.end()) {
    name = it->second;
  } else if (auto m = t.metadata.find("infergap.input." + t.name + ".preset");
             m != t.metadata.end()) {
    name = m->second;
  } else if (l.height == 32 && l.width == 32) {
    name = "cifar";
  } else if (l.height == 224 && l.width == 224) {
    name = "imagenet";
  } else {
    return invalid_argument(
        "cannot tell how to preprocess images for this input; add "
        ",preset=imagenet, ,preset=cifar or ,preset=none");
  }
  const ImagePreset* p = find_image_preset(name);
  if (!p) return invalid_argument("unknown preset '{}' (use imagenet, cifar or none)", name);
  return p;
}

// Resizes so the target box fits (the limiting side to exactly its size, the other by integer
// truncation as torchvision does), then crops the center.
Expected<cv::Mat> resize_and_crop(const cv::Mat& img, int64_t out_h, int64_t out_w,
                                  const ImagePreset& p, const std::string& path) {
  const double ratio = p.default_size > 0 ? static_cast<double>(p.resize_to) / p.default_size : 1;
  const int64_t rh = std::lround(static_cast<double>(out_h) * ratio);
  const int64_t rw = std::lround(static_cast<double>(out_w) * ratio);
  const int64_t h = img.rows, w = img.cols;
  int64_t new_h, new_w;
  if (rh * w >= rw * h) {  // height limits
    new_h = rh;
    new_w = std::max<int64_t>(rw, rh * w / h);
  } else {
    new_w = rw;
    new_h = std::max<int64_t>(rh, rw * h / w);
  }
  cv::Mat resized = img;
  if (new_h != h || new_w != w) {
    const bool shrink = new_h <= h && new_w <= w;
    cv::resize(img, resized, cv::Size(static_cast<int>(new_w), static_cast<int>(new_h)), 0, 0,
               shrink ? cv::INTER_AREA : cv::INTER_LINEAR);
  }
  const int64_t top = (new_h - out_h) / 2, left = (new_w - out_w) / 2;
  if (top < 0 || left < 0) return internal_error("{}: resize left the image too small", path);
  return resized(cv::Rect(static_cast<int>(left), static_cast<int>(top), static_cast<int>(out_w),
                          static_cast<int>(out_h)))
      .clone();
}

}  // namespace

Expected<Tensor> image_input(const InputSource& src, const InputTarget& t, std::string& recipe) {
  IG_RETURN_IF_ERROR(
      check_source_options(src, {"preset", "index", "limit", "seed", "dtype"}, "image input"));
  if (!is_float(t.dtype))
    return invalid_argument("images need a floating-point input, the model declares {}",
                            dtype_name(t.dtype));
  IG_ASSIGN_OR_RETURN(std::vector<std::string> files, list_images(src.head));
  IG_ASSIGN_OR_RETURN(const int64_t index, count_option(src, "index", -1));
  IG_ASSIGN_OR_RETURN(const int64_t limit, count_option(src, "limit", 0));
  if (index >= 0) {
    if (index >= static_cast<int64_t>(files.size()))
      return invalid_argument("index={} but {} has {} image(s)", index, src.head, files.size());
    files = {files[static_cast<size_t>(index)]};
  }
  if (limit > 0 && static_cast<int64_t>(files.size()) > limit)
    files.resize(static_cast<size_t>(limit));
  Layout l = layout_of(t);
  const auto count = static_cast<int64_t>(files.size());
  if (l.batch > 0 && l.batch != count)
    return invalid_argument(
        "{} gives {} image(s) but the model takes a batch of {}; add ,index=K "
        "or ,limit=N",
        src.head, count, l.batch);
  if (l.channels != 1 && l.channels != 3)
    return invalid_argument("images have 1 or 3 channels, the model declares {}", l.channels);
  IG_ASSIGN_OR_RETURN(const ImagePreset* preset, choose_preset(src, t, l));
  if (l.height < 0) l.height = preset->default_size;
  if (l.width < 0) l.width = preset->default_size;

  std::vector<double> values;
  for (const auto& file : files) {
    IG_ASSIGN_OR_RETURN(const cv::Mat img, read_image(file, static_cast<int>(l.channels)));
    if (l.height <= 0 || l.width <= 0) {  // preset none without a fixed size: the first image's
      l.height = img.rows;
      l.width = img.cols;
    }
    IG_ASSIGN_OR_RETURN(cv::Mat box, resize_and_crop(img, l.height, l.width, *preset, file));
    const size_t base = values.size();
    values.resize(base + static_cast<size_t>(l.channels * l.height * l.width));
    for (int64_t y = 0; y < l.height; ++y) {
      const uint8_t* row = box.ptr<uint8_t>(static_cast<int>(y));
      for (int64_t x = 0; x < l.width; ++x) {
        for (int64_t c = 0; c < l.channels; ++c) {
          // OpenCV decodes BGR; the tensor is RGB.
          const uint8_t v = row[x * l.channels + (l.channels == 3 ? 2 - c : 0)];
          const auto pc = static_cast<size_t>(c);
          const double scaled = (v / 255.0 - preset->mean[pc]) / preset->std[pc];
          const int64_t at =
              l.nhwc ? (y * l.width + x) * l.channels + c : (c * l.height + y) * l.width + x;
          values[base + static_cast<size_t>(at)] = scaled;
        }
      }
    }
  }
  const Shape shape = l.nhwc ? Shape{count, l.height, l.width, l.channels}
                             : Shape{count, l.channels, l.height, l.width};
  recipe = fmt::format("image:{},preset={}", src.head, preset->name);
  if (index >= 0) recipe += fmt::format(",index={}", index);
  if (limit > 0) recipe += fmt::format(",limit={}", limit);
  recipe += fmt::format(",dtype={}", dtype_name(t.dtype));
  return tensor_from_doubles(t.dtype, shape, values);
}

}  // namespace ig
