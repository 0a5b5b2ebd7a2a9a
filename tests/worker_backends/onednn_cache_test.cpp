// The oneDNN backend keeps primitives and reordered weights per model file across runs; a
// cached run must give the bits of an uncached one, and a rewritten file must not be served
// from the cache.
#include <fcntl.h>
#include <sys/stat.h>

#include <fstream>

#include "backend_test_util.h"
#include "worker/job.h"

namespace ig::testing {
namespace {

// Every traced value's hash, the outputs' hashes and every report, in execution order.
std::vector<std::string> fingerprint(const Outcome& o) {
  std::vector<std::string> f;
  for (const auto& [value, t] : o.trace) f.push_back(value + "=" + hex_hash(t));
  for (const auto& v : o.outputs) f.push_back("out=" + hex_hash(v.tensor));
  for (const auto& [node, r] : o.reports) f.push_back(node + ":" + r.covers + ":" + r.note);
  return f;
}

// Rewrites `path` in place (same inode), restoring its modification time: as if the rewrite fell
// within one timestamp tick of the previous write, which only a content comparison can tell.
void rewrite_in_place(const onnx::ModelProto& proto, const std::string& path) {
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  std::string bytes;
  ASSERT_TRUE(proto.SerializeToString(&bytes));
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  const timespec times[2] = {st.st_atim, st.st_mtim};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  struct stat after {};
  ASSERT_EQ(::stat(path.c_str(), &after), 0);
  ASSERT_EQ(after.st_ino, st.st_ino);
  ASSERT_EQ(after.st_size, st.st_size);
}

Outcome run_on(Backend& backend, const Model& model, const std::map<std::string, Tensor>& feeds) {
  Outcome o;
  auto outs = backend.run(model, feeds,
                          [&](const Node& n, const std::vector<Value>& v, const NodeReport& r) {
                            o.reports.emplace_back(n.name, r);
                            for (size_t i = 0; i < v.size(); ++i)
                              if (v[i].is_tensor()) o.trace[n.outputs[i]] = v[i].tensor;
                          });
  if (!outs.ok()) return {outs.status(), {}, {}, {}};
  o.outputs = std::move(*outs);
  return o;
}

std::unique_ptr<Backend> backend_for(const std::string& spec) {
  auto b = make_backend(*parse_platform_spec(spec));
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return b.ok() ? std::move(*b) : nullptr;
}

TEST(OnednnCache, ConsecutiveRunsGiveTheBitsOfAFreshBackend) {
  TempDir dir;
  // 32 channels: oneDNN picks blocked layouts, so weights are reordered (and cached).
  auto model = load_model(save(small_convnet(3, 32, 16), dir.path.string(), "convnet.onnx"));
  ASSERT_TRUE(model.ok()) << model.status().to_string();
  for (const std::string spec : {"onednn", "onednn:fuse=off", "onednn:conv=winograd"}) {
    auto cached = backend_for(spec);
    ASSERT_TRUE(cached);
    for (uint64_t seed : {7, 8, 7}) {  // another input in between: no source may be stale
      const std::map<std::string, Tensor> feeds = {
          {"X", random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, seed)}};
      const Outcome warm = run_on(*cached, *model, feeds);
      ASSERT_TRUE(warm.status.ok()) << spec << ": " << warm.status.to_string();
      auto fresh_backend = backend_for(spec);
      const Outcome fresh = run_on(*fresh_backend, *model, feeds);
      ASSERT_TRUE(fresh.status.ok());
      EXPECT_EQ(fingerprint(warm), fingerprint(fresh)) << spec << " seed " << seed;
    }
  }
}

TEST(OnednnCache, ARewrittenModelFileIsNotServedFromTheCache) {
  TempDir dir;
  onnx::ModelProto proto = small_convnet(3, 32, 16);
  const std::string path = save(proto, dir.path.string(), "convnet.onnx");
  const std::map<std::string, Tensor> feeds = {
      {"X", random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 7)}};
  auto cached = backend_for("onednn");
  auto before = load_model(path);
  ASSERT_TRUE(before.ok());
  const Outcome first = run_on(*cached, *before, feeds);
  ASSERT_TRUE(first.status.ok()) << first.status.to_string();

  // Same path, same size, written within the same timestamp tick: conv1's weights negated (conv1
  // runs in a blocked layout, so its weights are reordered and cached).
  for (auto& init : *proto.mutable_graph()->mutable_initializer()) {
    if (init.name() != "w1") continue;
    Tensor w = *tensor_from_proto(init);
    for (int64_t i = 0; i < w.numel(); ++i) w.data<float>()[i] = -w.data<float>()[i];
    init.Clear();
    tensor_to_proto(w, "w1", &init);
  }
  rewrite_in_place(proto, path);
  auto after = load_model(path);
  ASSERT_TRUE(after.ok());
  const Outcome second = run_on(*cached, *after, feeds);
  ASSERT_TRUE(second.status.ok());
  auto fresh_backend = backend_for("onednn");
  const Outcome fresh = run_on(*fresh_backend, *after, feeds);
  EXPECT_EQ(fingerprint(second), fingerprint(fresh));
  EXPECT_NE(hex_hash(second.trace.at("r1")), hex_hash(first.trace.at("r1")));
}

// The worker keeps the last model it loaded; a file rewritten in place (same size, same
// modification time) must be loaded again.
TEST(WorkerModelCache, ARewrittenModelFileIsLoadedAgain) {
  TempDir dir;
  onnx::ModelProto proto = small_convnet(3, 32, 16);
  const std::string path = save(proto, dir.path.string(), "convnet.onnx");
  RunRequest req;
  req.platform = "onednn";
  req.model_path = path;
  req.inputs["X"] = random_uniform_tensor(DType::kFloat32, {1, 3, 16, 16}, 7);
  const RunResult first = run_in_process(req);
  ASSERT_EQ(first.verdict, Verdict::kOk) << first.reason;
  for (auto& init : *proto.mutable_graph()->mutable_initializer()) {
    if (init.name() != "bfc") continue;
    Tensor b = *tensor_from_proto(init);
    b.data<float>()[0] += 1;
    init.Clear();
    tensor_to_proto(b, "bfc", &init);
  }
  rewrite_in_place(proto, path);
  const RunResult second = run_in_process(req);
  req.model_path = save(proto, dir.path.string(), "other.onnx");
  const RunResult fresh = run_in_process(req);
  ASSERT_EQ(second.verdict, Verdict::kOk);
  EXPECT_NE(second.outputs[0].hash, first.outputs[0].hash);
  EXPECT_EQ(second.outputs[0].hash, fresh.outputs[0].hash);
}

}  // namespace
}  // namespace ig::testing
