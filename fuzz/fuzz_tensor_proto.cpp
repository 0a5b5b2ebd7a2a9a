// TensorProto bytes (.pb files) -> Tensor. Property: a clear error naming the input, or a tensor
// whose bytes survive tensor_to_proto and back unchanged.
#include <onnx/onnx_pb.h>

#include "fuzz_common.h"
#include "model/tensor_proto.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool ready = ig::fuzz::init();
  (void)ready;
  auto t = ig::parse_tensor_pb(ig::fuzz::bytes_of(data, size), "fuzz.pb");
  if (!t.ok()) {
    ig::fuzz::expect_named(t.status(), "fuzz.pb");
    return 0;
  }
  onnx::TensorProto proto;
  ig::tensor_to_proto(*t, "x", &proto);
  auto back = ig::tensor_from_proto(proto);
  if (!back.ok()) ig::fuzz::fail("a tensor we wrote does not read back", back.status().message());
  if (t->dtype() != ig::DType::kString && !back->bitwise_equal(*t))
    ig::fuzz::fail("round trip changed the tensor", t->describe());
  if (t->dtype() == ig::DType::kString && back->strings() != t->strings())
    ig::fuzz::fail("round trip changed the strings", t->describe());
  return 0;
}
