#include "model/shape_inference.h"

#include <google/protobuf/io/coded_stream.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace ig {

namespace {

constexpr int kInferenceThrew = 3;

// In the child: infer, then send the model back without initializer data (inference does not
// change initializers; the parent keeps its own, saving a copy of the weights through the pipe).
[[noreturn]] void child(onnx::ModelProto& proto, int fd) {
  // Die of the signal itself, so the parent sees which one, also where a sanitizer or a crash
  // reporter installed handlers.
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::signal(sig, SIG_DFL);
  try {
    onnx::shape_inference::InferShapes(proto);
  } catch (const std::exception&) {
    _exit(kInferenceThrew);
  }
  proto.mutable_graph()->clear_initializer();
  std::string bytes;
  if (!proto.SerializeToString(&bytes)) _exit(kInferenceThrew);
  for (size_t done = 0; done < bytes.size();) {
    const ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) _exit(kInferenceThrew);
    done += static_cast<size_t>(w);
  }
  _exit(0);
}

}  // namespace

Status infer_shapes_isolated(onnx::ModelProto& proto, const std::string& label,
                             double timeout_seconds) {
  int fds[2];
  if (::pipe(fds) != 0) return io_error("{}: shape inference: pipe: {}", label, strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return io_error("{}: shape inference: fork: {}", label, strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    child(proto, fds[1]);
  }
  ::close(fds[1]);
  std::string bytes;
  bool timed_out = false;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  char buf[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;
    const ssize_t r = ::read(fds[0], buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    bytes.append(buf, static_cast<size_t>(r));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return resource_exhausted("{}: ONNX shape inference took longer than {:g} s", label,
                              timeout_seconds);
  }
  if (WIFSIGNALED(status)) {
    return invalid_argument(
        "{}: ONNX shape inference crashed on this model ({}); a node has attributes or input "
        "ranks that libonnx does not check",
        label, strsignal(WTERMSIG(status)));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return Status::Ok();  // advisory: no shapes
  onnx::ModelProto inferred;
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  stream.SetRecursionLimit(INT32_MAX);  // our own child's output of a model already parsed
  if (bytes.size() > static_cast<size_t>(INT32_MAX) || !inferred.ParseFromCodedStream(&stream)) {
    return internal_error("{}: shape inference sent back an unreadable model", label);
  }
  inferred.mutable_graph()->mutable_initializer()->Swap(
      proto.mutable_graph()->mutable_initializer());
  proto = std::move(inferred);
  return Status::Ok();
}

}  // namespace ig
