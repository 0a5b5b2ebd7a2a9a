// The coordinator <-> worker wire format: length-prefixed binary frames on a dedicated socket
// (never stdout, which libraries print to). A job is one kRequest; the worker answers with zero or
// more kTrace frames, streamed as nodes finish, and one kResult frame last.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "worker/job.h"

namespace ig::wire {

enum class MsgType : uint32_t {
  kHello = 1,    // worker -> coordinator once at start: Status of building the backend
  kRequest = 2,  // coordinator -> worker: RunRequest
  kTrace = 3,    // worker -> coordinator: one TracedTensor
  kResult = 4,   // worker -> coordinator: RunResult without its trace (already streamed)
};

struct Frame {
  MsgType type = MsgType::kHello;
  std::string payload;
};

// Blocking write of a whole frame; EPIPE and friends come back as kIoError.
Status send_frame(int fd, MsgType type, const std::string& payload);
// Blocking read of a whole frame; a clean EOF before the header is kNotFound ("closed").
Expected<Frame> recv_frame(int fd);

// Bounds-checked little-endian encoder/decoder for the job types.
class Writer {
 public:
  void u32(uint32_t v) { raw(&v, sizeof v); }
  void u64(uint64_t v) { raw(&v, sizeof v); }
  void i64(int64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void str(const std::string& s);
  void tensor(const Tensor& t);
  void traced(const TracedTensor& t);
  std::string take() { return std::move(buf_); }

 private:
  void raw(const void* p, size_t n) { buf_.append(static_cast<const char*>(p), n); }
  std::string buf_;
};

class Reader {
 public:
  explicit Reader(const std::string& buf) : buf_(buf) {}
  Expected<uint32_t> u32();
  Expected<uint64_t> u64();
  Expected<int64_t> i64();
  Expected<double> f64();
  Expected<std::string> str();
  Expected<Tensor> tensor();
  Expected<TracedTensor> traced();
  bool done() const { return pos_ == buf_.size(); }

 private:
  Status take(void* out, size_t n);
  const std::string& buf_;
  size_t pos_ = 0;
};

std::string encode_status(const Status& st);
// Returns whether the payload decoded; the worker's status goes to *out.
Status decode_status(const std::string& payload, Status* out);
std::string encode_request(const RunRequest& r);
Expected<RunRequest> decode_request(const std::string& payload);
// What a worker streamed for the job in flight: enough to tell whether a graph output repeats it,
// without holding the tensor.
struct StreamedValue {
  std::string value, node;
  uint64_t hash = 0;
  DType dtype = DType::kUndefined;
  Shape shape;
  bool with_tensor = false;
};
StreamedValue streamed_of(const TracedTensor& t);
// Without r.trace (already streamed): a graph output the stream carried with its tensor, bit for
// bit, is sent as a reference to it, so each tensor crosses the socket once.
std::string encode_result(const RunResult& r, const std::vector<StreamedValue>& streamed);
// `streamed`: the trace frames received for this job, which output references resolve against.
Expected<RunResult> decode_result(const std::string& payload,
                                  const std::vector<TracedTensor>& streamed);
std::string encode_traced(const TracedTensor& t);
Expected<TracedTensor> decode_traced(const std::string& payload);

}  // namespace ig::wire
