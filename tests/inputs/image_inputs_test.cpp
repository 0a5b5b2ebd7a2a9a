// Image inputs: PNG and JPEG files with known pixels preprocess to the expected tensors.
#include <gtest/gtest.h>

#include "../support/input_spec.h"

#include <cmath>
#include <fstream>

#include "../support/onnx_builder.h"
#include "inputs/inputs.h"
#include "synth/demo_images.h"

namespace ig {
namespace {

using testing::TempDir;

InputTarget image_target(std::vector<int64_t> dims, DType dtype = DType::kFloat32) {
  InputTarget t;
  t.name = "x";
  t.dtype = dtype;
  t.has_shape = true;
  for (int64_t d : dims) t.dims.push_back(Dim{d, d < 0 ? "N" : ""});
  t.model_label = "test.onnx";
  return t;
}

// Pixel (x, y) = (7x, 5y, 3(x+y)) mod 256: every channel and position distinguishable.
RgbImage pattern(int w, int h) {
  RgbImage img{w, h, std::vector<uint8_t>(static_cast<size_t>(w) * h * 3)};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = img.at(x, y);
      p[0] = static_cast<uint8_t>(7 * x);
      p[1] = static_cast<uint8_t>(5 * y);
      p[2] = static_cast<uint8_t>(3 * (x + y));
    }
  return img;
}

TEST(ImageInputs, PngWithCifarPresetIsRgbOver255InNchw) {
  TempDir dir;
  const RgbImage img = pattern(32, 32);
  ASSERT_TRUE(write_rgb_image(dir.file("p.png"), img).ok());
  auto in = testing::input_from_spec("image:" + dir.file("p.png") + ",preset=cifar",
                                     image_target({-1, 3, 32, 32}));
  ASSERT_TRUE(in.ok()) << in.status().to_string();
  ASSERT_EQ(in->tensor.shape(), (Shape{1, 3, 32, 32}));
  const float* v = in->tensor.data<float>();
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < 32; ++y)
      for (int x = 0; x < 32; ++x)
        ASSERT_EQ(v[(c * 32 + y) * 32 + x],
                  static_cast<float>(img.rgb[(y * 32 + x) * 3 + c] / 255.0))
            << c << "," << y << "," << x;
  EXPECT_EQ(in->source, "image:" + dir.file("p.png") + ",preset=cifar,dtype=float");
}

TEST(ImageInputs, ImagenetPresetCropsTheCenterAndNormalises) {
  TempDir dir;
  const RgbImage img = pattern(256, 256);  // already 256: no resize, crop 16 on each side
  ASSERT_TRUE(write_rgb_image(dir.file("p.png"), img).ok());
  auto in = testing::input_from_spec(dir.file("p.png") + ",preset=imagenet",
                                     image_target({1, 3, 224, 224}));
  ASSERT_TRUE(in.ok()) << in.status().to_string();
  const double mean[] = {0.485, 0.456, 0.406}, sd[] = {0.229, 0.224, 0.225};
  const float* v = in->tensor.data<float>();
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < 224; y += 7)
      for (int x = 0; x < 224; x += 5) {
        const uint8_t p = img.rgb[((y + 16) * 256 + (x + 16)) * 3 + c];
        ASSERT_EQ(v[(c * 224 + y) * 224 + x], static_cast<float>((p / 255.0 - mean[c]) / sd[c]));
      }
}

TEST(ImageInputs, DownscaleAveragesConstantBlocks) {
  TempDir dir;
  // 64x64 made of 2x2 constant blocks, resized to 32 by area: each block becomes one pixel.
  RgbImage img{64, 64, std::vector<uint8_t>(64 * 64 * 3)};
  const RgbImage small = pattern(32, 32);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x)
      for (int c = 0; c < 3; ++c) img.at(x, y)[c] = small.rgb[((y / 2) * 32 + x / 2) * 3 + c];
  ASSERT_TRUE(write_rgb_image(dir.file("big.png"), img).ok());
  auto in = testing::input_from_spec("image:" + dir.file("big.png"),
                                     image_target({1, 3, 32, 32}));  // cifar by size
  ASSERT_TRUE(in.ok()) << in.status().to_string();
  const float* v = in->tensor.data<float>();
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < 32 * 32; ++i)
      ASSERT_EQ(v[c * 1024 + i], static_cast<float>(small.rgb[i * 3 + c] / 255.0));
}

TEST(ImageInputs, JpegOfConstantBlocksDecodesToTheKnownPixels) {
  TempDir dir;
  // Gray 8x8 blocks (JPEG's own block size) at quality 100: DC-only blocks in luma with neutral
  // chroma decode back exactly.
  RgbImage img{32, 32, std::vector<uint8_t>(32 * 32 * 3)};
  auto level = [](int x, int y) {
    return static_cast<uint8_t>(16 + 40 * ((x / 8 + 2 * (y / 8)) % 6));
  };
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 32; ++x)
      for (int c = 0; c < 3; ++c) img.at(x, y)[c] = level(x, y);
  ASSERT_TRUE(write_rgb_image(dir.file("g.jpg"), img, 100).ok());
  auto in = testing::input_from_spec(dir.file("g.jpg"), image_target({1, 3, 32, 32}));
  ASSERT_TRUE(in.ok()) << in.status().to_string();
  const float* v = in->tensor.data<float>();
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < 32; ++y)
      for (int x = 0; x < 32; ++x)
        ASSERT_EQ(v[(c * 32 + y) * 32 + x], static_cast<float>(level(x, y) / 255.0))
            << c << "," << y << "," << x;
}

TEST(ImageInputs, FoldersBecomeSortedBatchesAndErrorsNameTheFile) {
  TempDir dir;
  ASSERT_TRUE(write_rgb_image(dir.file("b.png"), pattern(40, 30)).ok());
  ASSERT_TRUE(write_rgb_image(dir.file("a.jpg"), pattern(20, 50)).ok());
  std::ofstream(dir.file("notes.txt")) << "not an image";
  auto all = testing::input_from_spec("image:" + dir.path.string() + ",preset=cifar",
                                      image_target({-1, 3, 32, 32}));
  ASSERT_TRUE(all.ok()) << all.status().to_string();
  EXPECT_EQ(all->tensor.shape(), (Shape{2, 3, 32, 32}));
  auto second =
      testing::input_from_spec(dir.path.string() + ",index=1", image_target({-1, 3, 32, 32}));
  ASSERT_TRUE(second.ok());
  auto b = testing::input_from_spec(dir.file("b.png"), image_target({-1, 3, 32, 32}));
  EXPECT_TRUE(second->tensor.bitwise_equal(b->tensor));  // sorted: a.jpg, b.png

  auto fixed = testing::input_from_spec(dir.path.string(), image_target({1, 3, 32, 32}));
  ASSERT_FALSE(fixed.ok());
  EXPECT_NE(fixed.status().message().find("batch of 1"), std::string::npos);
  std::ofstream(dir.file("broken.png")) << "not a png";
  auto broken = testing::input_from_spec(dir.file("broken.png"), image_target({1, 3, 32, 32}));
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("broken.png"), std::string::npos);
  auto odd = testing::input_from_spec(dir.file("b.png"), image_target({1, 3, 48, 48}));
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.status().message().find("preset="), std::string::npos);
  TempDir empty;
  EXPECT_FALSE(
      testing::input_from_spec("image:" + empty.path.string(), image_target({1, 3, 32, 32})).ok());
}

TEST(ImageInputs, GrayscaleAndNhwcLayouts) {
  TempDir dir;
  const RgbImage img = pattern(32, 32);
  ASSERT_TRUE(write_rgb_image(dir.file("p.png"), img).ok());
  auto nhwc = testing::input_from_spec(dir.file("p.png"), image_target({1, 32, 32, 3}));
  ASSERT_TRUE(nhwc.ok()) << nhwc.status().to_string();
  EXPECT_EQ(nhwc->tensor.data<float>()[(5 * 32 + 9) * 3 + 2],
            static_cast<float>(img.rgb[(5 * 32 + 9) * 3 + 2] / 255.0));
  auto gray = testing::input_from_spec(dir.file("p.png"), image_target({1, 1, 32, 32}));
  ASSERT_TRUE(gray.ok()) << gray.status().to_string();
  EXPECT_EQ(gray->tensor.shape(), (Shape{1, 1, 32, 32}));
}

TEST(DemoImages, WrittenFilesDecodeToTheGeneratedPixels) {
  TempDir dir;
  auto files = write_demo_images(dir.path.string());
  ASSERT_TRUE(files.ok()) << files.status().to_string();
  const auto images = demo_images();
  ASSERT_EQ(files->size(), images.size());
  for (const auto& d : images) {
    if (d.file.ends_with(".jpg")) continue;  // lossy
    auto in = testing::input_from_spec(
        dir.file(d.file) + ",preset=none",
        image_target({1, 3, d.image.height, d.image.width}, DType::kFloat64));
    ASSERT_TRUE(in.ok()) << in.status().to_string();
    const double* v = in->tensor.data<double>();
    const int64_t plane = static_cast<int64_t>(d.image.width) * d.image.height;
    for (int64_t i = 0; i < plane; ++i)
      ASSERT_EQ(v[plane + i], d.image.rgb[static_cast<size_t>(i) * 3 + 1] / 255.0) << d.file;
  }
  // The committed copies in data/images are what the generator makes.
  for (const auto& d : images) {
    const std::string committed = std::string(INFERGAP_SOURCE_DIR) + "/data/images/" + d.file;
    auto a = testing::input_from_spec(committed + ",preset=none",
                                      image_target({1, 3, d.image.height, d.image.width}));
    auto b = testing::input_from_spec(dir.file(d.file) + ",preset=none",
                                      image_target({1, 3, d.image.height, d.image.width}));
    ASSERT_TRUE(a.ok()) << a.status().to_string();
    EXPECT_TRUE(a->tensor.bitwise_equal(b->tensor)) << d.file << ": run scripts/make-images";
  }
}

}  // namespace
}  // namespace ig
