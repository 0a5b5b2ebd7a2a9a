// The worker's result message: verdicts as checked values, rejections as records, and graph
// outputs sent once when the streamed trace already carried them bit for bit.
#include "worker/protocol.h"

#include <gtest/gtest.h>

#include "results/trace_memory.h"
#include "tensor/hash.h"

namespace ig {
namespace {

TracedTensor traced(const std::string& value, const std::string& node, std::vector<float> data) {
  TracedTensor t;
  t.value = value;
  t.node = node;
  t.op_type = "Relu";
  t.node_index = 0;
  const auto n = static_cast<int64_t>(data.size());
  t.tensor = Tensor::from_vector<float>(std::move(data), {n});
  t.hash = tensor_hash(t.tensor);
  t.dtype = t.tensor.dtype();
  t.shape = t.tensor.shape();
  return t;
}

std::vector<wire::StreamedValue> streamed_of(const std::vector<TracedTensor>& trace) {
  std::vector<wire::StreamedValue> out;
  for (const auto& t : trace) out.push_back(wire::streamed_of(t));
  return out;
}

TEST(Protocol, GraphOutputCarriedByTheTraceIsSentOnce) {
  std::vector<float> big(4096, 1.5f);
  const std::vector<TracedTensor> trace = {traced("y", "relu", big)};
  RunResult r;
  r.verdict = Verdict::kOk;
  r.outputs = {trace[0]};
  const std::string by_reference = wire::encode_result(r, streamed_of(trace));
  const std::string inline_copy = wire::encode_result(r, {});
  EXPECT_LT(by_reference.size(), 200u);
  EXPECT_GT(inline_copy.size(), big.size() * sizeof(float));
  for (const std::string* payload : {&by_reference, &inline_copy}) {
    auto back = wire::decode_result(*payload, trace);
    ASSERT_TRUE(back.ok()) << back.status().message();
    ASSERT_EQ(back->outputs.size(), 1u);
    EXPECT_EQ(back->outputs[0].node, "relu");
    EXPECT_EQ(back->outputs[0].hash, trace[0].hash);
    EXPECT_TRUE(back->outputs[0].tensor.bitwise_equal(trace[0].tensor));
  }
}

TEST(Protocol, RequestCarriesItsLimitsAndTraceBudget) {
  RunRequest req;
  req.platform = "ref";
  req.model_path = "m.onnx";
  req.max_memory_bytes = 12345;
  req.trace_budget_bytes = 65536;
  req.support_only = true;
  req.capture.verify_traces = true;
  auto back = wire::decode_request(wire::encode_request(req));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->max_memory_bytes, 12345u);
  EXPECT_EQ(back->trace_budget_bytes, 65536u);
  EXPECT_TRUE(back->support_only);
  EXPECT_TRUE(back->capture.verify_traces);
  req.capture.verify_traces = false;
  EXPECT_FALSE(wire::decode_request(wire::encode_request(req))->capture.verify_traces);
}

// A coordinator over its trace budget spilled the traced value: the output naming it still
// resolves, to the spilled bytes.
TEST(Protocol, GraphOutputNamingASpilledTraceResolves) {
  std::vector<float> big(4096, 2.5f);
  std::vector<TracedTensor> trace = {traced("y", "relu", big)};
  const Tensor original = trace[0].tensor;
  RunResult r;
  r.verdict = Verdict::kOk;
  r.outputs = {trace[0]};
  const std::string payload = wire::encode_result(r, streamed_of(trace));
  TraceMemory memory(16, "");
  ASSERT_TRUE(memory.hold(trace[0]).ok());
  ASSERT_TRUE(trace[0].spilled());
  auto back = wire::decode_result(payload, trace);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->outputs.size(), 1u);
  auto data = back->outputs[0].data();
  ASSERT_TRUE(data.ok()) << data.status().message();
  EXPECT_TRUE(data->bitwise_equal(original));
}

TEST(Protocol, GraphOutputThatDiffersFromTheTracedValueTravelsWhole) {
  // ORT and OpenCV trace a rewritten model: the same value name may hold other bits there.
  const std::vector<TracedTensor> trace = {traced("y", "relu", {1, 2, 3})};
  RunResult r;
  r.verdict = Verdict::kOk;
  r.outputs = {traced("y", "relu", {1, 2, 4})};
  auto back = wire::decode_result(wire::encode_result(r, streamed_of(trace)), trace);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->outputs.size(), 1u);
  EXPECT_EQ(back->outputs[0].hash, r.outputs[0].hash);
  EXPECT_NE(back->outputs[0].hash, trace[0].hash);
  // A hash-only trace (keep_tensors off) cannot stand in for an output either.
  TracedTensor hash_only = trace[0];
  hash_only.tensor = Tensor();
  r.outputs = {trace[0]};
  back = wire::decode_result(wire::encode_result(r, streamed_of({hash_only})), {hash_only});
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back->outputs[0].tensor.bitwise_equal(trace[0].tensor));
}

TEST(Protocol, RejectionsAndVerdictRoundTrip) {
  RunResult r;
  r.verdict = Verdict::kUnsupported;
  r.reason = "Softsign 's': no oneDNN mapping";
  r.rejections = {{"s", "Softsign", 2, "Softsign 's': no oneDNN mapping"},
                  {"", "", -1, "OpenCV's ONNX importer: bad"}};
  auto back = wire::decode_result(wire::encode_result(r, {}), {});
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->verdict, Verdict::kUnsupported);
  EXPECT_EQ(back->rejections, r.rejections);
}

TEST(Protocol, BadVerdictOrDanglingReferenceIsAProtocolError) {
  RunResult r;
  r.verdict = Verdict::kOk;
  std::string payload = wire::encode_result(r, {});
  payload[0] = static_cast<char>(Verdict::kCount);
  EXPECT_NE(wire::decode_result(payload, {}).status().message().find("bad verdict"),
            std::string::npos);
  const std::vector<TracedTensor> trace = {traced("y", "relu", {1})};
  r.outputs = trace;
  const std::string ref = wire::encode_result(r, streamed_of(trace));
  EXPECT_NE(wire::decode_result(ref, {}).status().message().find("never traced"),
            std::string::npos);
}

}  // namespace
}  // namespace ig
