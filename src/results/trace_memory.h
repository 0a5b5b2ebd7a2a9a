// A coordinator's bound on the traced tensor bytes it holds. A study keeps the traces of the runs
// it is receiving and of the runs queued for the store; a model with large layers would hold
// gigabytes. Past a byte budget, further tensors' bytes go to an unlinked temporary file and the
// TracedTensor keeps only a TraceHold naming them; the store reads them back one at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/status.h"
#include "results/run_result.h"

namespace ig {

// --trace-budget's default.
inline constexpr uint64_t kDefaultTraceBudgetBytes = uint64_t{256} << 20;
// One --trace-budget bounds every tensor the study process holds: half for the traced tensors in
// flight or the analyses' TensorCache (never both at once), half for the store's caches
// (Store::set_memory_budget).
inline constexpr uint64_t in_flight_share(uint64_t budget) { return budget / 2; }

class TraceMemory;

// One traced tensor's share of a TraceMemory: its bytes counted against the budget, or their place
// in the spill file. Copies of the TracedTensor share it; the last one's end gives the bytes back.
class TraceHold {
 public:
  struct State;
  TraceHold(std::shared_ptr<State> state, bool spilled, uint64_t offset, uint64_t bytes)
      : state_(std::move(state)), spilled_(spilled), offset_(offset), bytes_(bytes) {}
  ~TraceHold();
  TraceHold(const TraceHold&) = delete;
  TraceHold& operator=(const TraceHold&) = delete;

  bool spilled() const { return spilled_; }
  uint64_t bytes() const { return bytes_; }
  // The spilled bytes as a tensor of `dtype` and `shape`, read back from the file.
  Expected<Tensor> load(DType dtype, const Shape& shape) const;

 private:
  std::shared_ptr<State> state_;
  bool spilled_;
  uint64_t offset_, bytes_;
};

class TraceMemory {
 public:
  // `dir`: where the spill file is made, at the first spill ("": $TMPDIR, else /tmp).
  TraceMemory(uint64_t budget_bytes, std::string dir);
  ~TraceMemory();
  TraceMemory(const TraceMemory&) = delete;
  TraceMemory& operator=(const TraceMemory&) = delete;

  // Counts t's tensor against the budget, or, past it, moves its bytes to the spill file and
  // leaves t.tensor undefined. A tensor already held, without data, or of strings (they have no
  // flat bytes; the store keeps only their hash) is left as it is. When the file cannot be made or
  // written, the tensor stays in memory (counted, over the budget) and the error is returned.
  Status hold(TracedTensor& t);
  // Every traced tensor and output of `r`.
  Status hold(RunResult& r);

  uint64_t budget() const;
  uint64_t held_bytes() const;     // in memory now
  uint64_t spilled_bytes() const;  // in the file now
  uint64_t peak_held_bytes() const;
  uint64_t spilled_total() const;  // ever written to the file

 private:
  void hold_in_memory_locked(TracedTensor& t, uint64_t bytes);
  void hold_in_memory(TracedTensor& t, uint64_t bytes);
  std::shared_ptr<TraceHold::State> state_;
};

}  // namespace ig
