// A runner's reply body through the shared memory file and through the socket: the same tensors,
// bit for bit, for a reply past the size the file keeps and for a small one after it.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "backends/runner_process.h"
#include "core/venv.h"

namespace ig {
namespace {

// Echoes its feeds as outputs; {"socket": true} first drops the bulk file as a runner that
// predates it would.
const char* kEchoRunner = R"(
import sys
sys.path.insert(0, sys.argv[1])
import protocol

def handle(req, body):
    if req["op"] == "hello":
        return {"version": "echo"}, []
    if req.get("socket"):
        protocol.BULK_FD = None
    feeds = protocol.feeds_of(req, body)
    names = [spec["name"] for spec in req["feeds"]]
    return protocol.outputs_reply(names, [feeds[n] for n in names])

protocol.serve(handle)
)";

Tensor counting(int64_t n, float scale) {
  Tensor t(DType::kFloat32, {n});
  auto* p = t.data<float>();
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(i) * scale;
  return t;
}

Expected<std::map<std::string, Tensor>> echo(RunnerProcess& runner,
                                             const std::map<std::string, Value>& feeds,
                                             bool socket) {
  nlohmann::json req{{"op", "echo"}, {"socket", socket}};
  std::string body;
  IG_RETURN_IF_ERROR(RunnerProcess::encode_feeds(feeds, "echo", &req["feeds"], &body));
  IG_ASSIGN_OR_RETURN(auto reply, runner.call(req, body));
  EXPECT_EQ(reply.bulk_fd >= 0, !socket) << reply.header.dump().substr(0, 200);
  return RunnerProcess::decode_outputs(reply, "echo");
}

TEST(RunnerBulk, RepliesThroughTheFileAndTheSocketAreTheSameBits) {
  const std::string python = venv_python();
  if (::access(python.c_str(), X_OK) != 0) GTEST_SKIP() << "no python at " << python;
  auto runner = RunnerProcess::start(
      {python, "-c", kEchoRunner, source_file("src/backends/pyrunner")}, "echo runner");
  ASSERT_TRUE(runner.ok()) << runner.status().message();

  // 72 MB: past kKeepBulkBytes, so the file is emptied before the next call.
  const int64_t large = (RunnerProcess::kKeepBulkBytes / 4) + (2 << 20);
  const std::map<std::string, Value> big = {{"a", Value::of(counting(large, 0.5f))},
                                            {"b", Value::of(counting(3, -1.0f))}};
  const std::map<std::string, Value> small = {{"c", Value::of(counting(5, 2.0f))}};
  for (bool socket : {false, true}) {
    // The socket leg runs after the runner dropped the file: replies keep coming.
    for (const auto* feeds : {&big, &small, &big}) {
      auto out = echo(**runner, *feeds, socket);
      ASSERT_TRUE(out.ok()) << out.status().message();
      ASSERT_EQ(out->size(), feeds->size());
      for (const auto& [name, v] : *feeds)
        EXPECT_TRUE(out->at(name).bitwise_equal(v.tensor)) << name << " socket=" << socket;
    }
  }
}

// A reply's tensors borrow the shared file's bytes: while they live, later replies go elsewhere in
// the file, so a tensor kept across calls keeps its bits; once they are gone the file is reused
// from its start.
TEST(RunnerBulk, AKeptReplyIsNeverOverwrittenByTheNext) {
  const std::string python = venv_python();
  if (::access(python.c_str(), X_OK) != 0) GTEST_SKIP() << "no python at " << python;
  auto runner = RunnerProcess::start(
      {python, "-c", kEchoRunner, source_file("src/backends/pyrunner")}, "echo runner");
  ASSERT_TRUE(runner.ok()) << runner.status().message();
  const Tensor first = counting(1 << 20, 0.5f), second = counting(1 << 20, -3.0f);
  auto kept = echo(**runner, {{"a", Value::of(first)}}, false);
  ASSERT_TRUE(kept.ok()) << kept.status().message();
  EXPECT_GE((*runner)->next_bulk_at(), first.nbytes());
  for (int i = 0; i < 3; ++i) {
    auto later = echo(**runner, {{"a", Value::of(second)}}, false);
    ASSERT_TRUE(later.ok()) << later.status().message();
    EXPECT_TRUE(later->at("a").bitwise_equal(second));
    EXPECT_TRUE(kept->at("a").bitwise_equal(first)) << "after reply " << i;
  }
  kept->clear();
  EXPECT_EQ((*runner)->next_bulk_at(), 0u);
  auto again = echo(**runner, {{"a", Value::of(second)}}, false);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_TRUE(again->at("a").bitwise_equal(second));
}

TEST(RunnerBulk, ReadsPastTheBodyOrTheFileAreErrorsNotGarbage) {
  RunnerProcess::Reply reply;
  reply.body = "abcd";
  char out[8] = {};
  EXPECT_TRUE(reply.read_body(1, 3, out));
  EXPECT_EQ(std::string(out, 3), "bcd");
  EXPECT_FALSE(reply.read_body(2, 3, out));
  EXPECT_FALSE(reply.read_body(5, 0, out));

  // A reply that claims 8 bytes of a file holding 4.
  const int fd = ::memfd_create("bulk-test", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, "wxyz", 4), 4);
  reply.bulk_fd = fd;
  reply.bulk_size = 8;
  EXPECT_TRUE(reply.read_body(0, 4, out));
  EXPECT_EQ(std::string(out, 4), "wxyz");
  EXPECT_FALSE(reply.read_body(2, 6, out));
  EXPECT_FALSE(reply.read_body(4, 5, out));
  ::close(fd);
}

}  // namespace
}  // namespace ig
