#include "backends/runner_process.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/spawn.h"

namespace ig {

namespace {

Status send_all(int fd, const char* p, size_t n, const std::string& what) {
  while (n > 0) {
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return internal_error("{} went away: {}", what, std::strerror(errno));
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::Ok();
}

Status recv_all(int fd, char* p, size_t n, const std::string& what) {
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return internal_error("{} exited (see the worker's stderr)", what);
    p += r;
    n -= static_cast<size_t>(r);
  }
  return Status::Ok();
}

// The protocol's dtype names (onnxruntime-node's tensor type names, numpy's too).
const std::map<DType, std::string>& protocol_types() {
  static const std::map<DType, std::string> table = {
      {DType::kFloat32, "float32"}, {DType::kFloat64, "float64"}, {DType::kFloat16, "float16"},
      {DType::kInt8, "int8"},       {DType::kInt16, "int16"},     {DType::kInt32, "int32"},
      {DType::kInt64, "int64"},     {DType::kUInt8, "uint8"},     {DType::kUInt16, "uint16"},
      {DType::kUInt32, "uint32"},   {DType::kUInt64, "uint64"},   {DType::kBool, "bool"},
      {DType::kString, "string"}};
  return table;
}

Expected<Tensor> tensor_from_reply(const nlohmann::json& e, const RunnerProcess::Reply& reply,
                                   const std::string& what) {
  const std::string type = e["dtype"];
  std::optional<DType> dtype;
  for (const auto& [dt, name] : protocol_types())
    if (name == type) dtype = dt;
  if (!dtype)
    return unsupported("{} output '{}' has type {}", what, e["name"].get<std::string>(), type);
  Shape shape = e["dims"].get<Shape>();
  if (*dtype != DType::kString && reply.bulk_map) {
    const uint64_t offset = e["offset"], length = e["length"];
    IG_ASSIGN_OR_RETURN(const int64_t n, checked_numel(shape));
    if (offset > reply.bulk_size || length > reply.bulk_size - offset ||
        length != static_cast<uint64_t>(n) * dtype_size(*dtype))
      return internal_error("{} output '{}': {} bytes at {} for {}{} in a reply of {}", what,
                            e["name"].get<std::string>(), length, offset, type,
                            shape_to_string(shape), reply.bulk_size);
    return Tensor::borrowing(*dtype, std::move(shape), reply.bulk_lease, reply.bulk_map + offset);
  }
  // Every byte is read from the reply below, or the tensor is dropped with an error.
  IG_ASSIGN_OR_RETURN(Tensor t, Tensor::create_for_overwrite(*dtype, shape));
  if (*dtype == DType::kString) {
    auto strings = e["strings"].get<std::vector<std::string>>();
    for (size_t i = 0; i < strings.size() && i < t.strings().size(); ++i)
      t.strings()[i] = std::move(strings[i]);
    return t;
  }
  const size_t offset = e["offset"], length = e["length"];
  if (length != t.nbytes() || !reply.read_body(offset, length, t.raw()))
    return internal_error("{} output '{}': {} bytes for {}", what, e["name"].get<std::string>(),
                          length, t.describe());
  return t;
}

}  // namespace

bool RunnerProcess::Reply::read_body(uint64_t offset, uint64_t length, void* to) const {
  const uint64_t size = bulk_fd >= 0 ? bulk_size : body.size();
  if (offset > size || length > size - offset) return false;
  if (bulk_fd < 0) {
    std::memcpy(to, body.data() + offset, length);
    return true;
  }
  // Straight from the file into the tensor: one copy of a traced run's values, not two.
  auto* p = static_cast<char*>(to);
  offset += bulk_at;
  while (length > 0) {
    const ssize_t r = ::pread(bulk_fd, p, length, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    offset += static_cast<uint64_t>(r);
    length -= static_cast<uint64_t>(r);
  }
  return true;
}

Status RunnerProcess::encode_feeds(const std::map<std::string, Value>& feeds,
                                   const std::string& what, nlohmann::json* entries,
                                   std::string* body) {
  *entries = nlohmann::json::array();
  for (const auto& [name, v] : feeds) {
    if (!v.is_tensor()) return unsupported("{}: input '{}' is not a tensor", what, name);
    const Tensor& t = v.tensor;
    auto type = protocol_types().find(t.dtype());
    if (type == protocol_types().end())
      return unsupported("{}: input '{}' has dtype {}, which its runner cannot take", what, name,
                         dtype_name(t.dtype()));
    nlohmann::json e{{"name", name}, {"dtype", type->second}, {"dims", t.shape()}};
    if (t.dtype() == DType::kString) {
      e["strings"] = t.strings();
    } else {
      e["offset"] = body->size();
      e["length"] = t.nbytes();
      body->append(reinterpret_cast<const char*>(t.raw()), t.nbytes());
    }
    entries->push_back(e);
  }
  return Status::Ok();
}

Expected<std::map<std::string, Tensor>> RunnerProcess::decode_outputs(const Reply& reply,
                                                                      const std::string& what) {
  std::map<std::string, Tensor> out;
  if (!reply.header.contains("outputs") || !reply.header["outputs"].is_array())
    return internal_error("{}: the runner's reply lists no outputs", what);
  for (const auto& e : reply.header["outputs"]) {
    IG_ASSIGN_OR_RETURN(out[e["name"].get<std::string>()], tensor_from_reply(e, reply, what));
  }
  return out;
}

Expected<std::unique_ptr<RunnerProcess>> RunnerProcess::start(std::vector<std::string> argv,
                                                              const std::string& what) {
  // glibc keeps freed blocks for reuse and raises its mmap threshold after a large free: an ORT
  // session released and another loaded left node 230 MB over one session's peak. Blocks of 256 KiB
  // and more mapped alone go back to the system when ORT frees them.
  if (const std::string env = find_on_path("env"); !env.empty())
    argv.insert(argv.begin(),
                {env, "MALLOC_MMAP_THRESHOLD_=262144", "MALLOC_TRIM_THRESHOLD_=1048576"});
  // Without a memory file (no memfd here) replies travel through the socket, only slower.
  const int bulk = ::memfd_create("infergap-runner-bulk", MFD_CLOEXEC);
  auto spawned = spawn_with_socket(argv, /*capture_stderr=*/false, bulk);
  if (!spawned.ok() && bulk >= 0) ::close(bulk);
  IG_RETURN_IF_ERROR(spawned.status());
  std::unique_ptr<RunnerProcess> runner(new RunnerProcess());
  runner->pid_ = spawned->pid;
  runner->sock_ = spawned->sock;
  runner->bulk_fd_ = bulk;
  runner->what_ = what;
  nlohmann::json hello_request{{"op", "hello"}};
  if (bulk >= 0) hello_request["bulk_fd"] = 4;
  auto hello = runner->call(hello_request);
  if (!hello.ok()) return unsupported("{}: {}", what, hello.status().message());
  runner->version_ = hello->header.value("version", "");
  runner->hello_ = std::move(hello->header);
  return runner;
}

RunnerProcess::Mapping::~Mapping() { ::munmap(bytes, size); }

uint64_t RunnerProcess::next_bulk_at() {
  uint64_t end = 0;
  std::erase_if(leases_, [&](const std::weak_ptr<Lease>& w) {
    auto lease = w.lock();
    if (lease) end = std::max(end, lease->end);
    return !lease;
  });
  return (end + 63) / 64 * 64;  // every tensor 64-byte aligned, as ORT's allocator aligns them
}

Expected<bool> RunnerProcess::map_reply(uint64_t at, uint64_t size, Reply* reply) {
  struct stat st {};
  if (::fstat(bulk_fd_, &st) != 0)
    return internal_error("{}: cannot read its bulk file: {}", what_, std::strerror(errno));
  const auto file_bytes = static_cast<uint64_t>(st.st_size);
  if (at > file_bytes || size > file_bytes - at)
    return internal_error("{} sent a malformed reply ({} bytes at {} of a bulk file of {})", what_,
                          size, at, file_bytes);
  if (size == 0 || size > kKeepBulkBytes) return false;
  if (!map_ || map_->size < at + size) {
    void* p = ::mmap(nullptr, file_bytes, PROT_READ, MAP_SHARED, bulk_fd_, 0);
    if (p == MAP_FAILED) return false;
    map_ = std::make_shared<Mapping>(p, file_bytes);
  }
  auto lease = std::make_shared<Lease>(Lease{map_, at + size});
  leases_.push_back(lease);
  reply->bulk_map = static_cast<const std::byte*>(map_->bytes) + at;
  reply->bulk_lease = std::move(lease);
  return true;
}

RunnerProcess::~RunnerProcess() {
  // Tensors borrowing a mapping keep it (and its pages) after the runner has gone.
  if (sock_ >= 0) ::close(sock_);  // the runner exits at end of input
  if (bulk_fd_ >= 0) ::close(bulk_fd_);
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

Expected<RunnerProcess::Reply> RunnerProcess::call(const nlohmann::json& header,
                                                   const std::string& body) {
  // Where this reply goes: past every region a live tensor borrows. With none, a large file's
  // pages go back to the system (the runners only ever grow it, so no mapping reaches past its
  // end while a lease lives).
  const uint64_t at = bulk_fd_ >= 0 ? next_bulk_at() : 0;
  struct stat st {};
  if (bulk_fd_ >= 0 && at == 0 && ::fstat(bulk_fd_, &st) == 0 &&
      static_cast<uint64_t>(st.st_size) > kKeepBulkBytes) {
    map_.reset();
    if (::ftruncate(bulk_fd_, 0) != 0)
      return internal_error("{}: cannot empty its bulk file: {}", what_, std::strerror(errno));
  }
  nlohmann::json request = header;
  if (bulk_fd_ >= 0) request["bulk_at"] = at;
  const std::string json = request.dump();
  const uint32_t hlen = static_cast<uint32_t>(json.size());
  const uint64_t blen = body.size();
  IG_RETURN_IF_ERROR(send_all(sock_, reinterpret_cast<const char*>(&hlen), 4, what_));
  IG_RETURN_IF_ERROR(send_all(sock_, json.data(), json.size(), what_));
  IG_RETURN_IF_ERROR(send_all(sock_, reinterpret_cast<const char*>(&blen), 8, what_));
  IG_RETURN_IF_ERROR(send_all(sock_, body.data(), body.size(), what_));

  uint32_t rh = 0;
  uint64_t rb = 0;
  IG_RETURN_IF_ERROR(recv_all(sock_, reinterpret_cast<char*>(&rh), 4, what_));
  std::string rjson(rh, '\0');
  IG_RETURN_IF_ERROR(recv_all(sock_, rjson.data(), rh, what_));
  IG_RETURN_IF_ERROR(recv_all(sock_, reinterpret_cast<char*>(&rb), 8, what_));
  Reply reply;
  reply.body.resize(rb);
  IG_RETURN_IF_ERROR(recv_all(sock_, reply.body.data(), rb, what_));
  reply.header = nlohmann::json::parse(rjson, nullptr, false);
  if (reply.header.is_discarded()) return internal_error("{} sent a malformed reply", what_);
  if (auto it = reply.header.find("bulk"); it != reply.header.end()) {
    if (!it->is_number_unsigned() || bulk_fd_ < 0 || rb != 0)
      return internal_error("{} sent a malformed reply (bulk)", what_);
    reply.bulk_fd = bulk_fd_;
    reply.bulk_at = at;
    reply.bulk_size = it->get<uint64_t>();
    IG_RETURN_IF_ERROR(map_reply(at, reply.bulk_size, &reply).status());
  }
  if (!reply.header.value("ok", false)) {
    const std::string error = reply.header.value("error", std::string("unknown error"));
    // A compiler's refusal of the model is the run's verdict, like an operator it lacks.
    if (reply.header.value("kind", std::string()) == "compile") return unsupported("{}", error);
    return internal_error("{}", error);
  }
  return reply;
}

}  // namespace ig
