// libinfergap_imgcodecs.so: OpenCV's imgcodecs behind a C interface (inputs/image_codec.h).
// Debian's imgcodecs links GDAL, poppler, HDF5 and some 120 libraries more, whose relocations were
// 91% of a worker's start; as a module loaded on first use, only a process that reads or writes an
// image pays for them.
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "inputs/image_codec_abi.h"

namespace {

void say(char* err, unsigned long err_len, const char* what) {
  if (err && err_len) std::snprintf(err, err_len, "%s", what);
}

}  // namespace

extern "C" unsigned char* infergap_image_read(const char* path, int channels, int* rows, int* cols,
                                              char* err, unsigned long err_len) {
  cv::Mat img;
  try {
    img = cv::imread(path, channels == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR);
  } catch (const cv::Exception& e) {
    std::snprintf(err, err_len, "cannot decode the image: %s", e.what());
    return nullptr;
  }
  if (img.empty() || img.depth() != CV_8U || img.channels() != channels) {
    say(err, err_len, "not a readable 8-bit PNG/JPEG image");
    return nullptr;
  }
  const size_t row_bytes = static_cast<size_t>(img.cols) * static_cast<size_t>(channels);
  auto* out = static_cast<unsigned char*>(std::malloc(row_bytes * static_cast<size_t>(img.rows)));
  if (!out) {
    say(err, err_len, "out of memory");
    return nullptr;
  }
  for (int y = 0; y < img.rows; ++y)
    std::memcpy(out + static_cast<size_t>(y) * row_bytes, img.ptr<unsigned char>(y), row_bytes);
  *rows = img.rows;
  *cols = img.cols;
  return out;
}

extern "C" int infergap_image_write_jpeg(const char* path, const unsigned char* bgr, int rows,
                                         int cols, int quality, char* err, unsigned long err_len) {
  const cv::Mat img(rows, cols, CV_8UC3, const_cast<unsigned char*>(bgr));
  const std::vector<int> params = {cv::IMWRITE_JPEG_QUALITY, quality};
  try {
    if (cv::imwrite(path, img, params)) return 0;
    say(err, err_len, "cannot write the image");
  } catch (const cv::Exception& e) {
    std::snprintf(err, err_len, "cannot write the image: %s", e.what());
  }
  return 1;
}

extern "C" void infergap_image_free(unsigned char* pixels) { std::free(pixels); }
