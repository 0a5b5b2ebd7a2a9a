#include "results/trace_memory.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace ig {

// Shared by the TraceMemory and every hold it gave out, so a RunResult may outlive the study.
struct TraceHold::State {
  uint64_t budget = 0;
  std::string dir;
  std::mutex mu;  // guards what follows; the file's bytes are read and written outside it
  int fd = -1;
  uint64_t end = 0;  // where the next spilled tensor goes
  uint64_t held = 0, spilled = 0, peak_held = 0, spilled_total = 0;

  ~State() {
    if (fd >= 0) ::close(fd);
  }
  Status open_file();
  void give_back(bool was_spilled, uint64_t offset, uint64_t bytes);
};

namespace {

// mkstemp and unlink: the file has no name, so a killed study leaves nothing behind.
Expected<int> unlinked_temp_file(const std::string& dir) {
  std::string path = dir + "/.infergap-spill-XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0) return io_error("{}: cannot make a spill file: {}", path, std::strerror(errno));
  ::unlink(path.c_str());
  return fd;
}

Status write_all(int fd, const std::byte* p, uint64_t n, uint64_t offset) {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, p, n, static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return io_error("writing the trace spill file: {}", std::strerror(errno));
    p += w;
    n -= static_cast<uint64_t>(w);
    offset += static_cast<uint64_t>(w);
  }
  return Status::Ok();
}

Status read_all(int fd, std::byte* p, uint64_t n, uint64_t offset) {
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return io_error("reading the trace spill file: {}", std::strerror(errno));
    p += r;
    n -= static_cast<uint64_t>(r);
    offset += static_cast<uint64_t>(r);
  }
  return Status::Ok();
}

}  // namespace

Status TraceHold::State::open_file() {  // with `mu` held
  if (fd >= 0) return Status::Ok();
  const char* env = std::getenv("TMPDIR");
  const std::string tmp = env && *env ? env : "/tmp";
  auto made = unlinked_temp_file(dir.empty() ? tmp : dir);
  if (!made.ok() && !dir.empty()) made = unlinked_temp_file(tmp);  // e.g. a read-only folder
  if (!made.ok()) return made.status();
  fd = *made;
  return Status::Ok();
}

void TraceHold::State::give_back(bool was_spilled, uint64_t offset, uint64_t bytes) {
  std::lock_guard lock(mu);
  if (!was_spilled) {
    held -= bytes;
    return;
  }
  spilled -= bytes;
  // The file only grows while something in it is live; once nothing is, it starts over.
  if (spilled == 0) {
    end = 0;
    // On failure the space comes back when the study ends.
    (void)!::ftruncate(fd, 0);
    return;
  }
#ifdef FALLOC_FL_PUNCH_HOLE
  // A long campaign may never empty the file: its dead ranges give their disk back.
  (void)::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                    static_cast<off_t>(bytes));
#else
  (void)offset;
#endif
}

TraceHold::~TraceHold() { state_->give_back(spilled_, offset_, bytes_); }

Expected<Tensor> TraceHold::load(DType dtype, const Shape& shape) const {
  if (!spilled_) return internal_error("trace memory: a held tensor has no spilled bytes");
  IG_ASSIGN_OR_RETURN(Tensor t, Tensor::create(dtype, shape));
  if (t.nbytes() != bytes_)
    return internal_error("trace spill: {} bytes for {}", bytes_, t.describe());
  IG_RETURN_IF_ERROR(read_all(state_->fd, t.raw(), bytes_, offset_));
  return t;
}

TraceMemory::TraceMemory(uint64_t budget_bytes, std::string dir)
    : state_(std::make_shared<TraceHold::State>()) {
  state_->budget = budget_bytes;
  state_->dir = std::move(dir);
}

TraceMemory::~TraceMemory() = default;

void TraceMemory::hold_in_memory_locked(TracedTensor& t, uint64_t bytes) {
  TraceHold::State& s = *state_;
  s.held += bytes;
  s.peak_held = std::max(s.peak_held, s.held);
  t.hold = std::make_shared<TraceHold>(state_, false, 0, bytes);
}

void TraceMemory::hold_in_memory(TracedTensor& t, uint64_t bytes) {
  std::lock_guard lock(state_->mu);
  hold_in_memory_locked(t, bytes);
}

Status TraceMemory::hold(TracedTensor& t) {
  if (t.hold || !t.tensor.defined() || t.tensor.dtype() == DType::kString) return Status::Ok();
  const uint64_t bytes = t.tensor.nbytes();
  TraceHold::State& s = *state_;
  uint64_t offset = 0;
  {
    std::lock_guard lock(s.mu);
    if (s.held + bytes <= s.budget) {
      hold_in_memory_locked(t, bytes);
      return Status::Ok();
    }
    if (Status opened = s.open_file(); !opened.ok()) {
      hold_in_memory_locked(t, bytes);
      return opened;
    }
    offset = s.end;
    s.end += bytes;
    s.spilled += bytes;
    s.spilled_total += bytes;
  }
  // Held from here, so a failed write gives its range back too.
  auto hold = std::make_shared<TraceHold>(state_, true, offset, bytes);
  Status written = write_all(s.fd, t.tensor.raw(), bytes, offset);
  if (!written.ok()) {
    hold.reset();
    hold_in_memory(t, bytes);  // over the budget rather than without the tensor
    return written;
  }
  t.hold = std::move(hold);
  t.tensor = Tensor();
  return Status::Ok();
}

Status TraceMemory::hold(RunResult& r) {
  for (auto* list : {&r.trace, &r.outputs})
    for (auto& t : *list) IG_RETURN_IF_ERROR(hold(t));
  return Status::Ok();
}

uint64_t TraceMemory::budget() const { return state_->budget; }

uint64_t TraceMemory::held_bytes() const {
  std::lock_guard lock(state_->mu);
  return state_->held;
}

uint64_t TraceMemory::spilled_bytes() const {
  std::lock_guard lock(state_->mu);
  return state_->spilled;
}

uint64_t TraceMemory::peak_held_bytes() const {
  std::lock_guard lock(state_->mu);
  return state_->peak_held;
}

uint64_t TraceMemory::spilled_total() const {
  std::lock_guard lock(state_->mu);
  return state_->spilled_total;
}

// TracedTensor's own functions live here, beside the hold they consult.
bool TracedTensor::spilled() const { return hold && hold->spilled(); }

Expected<Tensor> TracedTensor::data() const {
  if (tensor.defined() || !spilled()) return tensor;
  return hold->load(dtype, shape);
}

}  // namespace ig
