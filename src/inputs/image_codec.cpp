#include "inputs/image_codec.h"

#include <dlfcn.h>

#include <memory>

#include "core/module_file.h"
#include "inputs/image_codec_abi.h"

namespace ig {

namespace {

struct Codec {
  decltype(&infergap_image_read) read = nullptr;
  decltype(&infergap_image_write_jpeg) write_jpeg = nullptr;
  decltype(&infergap_image_free) free = nullptr;
  std::string error;
};

const Codec& codec() {
  static const Codec c = [] {
    Codec out;
    const std::string path = module_file(INFERGAP_IMGCODECS_MODULE);
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      out.error = "cannot load the image module: " + std::string(::dlerror());
      return out;
    }
    out.read = reinterpret_cast<decltype(out.read)>(::dlsym(handle, "infergap_image_read"));
    out.write_jpeg =
        reinterpret_cast<decltype(out.write_jpeg)>(::dlsym(handle, "infergap_image_write_jpeg"));
    out.free = reinterpret_cast<decltype(out.free)>(::dlsym(handle, "infergap_image_free"));
    if (!out.read || !out.write_jpeg || !out.free) out.error = path + " lacks a function";
    return out;
  }();
  return c;
}

}  // namespace

Expected<cv::Mat> read_image(const std::string& path, int channels) {
  const Codec& c = codec();
  if (!c.error.empty()) return internal_error("{}: {}", path, c.error);
  char err[512] = {0};
  int rows = 0, cols = 0;
  std::unique_ptr<unsigned char, decltype(c.free)> pixels(
      c.read(path.c_str(), channels, &rows, &cols, err, sizeof(err)), c.free);
  if (!pixels) return invalid_argument("{}: {}", path, err);
  return cv::Mat(rows, cols, channels == 1 ? CV_8UC1 : CV_8UC3, pixels.get()).clone();
}

Status write_jpeg(const std::string& path, const cv::Mat& bgr, int quality) {
  const Codec& c = codec();
  if (!c.error.empty()) return internal_error("{}: {}", path, c.error);
  const cv::Mat dense = bgr.isContinuous() ? bgr : bgr.clone();
  char err[512] = {0};
  if (c.write_jpeg(path.c_str(), dense.ptr<unsigned char>(0), dense.rows, dense.cols, quality, err,
                   sizeof(err)) != 0)
    return io_error("{}: {}", path, err);
  return Status::Ok();
}

}  // namespace ig
