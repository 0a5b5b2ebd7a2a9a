// Resource limits checked before anything is allocated: the memory budget that a model's declared
// tensor sizes must fit, and the depth of nested subgraphs. Untrusted models may declare anything;
// these checks turn an absurd declaration into a clear error instead of an out-of-memory kill.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace onnx {
class ModelProto;
class GraphProto;
}  // namespace onnx

namespace ig {

// Half of the physical memory: room for the coordinator, the OS and another worker.
uint64_t default_memory_budget();
// "4G", "512M", "1.5G", "64K", "1048576"; K/M/G/T are powers of 1024, a trailing "iB"/"B" is
// allowed. Zero and anything that does not parse are errors.
Expected<uint64_t> parse_byte_size(const std::string& text);
// "37.3 GiB (40000000000 bytes)", for error messages.
std::string describe_bytes(uint64_t bytes);

// Refuses, naming the file (`label`), the node and the size: an initializer or attribute tensor
// larger than `budget`, initializers that together exceed it, and a value whose fully static
// declared shape (graph input, output or value_info, e.g. from shape inference) exceeds it.
Status check_declared_sizes(const onnx::ModelProto& proto, const std::string& label,
                            uint64_t budget);

// Refuses attributes that ONNX's own shape inference divides by when they are zero or negative
// (strides, dilations, group, blocksize): libonnx would die of SIGFPE, taking the process along.
Status check_divisor_attributes(const onnx::GraphProto& graph);

// Refuses subgraphs (If/Loop/Scan bodies) nested deeper than `max_depth`, naming the node.
Status check_subgraph_depth(const onnx::GraphProto& graph, int max_depth);

}  // namespace ig
