// .npy bytes -> Tensor. Property: a clear error naming the input, or a tensor that encode_npy
// writes back to bytes parsing to the same tensor.
#include "fuzz_common.h"
#include "model/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool ready = ig::fuzz::init();
  (void)ready;
  auto t = ig::parse_npy(ig::fuzz::bytes_of(data, size), "fuzz.npy");
  if (!t.ok()) {
    ig::fuzz::expect_named(t.status(), "fuzz.npy");
    return 0;
  }
  auto back = ig::parse_npy(ig::encode_npy(*t), "re-encoded.npy");
  if (!back.ok()) ig::fuzz::fail("a .npy we wrote does not read back", back.status().message());
  if (!back->bitwise_equal(*t)) ig::fuzz::fail("round trip changed the tensor", t->describe());
  return 0;
}
