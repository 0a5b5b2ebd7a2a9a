// Findings of the fuzzers (fuzz/), kept fixed. Each input is rebuilt here (the raw bytes that
// found it are in fuzz/regressions/, which scripts/fuzz replays under the sanitizers).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "../support/cli.h"
#include "../support/mini_resnet.h"
#include "../support/onnx_builder.h"
#include "model/npy.h"
#include "model/tensor_proto.h"

namespace ig {
namespace {

// fuzz_tensor_proto: a complex64 tensor with a zero dim and no float_data passed the field's null
// data() to memcpy (UBSan: null pointer passed as argument 2).
TEST(FuzzRegression, EmptyComplexTensorsReadWithoutTouchingTheirData) {
  for (auto type : {onnx::TensorProto::COMPLEX64, onnx::TensorProto::COMPLEX128}) {
    onnx::TensorProto p;
    p.set_data_type(type);
    p.add_dims(5);
    p.add_dims(0);
    auto t = tensor_from_proto(p);
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_EQ(t->numel(), 0);
    EXPECT_EQ(t->shape(), (Shape{5, 0}));
  }
  // The exact bytes the fuzzer wrote (fuzz/regressions/fuzz_tensor_proto/empty_complex64.pb).
  const std::string found("\x10\x01\x10\x0e\x08\x05\x08\x00\x5d\x42\x01\x01\x01", 13);
  auto t = parse_tensor_pb(found, "found.pb");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->dtype(), DType::kComplex64);
  EXPECT_EQ(t->numel(), 0);
}

std::string npy_with_header(const std::string& dict) {
  std::string header = dict + "\n";
  std::string out = "\x93NUMPY";
  out += '\x02';
  out += '\x00';
  for (int i = 0; i < 4; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header;
}

// fuzz_npy ran at 40 executions a second: the header was parsed with std::regex, which recurses
// once per character, and a header with a 100 KB descr overflowed the stack (SIGSEGV).
TEST(FuzzRegression, LongNpyHeadersAreParsedWithoutRecursion) {
  const std::string long_descr(1 << 20, 'A');
  auto t = parse_npy(
      npy_with_header("{'descr': '" + long_descr + "', 'fortran_order': False, 'shape': (1,), }"),
      "long.npy");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("long.npy: .npy element type 'AAAA"), std::string::npos);
  // A 0-d float32 array whose shape tuple is a megabyte of spaces.
  t = parse_npy(
      npy_with_header("{'descr': '<f4', 'shape': (" + std::string(1 << 20, ' ') + "), }") +
          std::string(4, '\0'),
      "spaces.npy");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->shape(), Shape{});
}

TEST(FuzzRegression, NpyShapesParseAsBefore) {
  auto shape_of = [](const std::string& dims) -> Expected<Tensor> {
    return parse_npy(
        npy_with_header("{'descr': '|u1', 'fortran_order': False, 'shape': " + dims + ", }") +
            std::string(6, '\0'),
        "s.npy");
  };
  EXPECT_EQ(shape_of("(2, 3)")->shape(), (Shape{2, 3}));
  EXPECT_EQ(shape_of("(6,)")->shape(), (Shape{6}));
  auto bad = shape_of("(2, 3L)");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("dimension '3L' is not a valid integer"),
            std::string::npos);
  bad = shape_of("(2, -3)");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("negative dimension -3"), std::string::npos);
}

// fuzz_onnx_model: MaxPool with strides [0] (a mutated test model) made libonnx's shape inference
// divide by zero: SIGFPE in onnx::convPoolShapeInference1, killing the coordinator on load.
// Divisor attributes are now refused before shape inference and before any kernel.
onnx::ModelProto pool_model(const std::string& op, const std::string& attr, int64_t value) {
  auto m = testing::empty_model("pool");
  auto* g = m.mutable_graph();
  testing::add_tensor_value(g->add_input(), "X", onnx::TensorProto::FLOAT, {2, 10, 4});
  testing::add_symbolic_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, 3);
  auto* n = testing::add_node(g, op, "", {"X"}, {"Y"});
  if (op != "SpaceToDepth") testing::add_ints(n, "kernel_shape", {4});
  if (attr == "blocksize" || attr == "group") {
    auto* a = n->add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  } else {
    testing::add_ints(n, attr, {value});
  }
  return m;
}

TEST(FuzzRegression, ZeroStridesAreRefusedBeforeShapeInferenceDividesByThem) {
  testing::TempDir dir;
  struct Case {
    std::string op, attr;
    int64_t value;
  };
  for (const auto& c : std::vector<Case>{{"MaxPool", "strides", 0},
                                         {"AveragePool", "strides", -1},
                                         {"MaxPool", "dilations", 0},
                                         {"SpaceToDepth", "blocksize", 0}}) {
    const std::string path =
        testing::write_model(pool_model(c.op, c.attr, c.value), dir.file(c.op + c.attr + ".onnx"));
    auto m = load_model(path);
    ASSERT_FALSE(m.ok()) << c.op;
    const std::string want = c.op + " (output 'Y'): attribute '" + c.attr + "' is " +
                             std::to_string(c.value) + "; it must be positive";
    EXPECT_NE(m.status().message().find(want), std::string::npos) << m.status().message();
  }
  // The exact file the fuzzer wrote, through the CLI: exit 2 with the reason, no signal.
  const auto r = testing::run_cli("run " + std::string(INFERGAP_SOURCE_DIR) +
                                  "/fuzz/regressions/fuzz_onnx_model/maxpool_strides_0.onnx");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("maxpool_strides_0.onnx: MaxPool (output '1'): attribute 'strides' is 0"),
            std::string::npos)
      << r.err;
}

// fuzz_onnx_model: a Gemm whose first input is declared rank 0 made libonnx's shape inference
// dereference a missing dim (SIGSEGV). Inference now runs in a child process
// (model/shape_inference.h): the crash is an error naming the model and the signal.
TEST(FuzzRegression, ShapeInferenceCrashIsAnErrorNotTheEndOfTheProcess) {
  const std::string path =
      std::string(INFERGAP_SOURCE_DIR) + "/fuzz/regressions/fuzz_onnx_model/gemm_scalar_input.onnx";
  auto m = load_model(path);  // in this test process: it must survive
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("gemm_scalar_input.onnx: ONNX shape inference crashed on "
                                      "this model (Segmentation fault)"),
            std::string::npos)
      << m.status().message();
  const auto r = testing::run_cli("run " + path);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("shape inference crashed"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ig
