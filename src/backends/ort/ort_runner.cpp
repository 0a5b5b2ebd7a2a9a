#include "backends/ort/ort_runner.h"

#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "core/spawn.h"

namespace ig {

namespace {

Status send_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return internal_error("ort runner went away: {}", std::strerror(errno));
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::Ok();
}

Status recv_all(int fd, char* p, size_t n) {
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return internal_error("ort runner exited (see the worker's stderr)");
    p += r;
    n -= static_cast<size_t>(r);
  }
  return Status::Ok();
}

}  // namespace

Expected<std::unique_ptr<OrtRunner>> OrtRunner::start(std::vector<std::string> argv) {
  // glibc keeps freed blocks for reuse and raises its mmap threshold after a large free: a session
  // released and another loaded left node 230 MB over one session's peak. Blocks of 256 KiB and
  // more mapped alone go back to the system when ORT frees them.
  if (const std::string env = find_on_path("env"); !env.empty())
    argv.insert(argv.begin(),
                {env, "MALLOC_MMAP_THRESHOLD_=262144", "MALLOC_TRIM_THRESHOLD_=1048576"});
  IG_ASSIGN_OR_RETURN(SpawnedChild child, spawn_with_socket(argv, /*capture_stderr=*/false));
  std::unique_ptr<OrtRunner> runner(new OrtRunner());
  runner->pid_ = child.pid;
  runner->sock_ = child.sock;
  auto hello = runner->call({{"op", "hello"}});
  if (!hello.ok()) return unsupported("ort: {}", hello.status().message());
  runner->version_ = hello->header.value("version", "");
  return runner;
}

OrtRunner::~OrtRunner() {
  if (sock_ >= 0) ::close(sock_);  // the runner exits at end of input
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

Expected<OrtRunner::Reply> OrtRunner::call(const nlohmann::json& header, const std::string& body) {
  const std::string json = header.dump();
  const uint32_t hlen = static_cast<uint32_t>(json.size());
  const uint64_t blen = body.size();
  IG_RETURN_IF_ERROR(send_all(sock_, reinterpret_cast<const char*>(&hlen), 4));
  IG_RETURN_IF_ERROR(send_all(sock_, json.data(), json.size()));
  IG_RETURN_IF_ERROR(send_all(sock_, reinterpret_cast<const char*>(&blen), 8));
  IG_RETURN_IF_ERROR(send_all(sock_, body.data(), body.size()));

  uint32_t rh = 0;
  uint64_t rb = 0;
  IG_RETURN_IF_ERROR(recv_all(sock_, reinterpret_cast<char*>(&rh), 4));
  std::string rjson(rh, '\0');
  IG_RETURN_IF_ERROR(recv_all(sock_, rjson.data(), rh));
  IG_RETURN_IF_ERROR(recv_all(sock_, reinterpret_cast<char*>(&rb), 8));
  Reply reply;
  reply.body.resize(rb);
  IG_RETURN_IF_ERROR(recv_all(sock_, reply.body.data(), rb));
  reply.header = nlohmann::json::parse(rjson, nullptr, false);
  if (reply.header.is_discarded()) return internal_error("ort runner sent a malformed reply");
  if (!reply.header.value("ok", false))
    return internal_error("{}", reply.header.value("error", std::string("unknown error")));
  return reply;
}

}  // namespace ig
