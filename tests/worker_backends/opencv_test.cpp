#include <set>

#include <opencv2/core.hpp>

#include "backend_test_util.h"

namespace ig::testing {
namespace {

bool cv_has_avx2() { return cv::checkHardwareSupport(CV_CPU_AVX2); }

TEST(Opencv, ConvnetAgreesWithReferenceLayerByLayer) {
  TempDir dir;
  auto model = load_model(save(small_convnet(), dir.path.string(), "convnet.onnx"));
  ASSERT_TRUE(model.ok());
  std::map<std::string, Tensor> feeds = {
      {"X", random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 7)}};
  Outcome ref = run_platform("ref", *model, feeds);
  Outcome cv = run_platform("opencv:threads=2", *model, feeds);
  ASSERT_TRUE(cv.status.ok()) << cv.status.to_string();
  EXPECT_LT(max_rel_error(cv.outputs[0].tensor, ref.outputs[0].tensor), 1e-3);
  // Layers come back under their ONNX value names, with the ONNX shapes.
  for (const std::string value : {"c1", "r1", "p1", "c2", "a1", "r2", "g1", "logits"}) {
    ASSERT_TRUE(cv.trace.count(value)) << value;
    EXPECT_EQ(cv.trace.at(value).shape(), ref.trace.at(value).shape()) << value;
    EXPECT_LT(max_rel_error(cv.trace.at(value), ref.trace.at(value)), 1e-3) << value;
  }
}

TEST(Opencv, DisableNamesAreValidated) {
  auto bad = make_backend(*parse_platform_spec("opencv:disable=AVX512_SKX"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'AVX512_SKX', not an OpenCV CPU feature"),
            std::string::npos)
      << bad.status().message();
  auto env = BackendRegistry::global().find("opencv")->environment(
      *parse_platform_spec("opencv:disable=AVX512-SKX+AVX2+AVX"));
  ASSERT_TRUE(env.ok());
  EXPECT_EQ((*env)["OPENCV_CPU_DISABLE"], "AVX512-SKX,AVX2,AVX");
  // In a process started without that variable the features are still on: refused, not ignored.
  if (!std::getenv("OPENCV_CPU_DISABLE") && cv_has_avx2()) {
    auto here = make_backend(*parse_platform_spec("opencv:disable=AVX2"));
    ASSERT_FALSE(here.ok());
    EXPECT_NE(here.status().message().find("AVX2 is still enabled"), std::string::npos);
  }
}

TEST(Opencv, ImporterFailuresAreUnsupportedWithOpenCvsMessage) {
  TempDir dir;
  GraphBuilder b;
  b.io(true, "X", {2, 3, 3});
  b.io(false, "Y", {2});
  b.node("Det", "det", {"X"}, {"Y"});
  auto model = load_model(save(b.model, dir.path.string(), "det.onnx"));
  ASSERT_TRUE(model.ok());
  Outcome o =
      run_platform("opencv", *model, {{"X", random_uniform_tensor(DType::kFloat32, {2, 3, 3}, 1)}});
  EXPECT_EQ(o.status.code(), StatusCode::kUnsupported);
  EXPECT_NE(o.status.message().find("OpenCV's ONNX importer"), std::string::npos)
      << o.status.message();
  // The node OpenCV names in its message is marked, so the run's rejection names it and its op.
  EXPECT_EQ(o.status.node(), 0) << o.status.message();
}

TEST(Opencv, ImporterFailureMarksTheNodeOpenCvNamesNotTheFirst) {
  TempDir dir;
  GraphBuilder b;
  b.io(true, "X", {2, 3, 3});
  b.io(false, "Y", {2});
  b.node("Relu", "relu", {"X"}, {"R"});
  b.node("Det", "", {"R"}, {"Y"});  // unnamed: OpenCV names it by its first output
  auto model = load_model(save(b.model, dir.path.string(), "relu_det.onnx"));
  ASSERT_TRUE(model.ok());
  Outcome o =
      run_platform("opencv", *model, {{"X", random_uniform_tensor(DType::kFloat32, {2, 3, 3}, 1)}});
  ASSERT_EQ(o.status.code(), StatusCode::kUnsupported) << o.status.to_string();
  EXPECT_EQ(o.status.node(), 1) << o.status.message();
}

// OPENCV_CPU_DISABLE is read once per process: each level runs in a child started with it.
TEST(Opencv, DisabledCpuFeaturesGiveDifferentBits) {
  TempDir dir;
  const std::string path = save(long_conv(), dir.path.string(), "long_conv.onnx");
  std::set<std::string> distinct;
  for (const std::string spec :
       {"opencv", "opencv:disable=AVX512-SKX", "opencv:disable=AVX512-SKX+AVX2",
        "opencv:disable=AVX512-SKX+AVX2+AVX"}) {
    auto env = child_env(spec);
    env["IG_TEST_MODEL"] = path;
    ChildResult r = run_child("Child.DISABLED_RunSpec", env);
    ASSERT_EQ(r.signal, 0) << spec;
    ASSERT_EQ(child_field(r.out, "ERROR"), "") << spec;
    const std::string hash = child_field(r.out, "OUT");
    ASSERT_FALSE(hash.empty()) << r.out;
    distinct.insert(hash);
    std::printf("%s %s\n", spec.c_str(), hash.c_str());
  }
  EXPECT_GE(distinct.size(), 3u);
}

}  // namespace
}  // namespace ig::testing
