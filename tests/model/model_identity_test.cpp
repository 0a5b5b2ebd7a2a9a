#include "model/model_identity.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "../support/onnx_builder.h"

namespace ig::testing {
namespace {

void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

void age(const std::string& path, time_t seconds) {
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  const timespec times[2] = {st.st_atim, {st.st_mtim.tv_sec - seconds, st.st_mtim.tv_nsec}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

TEST(ModelVersion, AYoungFileIsComparedByContent) {
  TempDir dir;
  Model m;
  m.path = dir.file("m.onnx");
  write(m.path, "aaaa");
  ModelVersion v;
  EXPECT_EQ(v.check(m.path), ModelVersion::kChanged);  // nothing recorded yet
  EXPECT_EQ(v.check(m.path), ModelVersion::kSame);
  // Same size, other bytes, with the recorded modification time: only the content tells.
  struct stat st {};
  ASSERT_EQ(::stat(m.path.c_str(), &st), 0);
  write(m.path, "aaab");
  const timespec times[2] = {st.st_atim, st.st_mtim};
  ASSERT_EQ(utimensat(AT_FDCWD, m.path.c_str(), times, 0), 0);
  EXPECT_EQ(v.check(m.path), ModelVersion::kChanged);
}

TEST(ModelVersion, AnOldFileIsComparedByStat) {
  TempDir dir;
  Model m;
  m.path = dir.file("m.onnx");
  write(m.path, "aaaa");
  age(m.path, 3600);
  ModelVersion v;
  EXPECT_EQ(v.check(m.path), ModelVersion::kChanged);
  EXPECT_EQ(v.check(m.path), ModelVersion::kSame);
  write(m.path, "bbbbb");
  EXPECT_EQ(v.check(m.path), ModelVersion::kChanged);
  Model other;
  other.path = dir.file("missing.onnx");
  EXPECT_EQ(v.check(other.path), ModelVersion::kNoFile);
  EXPECT_EQ(v.check(m.path), ModelVersion::kChanged);  // nothing recorded after a missing file
}

}  // namespace
}  // namespace ig::testing
