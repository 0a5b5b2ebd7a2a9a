// Tensor storage: 64-byte aligned blocks. A process that runs one model again and again (a
// worker) may keep freed large blocks for the next tensor of the same size: with glibc's mmap
// threshold fixed at 256 KiB (core/process_memory.h), each such block was mapped anew and its pages
// faulted in and zeroed by the kernel, half of a worker's MobileNetV2 run. The cache is bounded
// (oldest blocks go first) so that the memory bounds hold; off (0) unless a process turns it on.
#pragma once

#include <cstddef>

namespace ig {

// Blocks of at least this size are kept; smaller ones come from the heap's own free lists.
inline constexpr size_t kCachedTensorBlockMin = size_t{256} << 10;

// Keeps up to `max_bytes` of freed blocks (0: none, the default; lowering it frees the excess).
void keep_freed_tensor_blocks(size_t max_bytes);

// A block of `bytes` (at least 1): a kept one of exactly that size when there is one, its bytes
// as they were left; else a new one.
std::byte* acquire_tensor_block(size_t bytes);
// Gives back a block acquire_tensor_block made with that `bytes`.
void release_tensor_block(std::byte* p, size_t bytes);

}  // namespace ig
