// Image files, read and written through OpenCV's imgcodecs in a module loaded on first use
// (libinfergap_imgcodecs.so, inputs/image_codec_abi.h): a process that touches no image file
// starts without imgcodecs' 120 libraries (about 90 ms of relocations, every worker and command).
#pragma once

#include <opencv2/core.hpp>
#include <string>

#include "core/status.h"

namespace ig {

// `path` decoded to 8-bit BGR (channels 3) or grey (channels 1).
Expected<cv::Mat> read_image(const std::string& path, int channels);
// BGR pixels (CV_8UC3) written as a JPEG of `quality`.
Status write_jpeg(const std::string& path, const cv::Mat& bgr, int quality);

}  // namespace ig
