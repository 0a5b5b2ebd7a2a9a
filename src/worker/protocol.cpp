#include "worker/protocol.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <unordered_map>

namespace ig::wire {

namespace {

// A frame larger than this is a corrupt stream, not a tensor (tensors are capped far lower).
constexpr uint64_t kMaxFrameBytes = uint64_t{16} << 30;

Status write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    // MSG_NOSIGNAL: a dead peer is an error to report, not a SIGPIPE that ends this process.
    const ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return io_error("worker socket write: {}", std::strerror(errno));
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::Ok();
}

// Reads exactly n bytes; returns false on EOF before the first byte.
Expected<bool> read_all(int fd, char* p, size_t n) {
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, p + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return io_error("worker socket read: {}", std::strerror(errno));
    if (r == 0) {
      if (got == 0) return false;
      return io_error("worker socket closed in the middle of a frame");
    }
    got += static_cast<size_t>(r);
  }
  return true;
}

}  // namespace

Status send_frame(int fd, MsgType type, const std::string& payload) {
  char header[12];
  const uint32_t t = static_cast<uint32_t>(type);
  const uint64_t n = payload.size();
  std::memcpy(header, &t, 4);
  std::memcpy(header + 4, &n, 8);
  IG_RETURN_IF_ERROR(write_all(fd, header, sizeof header));
  return write_all(fd, payload.data(), payload.size());
}

Expected<Frame> recv_frame(int fd) {
  char header[12];
  IG_ASSIGN_OR_RETURN(bool any, read_all(fd, header, sizeof header));
  if (!any) return not_found("worker socket closed");
  uint32_t t;
  uint64_t n;
  std::memcpy(&t, header, 4);
  std::memcpy(&n, header + 4, 8);
  if (t < 1 || t > 4 || n > kMaxFrameBytes)
    return io_error("corrupt worker frame (type {}, {} bytes)", t, n);
  Frame f;
  f.type = static_cast<MsgType>(t);
  f.payload.resize(n);
  if (n > 0) {
    IG_ASSIGN_OR_RETURN(bool body, read_all(fd, f.payload.data(), n));
    if (!body) return io_error("worker socket closed in the middle of a frame");
  }
  return f;
}

void Writer::str(const std::string& s) {
  u64(s.size());
  raw(s.data(), s.size());
}

void Writer::tensor(const Tensor& t) {
  u32(static_cast<uint32_t>(t.dtype()));
  if (!t.defined()) return;
  u64(t.shape().size());
  for (int64_t d : t.shape()) i64(d);
  if (t.dtype() == DType::kString) {
    for (const auto& s : t.strings()) str(s);
  } else {
    raw(t.raw(), t.nbytes());
  }
}

void Writer::traced(const TracedTensor& t) {
  str(t.value);
  str(t.node);
  str(t.op_type);
  i64(t.node_index);
  u64(t.hash);
  u32(static_cast<uint32_t>(t.dtype));
  u64(t.shape.size());
  for (int64_t d : t.shape) i64(d);
  tensor(t.tensor);
  str(t.covers);
  str(t.note);
}

Status Reader::take(void* out, size_t n) {
  if (buf_.size() - pos_ < n) return io_error("truncated worker message");
  std::memcpy(out, buf_.data() + pos_, n);
  pos_ += n;
  return Status::Ok();
}

#define IG_READ_SCALAR(T, name)                   \
  Expected<T> Reader::name() {                    \
    T v{}; /* GCC 12 cannot see take() fill it */ \
    IG_RETURN_IF_ERROR(take(&v, sizeof v));       \
    return v;                                     \
  }
IG_READ_SCALAR(uint32_t, u32)
IG_READ_SCALAR(uint64_t, u64)
IG_READ_SCALAR(int64_t, i64)
IG_READ_SCALAR(double, f64)
#undef IG_READ_SCALAR

Expected<std::string> Reader::str() {
  IG_ASSIGN_OR_RETURN(uint64_t n, u64());
  if (buf_.size() - pos_ < n) return io_error("truncated worker message");
  std::string s = buf_.substr(pos_, n);
  pos_ += n;
  return s;
}

Expected<Tensor> Reader::tensor() {
  IG_ASSIGN_OR_RETURN(uint32_t dt, u32());
  if (dt == static_cast<uint32_t>(DType::kUndefined)) return Tensor();  // hash-only capture
  if (!is_valid_dtype(static_cast<int32_t>(dt)))
    return io_error("bad dtype {} in worker message", dt);
  const DType dtype = static_cast<DType>(dt);
  IG_ASSIGN_OR_RETURN(uint64_t rank, u64());
  if (rank > 64) return io_error("bad rank {} in worker message", rank);
  Shape shape(rank);
  for (auto& d : shape) {
    IG_ASSIGN_OR_RETURN(d, i64());
  }
  // Every byte is read from the message below, or the tensor is dropped with an error.
  IG_ASSIGN_OR_RETURN(Tensor t, Tensor::create_for_overwrite(dtype, shape));
  if (dtype == DType::kString) {
    for (auto& s : t.strings()) {
      IG_ASSIGN_OR_RETURN(s, str());
    }
  } else {
    IG_RETURN_IF_ERROR(take(t.raw(), t.nbytes()));
  }
  return t;
}

Expected<TracedTensor> Reader::traced() {
  TracedTensor t;
  IG_ASSIGN_OR_RETURN(t.value, str());
  IG_ASSIGN_OR_RETURN(t.node, str());
  IG_ASSIGN_OR_RETURN(t.op_type, str());
  IG_ASSIGN_OR_RETURN(t.node_index, i64());
  IG_ASSIGN_OR_RETURN(t.hash, u64());
  IG_ASSIGN_OR_RETURN(uint32_t dt, u32());
  if (!is_valid_dtype(static_cast<int32_t>(dt)))
    return io_error("bad dtype {} in worker message", dt);
  t.dtype = static_cast<DType>(dt);
  IG_ASSIGN_OR_RETURN(uint64_t rank, u64());
  if (rank > 64) return io_error("bad rank {} in worker message", rank);
  t.shape.resize(rank);
  for (auto& d : t.shape) {
    IG_ASSIGN_OR_RETURN(d, i64());
  }
  IG_ASSIGN_OR_RETURN(t.tensor, tensor());
  IG_ASSIGN_OR_RETURN(t.covers, str());
  IG_ASSIGN_OR_RETURN(t.note, str());
  return t;
}

std::string encode_status(const Status& st) {
  Writer w;
  w.u32(static_cast<uint32_t>(st.code()));
  w.str(st.message());
  return w.take();
}

Status decode_status(const std::string& payload, Status* out) {
  Reader r(payload);
  IG_ASSIGN_OR_RETURN(uint32_t code, r.u32());
  IG_ASSIGN_OR_RETURN(std::string msg, r.str());
  if (code > static_cast<uint32_t>(StatusCode::kInternal))
    return io_error("bad status code {}", code);
  *out = code == 0 ? Status::Ok() : Status(static_cast<StatusCode>(code), msg);
  return Status::Ok();
}

std::string encode_request(const RunRequest& req) {
  Writer w;
  w.str(req.platform);
  w.str(req.model_path);
  w.u64(req.inputs.size());
  for (const auto& [name, t] : req.inputs) {
    w.str(name);
    w.tensor(t);
  }
  w.u32(req.capture.all_layers ? 1 : 0);
  w.u32(req.capture.keep_tensors ? 1 : 0);
  w.u32(req.capture.verify_traces ? 1 : 0);
  w.f64(req.timeout_seconds);
  w.u64(req.max_memory_bytes);
  w.u32(req.support_only ? 1 : 0);
  w.u64(req.trace_budget_bytes);
  return w.take();
}

Expected<RunRequest> decode_request(const std::string& payload) {
  Reader r(payload);
  RunRequest req;
  IG_ASSIGN_OR_RETURN(req.platform, r.str());
  IG_ASSIGN_OR_RETURN(req.model_path, r.str());
  IG_ASSIGN_OR_RETURN(uint64_t n, r.u64());
  for (uint64_t i = 0; i < n; ++i) {
    IG_ASSIGN_OR_RETURN(std::string name, r.str());
    IG_ASSIGN_OR_RETURN(req.inputs[name], r.tensor());
  }
  IG_ASSIGN_OR_RETURN(uint32_t all, r.u32());
  IG_ASSIGN_OR_RETURN(uint32_t keep, r.u32());
  IG_ASSIGN_OR_RETURN(uint32_t verify, r.u32());
  req.capture.all_layers = all != 0;
  req.capture.keep_tensors = keep != 0;
  req.capture.verify_traces = verify != 0;
  IG_ASSIGN_OR_RETURN(req.timeout_seconds, r.f64());
  IG_ASSIGN_OR_RETURN(req.max_memory_bytes, r.u64());
  IG_ASSIGN_OR_RETURN(uint32_t support_only, r.u32());
  req.support_only = support_only != 0;
  IG_ASSIGN_OR_RETURN(req.trace_budget_bytes, r.u64());
  return req;
}

namespace {

// A graph output that the trace already carried (same value, bytes, dtype and shape, with its
// tensor) is sent as a reference to it instead of a second copy. ORT and OpenCV trace a rewritten
// model and their graph outputs may differ from its values, so equality is checked, not assumed.
bool in_stream(const TracedTensor& out, const std::vector<StreamedValue>& streamed) {
  for (const auto& s : streamed) {
    if (s.value == out.value)
      return s.with_tensor && s.hash == out.hash && s.dtype == out.dtype && s.shape == out.shape &&
             s.node == out.node;
  }
  return false;
}

std::unordered_map<std::string, size_t> index_by_value(const std::vector<TracedTensor>& trace) {
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < trace.size(); ++i) index[trace[i].value] = i;
  return index;
}

enum : uint32_t { kOutputInline = 0, kOutputInTrace = 1 };

}  // namespace

StreamedValue streamed_of(const TracedTensor& t) {
  return {t.value, t.node, t.hash, t.dtype, t.shape, t.tensor.defined()};
}

std::string encode_result(const RunResult& res, const std::vector<StreamedValue>& streamed) {
  Writer w;
  w.u32(static_cast<uint32_t>(res.verdict));
  w.str(res.reason);
  w.str(res.repro);
  w.f64(res.seconds);
  w.f64(res.load_seconds);
  w.str(res.library);
  w.str(res.library_version);
  w.u64(res.rejections.size());
  for (const auto& r : res.rejections) {
    w.str(r.node);
    w.str(r.op_type);
    w.i64(r.node_index);
    w.str(r.reason);
  }
  w.u64(res.outputs.size());
  for (const auto& t : res.outputs) {
    if (in_stream(t, streamed)) {
      w.u32(kOutputInTrace);
      w.str(t.value);
    } else {
      w.u32(kOutputInline);
      w.traced(t);
    }
  }
  return w.take();
}

Expected<RunResult> decode_result(const std::string& payload,
                                  const std::vector<TracedTensor>& streamed) {
  Reader r(payload);
  RunResult res;
  IG_ASSIGN_OR_RETURN(uint32_t verdict, r.u32());
  if (verdict >= static_cast<uint32_t>(Verdict::kCount))
    return io_error("bad verdict {} in worker message", verdict);
  res.verdict = static_cast<Verdict>(verdict);
  IG_ASSIGN_OR_RETURN(res.reason, r.str());
  IG_ASSIGN_OR_RETURN(res.repro, r.str());
  IG_ASSIGN_OR_RETURN(res.seconds, r.f64());
  IG_ASSIGN_OR_RETURN(res.load_seconds, r.f64());
  IG_ASSIGN_OR_RETURN(res.library, r.str());
  IG_ASSIGN_OR_RETURN(res.library_version, r.str());
  IG_ASSIGN_OR_RETURN(uint64_t rejected, r.u64());
  for (uint64_t i = 0; i < rejected; ++i) {
    Rejection rej;
    IG_ASSIGN_OR_RETURN(rej.node, r.str());
    IG_ASSIGN_OR_RETURN(rej.op_type, r.str());
    IG_ASSIGN_OR_RETURN(rej.node_index, r.i64());
    IG_ASSIGN_OR_RETURN(rej.reason, r.str());
    res.rejections.push_back(std::move(rej));
  }
  const auto index = index_by_value(streamed);
  IG_ASSIGN_OR_RETURN(uint64_t n, r.u64());
  for (uint64_t i = 0; i < n; ++i) {
    IG_ASSIGN_OR_RETURN(uint32_t how, r.u32());
    if (how == kOutputInTrace) {
      IG_ASSIGN_OR_RETURN(std::string value, r.str());
      auto it = index.find(value);
      // A coordinator over its trace budget may have moved the traced bytes to its spill file.
      if (it == index.end() || !streamed[it->second].has_data())
        return io_error("worker message names graph output '{}', which it never traced", value);
      res.outputs.push_back(streamed[it->second]);
    } else if (how == kOutputInline) {
      IG_ASSIGN_OR_RETURN(TracedTensor t, r.traced());
      res.outputs.push_back(std::move(t));
    } else {
      return io_error("bad output kind {} in worker message", how);
    }
  }
  if (!r.done()) return io_error("trailing bytes in worker result");
  return res;
}

std::string encode_traced(const TracedTensor& t) {
  Writer w;
  w.traced(t);
  return w.take();
}

Expected<TracedTensor> decode_traced(const std::string& payload) {
  Reader r(payload);
  return r.traced();
}

}  // namespace ig::wire
