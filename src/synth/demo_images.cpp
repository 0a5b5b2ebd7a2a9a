#include "synth/demo_images.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "inputs/image_codec.h"
#include "inputs/rng.h"

namespace ig {

namespace {

constexpr double kPi = 3.14159265358979323846;

struct Color {
  double r, g, b;
};

Color mix(Color a, Color b, double t) {
  return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

uint8_t to_byte(double v) { return static_cast<uint8_t>(std::clamp(std::lround(v), 0L, 255L)); }

void put(RgbImage& img, int x, int y, Color c) {
  uint8_t* p = img.at(x, y);
  p[0] = to_byte(c.r);
  p[1] = to_byte(c.g);
  p[2] = to_byte(c.b);
}

RgbImage blank(int w, int h) {
  return {w, h, std::vector<uint8_t>(static_cast<size_t>(w) * h * 3)};
}

// Smooth value noise in [0, 1): a lattice of hashed values, cosine-interpolated, 4 octaves.
double value_noise(double x, double y, uint64_t seed) {
  auto lattice = [seed](int64_t i, int64_t j) {
    const std::string key = std::to_string(i) + "," + std::to_string(j);
    return static_cast<double>(derive_seed(seed, key) >> 11) * 0x1.0p-53;
  };
  double sum = 0, amp = 0.5, norm = 0;
  for (int octave = 0; octave < 4; ++octave) {
    const double fx = std::floor(x), fy = std::floor(y);
    const auto i = static_cast<int64_t>(fx), j = static_cast<int64_t>(fy);
    const double tx = (1 - std::cos((x - fx) * kPi)) / 2, ty = (1 - std::cos((y - fy) * kPi)) / 2;
    const double top = lattice(i, j) + (lattice(i + 1, j) - lattice(i, j)) * tx;
    const double bottom = lattice(i, j + 1) + (lattice(i + 1, j + 1) - lattice(i, j + 1)) * tx;
    sum += amp * (top + (bottom - top) * ty);
    norm += amp;
    amp /= 2;
    x *= 2;
    y *= 2;
    seed += 1;
  }
  return sum / norm;
}

RgbImage landscape() {
  RgbImage img = blank(160, 120);
  for (int y = 0; y < img.height; ++y) {
    for (int x = 0; x < img.width; ++x) {
      const double u = x / 160.0, v = y / 120.0;
      Color c = mix({70, 130, 215}, {200, 225, 250}, v / 0.6);  // sky
      const double sun = std::hypot(u - 0.75, v - 0.2);
      if (sun < 0.08) c = mix({255, 250, 210}, c, sun / 0.08 * 0.3);
      const double hill1 = 0.55 + 0.06 * std::sin(u * 7.0 + 1.0);
      const double hill2 = 0.68 + 0.05 * std::sin(u * 11.0 + 4.0);
      const double grain = value_noise(u * 24, v * 24, 11) - 0.5;
      if (v > hill1) c = mix({60, 110, 60}, {40, 80, 45}, (v - hill1) * 3 + grain * 0.4);
      if (v > hill2) c = mix({95, 150, 55}, {70, 120, 40}, (v - hill2) * 3 + grain * 0.6);
      put(img, x, y, c);
    }
  }
  return img;
}

RgbImage flower() {
  RgbImage img = blank(200, 150);
  for (int y = 0; y < img.height; ++y) {
    for (int x = 0; x < img.width; ++x) {
      const double dx = (x - 100) / 75.0, dy = (y - 75) / 75.0;
      const double r = std::hypot(dx, dy), theta = std::atan2(dy, dx);
      const double blur = value_noise(x / 30.0, y / 30.0, 23);
      Color c = mix({30, 90, 40}, {120, 170, 80}, blur);  // out-of-focus foliage
      const double petal = 0.55 + 0.3 * std::cos(5 * theta);
      if (r < petal) c = mix({250, 120, 170}, {200, 40, 110}, r / petal);
      if (r < 0.18) c = mix({250, 210, 40}, {190, 120, 20}, value_noise(x / 3.0, y / 3.0, 5));
      put(img, x, y, c);
    }
  }
  return img;
}

RgbImage shapes() {
  RgbImage img = blank(128, 128);
  for (int y = 0; y < img.height; ++y) {
    for (int x = 0; x < img.width; ++x) {
      Color c = mix({235, 225, 205}, {180, 170, 150}, (x + y) / 256.0);
      if (x > 12 && x < 60 && y > 70 && y < 116) c = {40, 90, 190};  // square
      if (std::hypot(x - 88, y - 40) < 26) c = mix({230, 60, 40}, {150, 30, 20}, (y - 14) / 52.0);
      if (y > 20 && y < 60 && std::abs(x - 36) < (y - 20) * 0.6) c = {240, 190, 40};  // triangle
      if (std::abs((x - 90) - (y - 90)) < 3 && x > 70 && x < 120) c = {30, 30, 30};   // stroke
      put(img, x, y, c);
    }
  }
  return img;
}

RgbImage leaves() {
  RgbImage img = blank(224, 168);
  Rng rng(7);
  struct Leaf {
    double cx, cy, a, b, angle, shade;
  };
  std::vector<Leaf> list;
  for (int i = 0; i < 9; ++i)
    list.push_back({rng.uniform(20, 204), rng.uniform(20, 148), rng.uniform(14, 30),
                    rng.uniform(5, 10), rng.uniform(0, kPi), rng.uniform(0, 1)});
  for (int y = 0; y < img.height; ++y) {
    for (int x = 0; x < img.width; ++x) {
      const double soil = value_noise(x / 9.0, y / 9.0, 31);
      Color c = mix({120, 90, 60}, {70, 50, 35}, soil);
      for (const auto& l : list) {
        const double dx = x - l.cx, dy = y - l.cy;
        const double u = dx * std::cos(l.angle) + dy * std::sin(l.angle);
        const double w = -dx * std::sin(l.angle) + dy * std::cos(l.angle);
        const double e = (u * u) / (l.a * l.a) + (w * w) / (l.b * l.b);
        if (e < 1) c = mix(mix({60, 140, 50}, {30, 90, 30}, l.shade), {20, 60, 20}, e * 0.5);
        if (e < 1 && std::abs(w) < 0.8) c = {150, 190, 110};  // midrib
      }
      put(img, x, y, c);
    }
  }
  return img;
}

RgbImage clouds() {
  RgbImage img = blank(96, 96);
  for (int y = 0; y < img.height; ++y) {
    for (int x = 0; x < img.width; ++x) {
      const double n = value_noise(x / 20.0, y / 20.0, 47);
      const double cover = std::clamp((n - 0.45) * 3, 0.0, 1.0);
      put(img, x, y, mix(mix({90, 150, 230}, {150, 195, 245}, y / 96.0), {245, 245, 248}, cover));
    }
  }
  return img;
}

}  // namespace

std::vector<DemoImage> demo_images() {
  return {{"clouds.png", clouds()},
          {"flower.jpg", flower()},
          {"landscape.png", landscape()},
          {"leaves.jpg", leaves()},
          {"shapes.png", shapes()}};
}

Status write_rgb_image(const std::string& path, const RgbImage& image, int jpeg_quality) {
  if (image.width <= 0 || image.height <= 0 ||
      image.rgb.size() != static_cast<size_t>(image.width) * image.height * 3)
    return invalid_argument("{}: image buffer does not match {}x{} RGB", path, image.width,
                            image.height);
  cv::Mat rgb(image.height, image.width, CV_8UC3, const_cast<uint8_t*>(image.rgb.data()));
  cv::Mat bgr;
  cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
  return write_jpeg(path, bgr, jpeg_quality);
}

Expected<std::vector<std::string>> write_demo_images(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return io_error("{}: cannot create the folder: {}", dir, ec.message());
  std::vector<std::string> written;
  for (const auto& d : demo_images()) {
    const std::string path = (std::filesystem::path(dir) / d.file).string();
    IG_RETURN_IF_ERROR(write_rgb_image(path, d.image, 90));
    written.push_back(path);
  }
  return written;
}

}  // namespace ig
