// A process that hosts a library the worker cannot link (ONNX Runtime in node.js or python, the
// deep-learning compilers in python), spoken to over fd 3: u32 LE header length, JSON header,
// u64 LE body length, body bytes, one request and one reply at a time. The python side of the
// protocol is src/backends/pyrunner/protocol.py.
// A reply's body may instead lie in a memory file the runner gets as fd 4 (named in the hello as
// "bulk_fd"): the header then says {"bulk": N}, the first N bytes of that file, and the socket's
// body is empty. A traced run's values (58 MB on ResNet-50) took 200 ms through the socket and
// node.js's event loop, 13 ms written to the file.
// Zero copies: each request names where in the file its reply goes ("bulk_at"), past every region
// whose tensors still live; the worker maps the file and the reply's tensors borrow their bytes
// from the mapping (Tensor::borrowing), holding a lease that keeps the region from being written
// again until the last of them is gone. The python ORT runner has ORT write its outputs there
// (IOBinding). A reply past kKeepBulkBytes is copied out instead (its pages, mapped, would count
// against the worker's memory as well as the runner's).
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/value.h"
#include "core/status.h"

namespace ig {

class RunnerProcess {
 public:
  struct Reply {
    nlohmann::json header;
    std::string body;  // from the socket
    int bulk_fd = -1;  // else bulk_size bytes of this file at bulk_at, until the next call
    uint64_t bulk_at = 0, bulk_size = 0;
    // Those bytes mapped, and the lease that keeps them unwritten while a tensor borrows them.
    const std::byte* bulk_map = nullptr;
    std::shared_ptr<const void> bulk_lease;
    // Copies `length` bytes at `offset` of the body to `to`; false when they are not all there.
    bool read_body(uint64_t offset, uint64_t length, void* to) const;
  };
  // Starts `argv` (e.g. `node runner.js MODULES_DIR` or `python runner.py`) and checks with a
  // hello that its library loads; `what` names the runner in errors ("ort runner").
  static Expected<std::unique_ptr<RunnerProcess>> start(std::vector<std::string> argv,
                                                        const std::string& what);
  ~RunnerProcess();
  RunnerProcess(const RunnerProcess&) = delete;
  RunnerProcess& operator=(const RunnerProcess&) = delete;

  // A "run" request's "feeds" entries and body for tensor feeds; `what` names the platform in
  // errors (a feed of another kind, a dtype the protocol lacks).
  static Status encode_feeds(const std::map<std::string, Value>& feeds, const std::string& what,
                             nlohmann::json* entries, std::string* body);
  // The tensors a reply's "outputs" list, by name: borrowing the reply's mapped bytes where it
  // has them (safe to keep: the region stays unwritten while they live), else copies.
  static Expected<std::map<std::string, Tensor>> decode_outputs(const Reply& reply,
                                                                const std::string& what);

  // One request, one reply. The library's own errors carry its message verbatim: kUnsupported
  // where the runner says the compiler refused the model (reply kind "compile"), else kInternal.
  Expected<Reply> call(const nlohmann::json& header, const std::string& body = "");
  // The bulk file keeps its pages between replies up to this size (a traced run reuses them);
  // after a larger reply they go back to the system.
  static constexpr uint64_t kKeepBulkBytes = 64ull << 20;
  const std::string& version() const { return version_; }
  // Where the next reply goes in the bulk file: past every region a live tensor borrows.
  uint64_t next_bulk_at();
  // The hello reply: the library's version and whatever else the runner says about itself.
  const nlohmann::json& hello() const { return hello_; }

 private:
  RunnerProcess() = default;
  pid_t pid_ = -1;
  int sock_ = -1;
  // The bulk file mapped; a larger mapping replaces it when the file grows, the old one kept by
  // the leases on it.
  struct Mapping {
    void* bytes = nullptr;
    size_t size = 0;
    Mapping(void* b, size_t n) : bytes(b), size(n) {}
    ~Mapping();
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
  };
  struct Lease {
    std::shared_ptr<Mapping> map;
    uint64_t end;  // past the reply's last byte
  };
  // Maps the reply at [at, at + size) of the bulk file and leases it; false to read it by pread.
  Expected<bool> map_reply(uint64_t at, uint64_t size, Reply* reply);
  int bulk_fd_ = -1;  // the memory file for reply bodies (-1: the socket carries them)
  std::shared_ptr<Mapping> map_;
  std::vector<std::weak_ptr<Lease>> leases_;
  std::string what_;
  std::string version_;
  nlohmann::json hello_;
};

}  // namespace ig
