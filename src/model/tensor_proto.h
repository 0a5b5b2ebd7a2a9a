// ONNX TensorProto <-> Tensor, and .pb files holding one TensorProto.
#pragma once

#include <string>

#include "tensor/tensor.h"

namespace onnx {
class TensorProto;
}

namespace ig {

// `base_dir` resolves external data; empty forbids it. Sizes are checked against the dims.
Expected<Tensor> tensor_from_proto(const onnx::TensorProto& proto,
                                   const std::string& base_dir = "");
// The tensor's dtype and shape only (Tensor::shape_only); its data is neither read nor checked.
Expected<Tensor> tensor_shape_from_proto(const onnx::TensorProto& proto);
// int32_data of a narrow type (int4, float8, ...) holds its packed bytes, one a value; a value
// outside 0..255 is an error naming it.
Expected<std::string> int32_data_bytes(const onnx::TensorProto& p, DType dtype);
void tensor_to_proto(const Tensor& tensor, const std::string& name, onnx::TensorProto* proto);

Expected<Tensor> read_tensor_pb(const std::string& path, std::string* name = nullptr);
// The bytes of a .pb file already in memory; `label` names them in errors.
Expected<Tensor> parse_tensor_pb(const std::string& bytes, const std::string& label,
                                 std::string* name = nullptr);
Status write_tensor_pb(const Tensor& tensor, const std::string& name, const std::string& path);

// The size of a regular file that may be read whole, refusing anything over `max_bytes`.
Expected<uint64_t> readable_file_size(const std::string& path, uint64_t max_bytes);
// Reads a whole file, refusing anything over `max_bytes`.
Expected<std::string> read_file_bytes(const std::string& path, uint64_t max_bytes);
Status write_file_bytes(const std::string& path, const std::string& bytes);

// Resolves an external-data location relative to `base_dir`: relative, no escape via ".." or
// symlinks. Returns the canonical path.
Expected<std::string> resolve_inside(const std::string& base_dir, const std::string& location);

}  // namespace ig
