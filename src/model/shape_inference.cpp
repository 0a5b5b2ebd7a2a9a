#include "model/shape_inference.h"
#include "model/ort_onnx_domain.h"

#include <google/protobuf/io/coded_stream.h>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/venv.h"
#include "model/onnx_types.h"

namespace ig {

namespace {

// What the helper answers, in order: the checker's verdict, then inference's.
enum class Frame : uint8_t {
  kCheckerFailed = 1,  // payload: the checker's message
  kCheckerPassed = 2,
  kInferred = 3,        // payload: the model with inferred shapes, without initializer data
  kInferenceThrew = 4,  // advisory: the model is used without inferred shapes
};
constexpr uint8_t kWantChecker = 1, kWantInference = 2, kWantStrict = 4;
constexpr size_t kHeader = 1 + sizeof(uint64_t);

using Emit = std::function<void(Frame, const std::string&)>;

uint8_t wanted(const OnnxChecks& checks) {
  return static_cast<uint8_t>((checks.checker ? kWantChecker : 0) |
                              (checks.infer_shapes ? kWantInference : 0) |
                              (checks.checker && checks.strict ? kWantStrict : 0));
}

// The checks themselves, wherever they run.
void run_checks(onnx::ModelProto& proto, uint8_t want, const Emit& emit) {
  register_ort_onnx_domain_schemas();
  register_ort_qoperator_schemas();
  if (want & kWantChecker) {
    try {
      onnx::checker::check_model(proto);
      if (want & kWantStrict) {
        onnx::ModelProto copy = proto;
        const onnx::ShapeInferenceOptions strict{/*check_type=*/true, /*error_mode=*/1};
        onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(), strict);
      }
    } catch (const std::exception& e) {
      emit(Frame::kCheckerFailed, e.what());
      return;
    }
  }
  emit(Frame::kCheckerPassed, "");
  if (!(want & kWantInference)) return;
  try {
    onnx::shape_inference::InferShapes(proto);
  } catch (const std::exception&) {
    emit(Frame::kInferenceThrew, "");
    return;
  }
  emit(Frame::kInferred, "");
}

// Inference does not change initializers: the caller keeps its own, and the helper sends back the
// graph without their data.
void keep_initializers(onnx::ModelProto& inferred, onnx::ModelProto& proto) {
  inferred.mutable_graph()->mutable_initializer()->Swap(
      proto.mutable_graph()->mutable_initializer());
  proto = std::move(inferred);
}

// The helper is sent the model without the data of its large floating-point initializers: neither
// the checker nor inference reads weights (inference reads the small integer tensors that hold
// shapes), and the model is not copied whole once more. The data is swapped out, not copied.
// libonnx's checker does not compare raw_data's length with the dims; the onnx package's does, so
// for it (`as_external`) such a tensor is declared external instead, and onnx_checker.py points
// every external tensor at an empty file of its own.
bool serialize_without_weights(onnx::ModelProto& proto, std::string& bytes, bool as_external) {
  constexpr size_t kLarge = 64 << 10;
  std::vector<std::pair<int, std::string>> taken;
  auto* inits = proto.mutable_graph()->mutable_initializer();
  for (int i = 0; i < inits->size(); ++i) {
    auto* t = inits->Mutable(i);
    const auto type = t->data_type();
    const bool floating = type == onnx::TensorProto::FLOAT || type == onnx::TensorProto::DOUBLE ||
                          type == onnx::TensorProto::FLOAT16 || type == onnx::TensorProto::BFLOAT16;
    if (!floating || !t->has_raw_data() || t->raw_data().size() < kLarge) continue;
    // One byte stays: the checker counts raw_data as present only when it is not empty.
    taken.emplace_back(i, as_external ? std::string() : t->raw_data().substr(0, 1));
    taken.back().second.swap(*t->mutable_raw_data());
    if (as_external) {
      t->set_data_location(onnx::TensorProto::EXTERNAL);
      auto* location = t->add_external_data();
      location->set_key("location");
      location->set_value("weights-left-out");
    }
  }
  const bool ok = proto.SerializeToString(&bytes);
  for (auto& [i, data] : taken) {
    auto* t = inits->Mutable(i);
    t->mutable_raw_data()->swap(data);
    if (as_external) {
      t->clear_external_data();
      t->clear_data_location();
    }
  }
  return ok;
}

bool parse_trusted(const std::string& bytes, onnx::ModelProto& out) {
  google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(bytes.data()),
                                                static_cast<int>(bytes.size()));
  stream.SetRecursionLimit(INT32_MAX);  // a model the caller parsed already, within its limits
  return bytes.size() <= static_cast<size_t>(INT32_MAX) && out.ParseFromCodedStream(&stream);
}

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool write_frame(int fd, uint8_t kind, const std::string& payload) {
  char header[kHeader];
  header[0] = static_cast<char>(kind);
  const uint64_t n = payload.size();
  std::memcpy(header + 1, &n, sizeof n);
  return write_all(fd, header, sizeof header) && write_all(fd, payload.data(), payload.size());
}

// Blocking read of exactly n bytes (the helper's side).
bool read_all(int fd, char* p, size_t n) {
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// The helper: requests until its parent closes the socket.
[[noreturn]] void serve(int fd) {
  for (;;) {
    char header[kHeader];
    if (!read_all(fd, header, sizeof header)) _exit(0);
    uint64_t n = 0;
    std::memcpy(&n, header + 1, sizeof n);
    std::string bytes(n, '\0');
    if (!read_all(fd, bytes.data(), n)) _exit(0);
    onnx::ModelProto proto;
    if (!parse_trusted(bytes, proto)) _exit(3);
    bytes.clear();
    run_checks(proto, static_cast<uint8_t>(header[0]), [&](Frame f, const std::string& text) {
      std::string payload = text;
      if (f == Frame::kInferred) {
        proto.mutable_graph()->clear_initializer();
        if (!proto.SerializeToString(&payload)) _exit(3);
      }
      if (!write_frame(fd, static_cast<uint8_t>(f), payload)) _exit(0);
    });
  }
}

// Which ONNX judges a model: the libonnx linked here, in a forked copy of this process, or the
// `onnx` package of the venv (onnx_checker.py), for models newer than libonnx knows.
enum class Checker { kLibonnx, kPython };

class Helper {
 public:
  explicit Helper(Checker checker) : checker_(checker) {}
  ~Helper() { stop(false); }

  // One request at a time: the helper is one process.
  Status check(onnx::ModelProto& proto, const std::string& label, const OnnxChecks& checks) {
    const std::lock_guard lock(mu_);
    IG_RETURN_IF_ERROR(start(label));
    std::string bytes;
    if (!serialize_without_weights(proto, bytes, checker_ == Checker::kPython))
      return internal_error("{}: the model cannot be serialized for the ONNX checker", label);
    const uint8_t want = wanted(checks);
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                    std::chrono::duration<double>(checks.timeout_seconds));
    bool checker_passed = false;
    auto lost = [&](bool timed_out) {
      const int sig = stop(timed_out);
      if (timed_out) {
        return resource_exhausted("{}: ONNX {} took longer than {:g} s", label,
                                  checker_passed ? "shape inference" : "checker",
                                  checks.timeout_seconds);
      }
      const std::string what = checker_passed ? "shape inference" : "checker";
      if (checker_ == Checker::kPython) {
        return invalid_argument("{}: ONNX {} (the onnx package, {}) ended on this model ({})",
                                label, what, python_checker_command().front(),
                                sig > 0 ? strsignal(sig) : "the helper process ended");
      }
      return invalid_argument(
          "{}: ONNX {} crashed on this model ({}); a node has attributes or input ranks that "
          "libonnx does not check",
          label, what, sig > 0 ? strsignal(sig) : "the helper process ended");
    };
    if (!write_frame(sock_, want, bytes)) return lost(false);
    bytes.clear();
    for (;;) {
      uint8_t kind = 0;
      std::string payload;
      bool timed_out = false;
      if (!read_frame(kind, payload, timed_out)) return lost(timed_out);
      switch (static_cast<Frame>(kind)) {
        case Frame::kCheckerFailed:
          return invalid_argument("{}: ONNX checker: {}", label, payload);
        case Frame::kCheckerPassed:
          checker_passed = true;
          if (!checks.infer_shapes) return Status::Ok();
          break;
        case Frame::kInferenceThrew:
          return Status::Ok();
        case Frame::kInferred: {
          onnx::ModelProto inferred;
          if (!parse_trusted(payload, inferred))
            return internal_error("{}: shape inference sent back an unreadable model", label);
          keep_initializers(inferred, proto);
          return Status::Ok();
        }
        default:
          stop(false);
          return internal_error("{}: the ONNX helper sent an unknown answer", label);
      }
    }
  }

  int pid() {
    const std::lock_guard lock(mu_);
    return pid_;
  }

 private:
  Status start(const std::string& label) {
    if (pid_ > 0) return Status::Ok();
    std::vector<std::string> command;
    if (checker_ == Checker::kPython) {
      command = python_checker_command();
      if (::access(command[0].c_str(), X_OK) != 0 || ::access(command[1].c_str(), R_OK) != 0) {
        return unsupported(
            "{}: the model is newer than the linked libonnx knows (IR {}, ai.onnx opset {}), so "
            "ONNX's "
            "checker from the onnx package judges it, and {} cannot run {}: run scripts/setup, "
            "which puts the onnx package in .venv, or set INFERGAP_PYTHON to a python with onnx "
            "1.23 or later",
            label, libonnx_ir_version(), libonnx_opset(""), command[0], command[1]);
      }
    }
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
      return io_error("{}: ONNX helper: socketpair: {}", label, strerror(errno));
    const pid_t pid = ::fork();
    if (pid < 0) {
      ::close(fds[0]);
      ::close(fds[1]);
      return io_error("{}: ONNX helper: fork: {}", label, strerror(errno));
    }
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      // Die of the signal itself, so the parent sees which one, also where a sanitizer or a
      // crash reporter installed handlers.
      for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPIPE, SIGINT, SIGTERM})
        ::signal(sig, SIG_DFL);
      // Only our socket stays open: an inherited end of a worker's socket or of a pipe would keep
      // the other side from seeing it closed.
      if (::dup2(fds[1], 3) < 0) _exit(3);
      ::close_range(4, ~0U, 0);
      if (command.empty()) serve(3);
      std::vector<char*> argv;
      for (auto& a : command) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      _exit(127);
    }
    ::close(fds[1]);
    pid_ = pid;
    sock_ = fds[0];
    return Status::Ok();
  }

  // Ends the helper; returns the signal that ended it, if any.
  int stop(bool kill_it) {
    if (pid_ <= 0) return 0;
    if (kill_it) ::kill(pid_, SIGKILL);
    ::close(sock_);
    int status = 0;
    // Closing the socket ends a live helper (it reads EOF); a crashed one is reaped.
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    sock_ = -1;
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }

  bool read_exact(char* p, size_t n, bool& timed_out) {
    while (n > 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline_ - std::chrono::steady_clock::now())
                            .count();
      if (left <= 0) {
        timed_out = true;
        return false;
      }
      pollfd pfd{sock_, POLLIN, 0};
      const int ready = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left, 1000)));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) continue;
      const ssize_t r = ::read(sock_, p, n);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      p += r;
      n -= static_cast<size_t>(r);
    }
    return true;
  }

  bool read_frame(uint8_t& kind, std::string& payload, bool& timed_out) {
    char header[kHeader];
    if (!read_exact(header, sizeof header, timed_out)) return false;
    kind = static_cast<uint8_t>(header[0]);
    uint64_t n = 0;
    std::memcpy(&n, header + 1, sizeof n);
    if (n > static_cast<uint64_t>(INT32_MAX)) return false;
    payload.assign(n, '\0');
    return read_exact(payload.data(), n, timed_out);
  }

  const Checker checker_;
  std::mutex mu_;
  pid_t pid_ = -1;
  int sock_ = -1;
  std::chrono::steady_clock::time_point deadline_;
};

Helper& helper(Checker checker) {
  static Helper libonnx(Checker::kLibonnx);
  static Helper python(Checker::kPython);
  return checker == Checker::kPython ? python : libonnx;
}

}  // namespace

// A model libonnx cannot judge: its checker refuses a newer IR version, and its schemas for a newer
// opset are those of an older one (ReduceMean-18's axes input would be "too many inputs"); it
// knows no element type newer than itself ("Unrecognized data_type: 22" for int4).
bool newer_than_libonnx(const onnx::ModelProto& proto) {
  if (proto.ir_version() > libonnx_ir_version()) return true;
  if (first_type_use(proto.graph(),
                     [](int32_t t) { return !onnx::TensorProto_DataType_IsValid(t); }))
    return true;
  for (const auto& opset : proto.opset_import()) {
    const std::string domain = opset.domain() == "ai.onnx" ? "" : opset.domain();
    const int newest = libonnx_opset(domain);
    if (newest > 0 && opset.version() > newest) return true;
  }
  return false;
}

namespace {

Status check_here(onnx::ModelProto& proto, const std::string& label, const OnnxChecks& checks) {
  const uint8_t want = wanted(checks);
  Status result = Status::Ok();
  run_checks(proto, want, [&](Frame f, const std::string& text) {
    if (f == Frame::kCheckerFailed) result = invalid_argument("{}: ONNX checker: {}", label, text);
  });
  return result;
}

}  // namespace

Status check_and_infer(onnx::ModelProto& proto, const std::string& label,
                       const OnnxChecks& checks) {
  if (!checks.checker && !checks.infer_shapes) return Status::Ok();
  if (newer_than_libonnx(proto)) return helper(Checker::kPython).check(proto, label, checks);
  if (checks.in_this_process) return check_here(proto, label, checks);
  return helper(Checker::kLibonnx).check(proto, label, checks);
}

int onnx_helper_pid() { return helper(Checker::kLibonnx).pid(); }

int libonnx_ir_version() { return onnx::Version::IR_VERSION; }

int libonnx_opset(const std::string& domain) {
  const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = ranges.find(domain);
  return it == ranges.end() ? 0 : it->second.second;
}

std::vector<std::string> python_checker_command() {
  return {venv_python(), source_file("src/model/onnx_checker.py")};
}

}  // namespace ig
