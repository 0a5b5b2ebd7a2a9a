// Test helper: small ONNX models built with the protobuf API, written to a temp folder.
#pragma once

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <string>

#include "model/onnx_model.h"

namespace ig::testing {

inline void add_tensor_value(onnx::ValueInfoProto* vi, const std::string& name, int elem_type,
                             std::initializer_list<int64_t> dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem_type);
  auto* shape = tt->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

// A tensor value of `rank` symbolic dims ("d0", "d1", ...): a shape the checker accepts that says
// nothing about sizes.
inline void add_symbolic_value(onnx::ValueInfoProto* vi, const std::string& name, int elem_type,
                               int rank) {
  add_tensor_value(vi, name, elem_type, {});
  auto* shape = vi->mutable_type()->mutable_tensor_type()->mutable_shape();
  for (int i = 0; i < rank; ++i) shape->add_dim()->set_dim_param("d" + std::to_string(i));
}

// An empty ir_version 8, opset 13 model whose graph is called `graph_name`.
inline onnx::ModelProto empty_model(const std::string& graph_name) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("infergap-tests");
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(13);
  m.mutable_graph()->set_name(graph_name);
  return m;
}

// X float[2] -> Relu -> Y float[2], opset 13.
inline onnx::ModelProto relu_model() {
  onnx::ModelProto m = empty_model("relu");
  auto* g = m.mutable_graph();
  add_tensor_value(g->add_input(), "X", onnx::TensorProto::FLOAT, {2});
  add_tensor_value(g->add_output(), "Y", onnx::TensorProto::FLOAT, {2});
  auto* n = g->add_node();
  n->set_op_type("Relu");
  n->set_name("relu0");
  n->add_input("X");
  n->add_output("Y");
  return m;
}

// relu_model() with its node turned into com.example's Frobnicate: an operator no platform runs.
inline onnx::ModelProto custom_op_model() {
  onnx::ModelProto m = relu_model();
  auto* os = m.add_opset_import();
  os->set_domain("com.example");
  os->set_version(1);
  m.mutable_graph()->mutable_node(0)->set_op_type("Frobnicate");
  m.mutable_graph()->mutable_node(0)->set_domain("com.example");
  return m;
}

// A fresh, empty folder under the system temp dir, removed by the destructor.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("infergap-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + std::to_string(reinterpret_cast<uintptr_t>(this)));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

}  // namespace ig::testing
