#include "worker/worker_process.h"

#include "core/spawn.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

namespace ig {

namespace {

constexpr size_t kStderrTail = 4096;

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// "SIGSEGV" for 11; sigabbrev_np is glibc's table.
std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

std::string last_lines(const std::string& text, size_t max_chars) {
  size_t end = text.find_last_not_of(" \n\r\t");
  if (end == std::string::npos) return "";
  std::string s = text.substr(0, end + 1);
  if (s.size() > max_chars) s = "..." + s.substr(s.size() - max_chars);
  for (char& c : s)
    if (c == '\n') c = '|';
  return s;
}

}  // namespace

WorkerProcess::WorkerProcess(std::string executable, std::string platform)
    : executable_(std::move(executable)), platform_(std::move(platform)) {}

WorkerProcess::~WorkerProcess() { kill_and_reap(); }

void WorkerProcess::close_fds() {
  if (sock_ >= 0) ::close(sock_);
  if (err_ >= 0) ::close(err_);
  sock_ = err_ = -1;
}

void WorkerProcess::kill_and_reap() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
  close_fds();
}

Status WorkerProcess::start(double timeout_seconds, bool* died) {
  *died = false;
  if (::access(executable_.c_str(), X_OK) != 0) {
    return not_found("worker executable '{}' not found ({}); build the infergap_worker target",
                     executable_, std::strerror(errno));
  }
  auto child = spawn_with_socket({executable_, "--platform", platform_, "--fd", "3"},
                                 /*capture_stderr=*/true);
  if (!child.ok()) return child.status();
  pid_ = child->pid;
  sock_ = child->sock;
  err_ = child->stderr_fd;

  wire::Frame frame;
  switch (wait_frame(now_seconds() + timeout_seconds, &frame)) {
    case Wait::kFrame: {
      Status hello;
      Status decoded = frame.type == wire::MsgType::kHello
                           ? wire::decode_status(frame.payload, &hello)
                           : io_error("first frame is not a hello");
      if (!decoded.ok()) {
        kill_and_reap();
        *died = true;
        return internal_error("worker for '{}' broke the protocol while starting: {}", platform_,
                              decoded.message());
      }
      if (!hello.ok()) kill_and_reap();  // it exits after a failed hello anyway
      return hello;
    }
    case Wait::kClosed:
      *died = true;
      return internal_error("{}", reap_and_describe("while starting"));
    case Wait::kTimeout:
      kill_and_reap();
      *died = true;
      return internal_error("the worker for '{}' did not start within {} s (killed)", platform_,
                            timeout_seconds);
  }
  return internal_error("unreachable");
}

void WorkerProcess::read_stderr() {
  if (err_ < 0) return;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(err_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) {
        ::close(err_);
        err_ = -1;
      }
      return;
    }
    stderr_tail_.append(buf, static_cast<size_t>(n));
    if (stderr_tail_.size() > 2 * kStderrTail)
      stderr_tail_.erase(0, stderr_tail_.size() - kStderrTail);
  }
}

WorkerProcess::Wait WorkerProcess::wait_frame(double deadline, wire::Frame* out) {
  for (;;) {
    const double left = deadline - now_seconds();
    if (left <= 0) return Wait::kTimeout;
    pollfd fds[2] = {{sock_, POLLIN, 0}, {err_, POLLIN, 0}};
    const int ms = static_cast<int>(std::min(std::ceil(left * 1000), 1e9));
    const int r = ::poll(fds, err_ >= 0 ? 2 : 1, ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Wait::kClosed;
    if (err_ >= 0 && fds[1].revents) read_stderr();
    if (fds[0].revents) {
      auto frame = wire::recv_frame(sock_);
      if (!frame.ok()) return Wait::kClosed;
      *out = std::move(*frame);
      return Wait::kFrame;
    }
  }
}

std::string WorkerProcess::reap_and_describe(const std::string& when) {
  int status = 0;
  pid_t got = 0;
  // The socket closed: the worker is exiting. Give it a moment, then make sure.
  for (int i = 0; i < 200 && got == 0; ++i) {
    got = ::waitpid(pid_, &status, WNOHANG);
    if (got == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (got == 0) {
    ::kill(pid_, SIGKILL);
    got = ::waitpid(pid_, &status, 0);
  }
  read_stderr();
  pid_ = -1;
  close_fds();
  std::string what;
  if (got > 0 && WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    what = signal_name(sig) + ": the worker for '" + platform_ + "' died " + when + " (" +
           sigdescr_np(sig) + ")";
    if (sig == SIGILL) what += ": the platform needs instructions this CPU lacks";
  } else if (got > 0 && WIFEXITED(status)) {
    what = "the worker for '" + platform_ + "' exited " + when + " with status " +
           std::to_string(WEXITSTATUS(status));
  } else {
    what = "the worker for '" + platform_ + "' closed its socket " + when;
  }
  const std::string tail = last_lines(stderr_tail_, 400);
  if (!tail.empty()) what += "; stderr: " + tail;
  return what;
}

RunResult WorkerProcess::run(const RunRequest& request, TraceMemory* memory) {
  RunResult result;
  result.repro = repro_command(request);
  const double t0 = now_seconds();
  stderr_tail_.clear();
  auto fail = [&](Verdict verdict, std::string reason) {
    result.verdict = verdict;
    result.reason = std::move(reason);
    result.seconds = now_seconds() - t0;
    return result;
  };
  auto where = [&] {
    if (!request.capture.all_layers) return std::string("during the job");
    if (result.trace.empty()) return std::string("during the job, before any node finished");
    const auto& last = result.trace.back();
    return "during the job, after node '" + last.node + "' (" + last.op_type + ", " +
           std::to_string(result.trace.size()) + " values traced)";
  };
  if (!wire::send_frame(sock_, wire::MsgType::kRequest, wire::encode_request(request)).ok())
    return fail(Verdict::kCrash, reap_and_describe("before the job"));
  const double deadline = t0 + request.timeout_seconds;
  for (;;) {
    wire::Frame frame;
    switch (wait_frame(deadline, &frame)) {
      case Wait::kClosed:
        return fail(Verdict::kCrash, reap_and_describe(where()));
      case Wait::kTimeout:
        kill_and_reap();
        return fail(Verdict::kTimeout, "no result within " +
                                           fmt::format("{:g}", request.timeout_seconds) + " s " +
                                           where() + "; the worker was killed");
      case Wait::kFrame:
        break;
    }
    if (frame.type == wire::MsgType::kTrace) {
      auto t = wire::decode_traced(frame.payload);
      if (!t.ok()) break;
      // A spill that fails keeps the tensor in memory: the run is not lost for it.
      if (memory) (void)memory->hold(*t);
      result.trace.push_back(std::move(*t));
      continue;
    }
    if (frame.type != wire::MsgType::kResult) break;
    auto done = wire::decode_result(frame.payload, result.trace);
    if (!done.ok()) break;
    done->trace = std::move(result.trace);
    if (memory) (void)memory->hold(*done);  // the outputs sent inline
    return std::move(*done);
  }
  kill_and_reap();
  return fail(Verdict::kError, "the worker for '" + platform_ + "' broke the protocol " + where());
}

}  // namespace ig
