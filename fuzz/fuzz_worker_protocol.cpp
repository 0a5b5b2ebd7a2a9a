// Worker messages as the coordinator and the worker decode them. The first byte picks the
// message type. Property: decoding never crashes or over-allocates, and a decoded message
// re-encodes to bytes that decode and re-encode to the same bytes.
#include "fuzz_common.h"
#include "worker/protocol.h"

namespace {

template <typename Decode, typename Encode>
void round_trip(const std::string& payload, Decode decode, Encode encode, const char* what) {
  auto first = decode(payload);
  if (!first.ok()) return;
  const std::string bytes = encode(*first);
  auto second = decode(bytes);
  if (!second.ok()) ig::fuzz::fail(what, "re-encoded message does not decode");
  if (encode(*second) != bytes) ig::fuzz::fail(what, "re-encoding is not stable");
}

// The trace a result's graph outputs may refer to: one small streamed value.
const std::vector<ig::TracedTensor>& streamed_trace() {
  static const std::vector<ig::TracedTensor> trace = [] {
    ig::TracedTensor t;
    t.value = "y";
    t.node = "n0";
    t.op_type = "Relu";
    t.tensor = *ig::Tensor::create(ig::DType::kFloat32, {2});
    t.dtype = t.tensor.dtype();
    t.shape = t.tensor.shape();
    t.hash = 7;
    return std::vector<ig::TracedTensor>{t};
  }();
  return trace;
}

ig::Expected<ig::RunResult> decode_result_against_trace(const std::string& payload) {
  return ig::wire::decode_result(payload, streamed_trace());
}

std::string encode_result_against_trace(const ig::RunResult& r) {
  std::vector<ig::wire::StreamedValue> streamed;
  for (const auto& t : streamed_trace()) streamed.push_back(ig::wire::streamed_of(t));
  return ig::wire::encode_result(r, streamed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool ready = ig::fuzz::init();
  (void)ready;
  if (size == 0) return 0;
  const std::string payload = ig::fuzz::bytes_of(data + 1, size - 1);
  using namespace ig::wire;
  switch (data[0] % 4) {
    case 0:
      round_trip(payload, decode_request, encode_request, "request");
      break;
    case 1:
      round_trip(payload, decode_result_against_trace, encode_result_against_trace, "result");
      break;
    case 2:
      round_trip(payload, decode_traced, encode_traced, "traced");
      break;
    default: {
      ig::Status st;
      if (decode_status(payload, &st).ok()) {
        ig::Status again;
        if (!decode_status(encode_status(st), &again).ok() || again.code() != st.code() ||
            again.message() != st.message())
          ig::fuzz::fail("status", "round trip changed the status");
      }
    }
  }
  return 0;
}
