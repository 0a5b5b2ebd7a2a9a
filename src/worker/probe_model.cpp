// The probe model and the host fingerprint (see probe.h).
#include <onnx/onnx_pb.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "model/onnx_model.h"
#include "tensor/hash.h"
#include "worker/probe.h"

namespace ig {

namespace {

// Values in [-1, 1) from a fixed LCG: nonzero, mixed signs, so every backend does real work.
std::vector<float> fixed_values(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return v;
}

void add_value(onnx::ValueInfoProto* vi, const std::string& name, std::vector<int64_t> dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

void add_initializer(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims,
                     uint32_t seed) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  size_t n = 1;
  for (int64_t d : dims) {
    t->add_dims(d);
    n *= static_cast<size_t>(d);
  }
  for (float x : fixed_values(n, seed)) t->add_float_data(x * 0.5f);
}

void add_conv(onnx::GraphProto* g, const std::string& name, const std::string& in,
              const std::string& w, const std::string& b, const std::string& out) {
  auto* n = g->add_node();
  n->set_op_type("Conv");
  n->set_name(name);
  for (const auto& s : {in, w, b}) n->add_input(s);
  n->add_output(out);
  auto* pads = n->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
}

}  // namespace

Status write_probe_model(const std::string& path) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("infergap-probe");
  auto* os = m.add_opset_import();
  os->set_domain("");
  os->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("probe");
  add_value(g->add_input(), "x", {1, 4, 8, 8});
  add_value(g->add_output(), "y", {1, 4, 8, 8});
  add_initializer(g, "w1", {8, 4, 3, 3}, 1);
  add_initializer(g, "b1", {8}, 2);
  add_initializer(g, "w2", {4, 8, 3, 3}, 3);
  add_initializer(g, "b2", {4}, 4);
  add_conv(g, "conv1", "x", "w1", "b1", "c1");
  auto* relu = g->add_node();
  relu->set_op_type("Relu");
  relu->set_name("relu1");
  relu->add_input("c1");
  relu->add_output("r1");
  add_conv(g, "conv2", "r1", "w2", "b2", "y");
  return save_model_proto(m, path);
}

std::map<std::string, Tensor> probe_inputs() {
  return {{"x", Tensor::from_vector<float>(fixed_values(4 * 8 * 8, 5), {1, 4, 8, 8})}};
}

std::string host_fingerprint() {
  std::string id;
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  // The first processor's identity; flags decide which instruction sets can run.
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("processor", 0) == 0 && !id.empty()) break;
    for (const char* key : {"vendor_id", "model name", "cpu family", "model\t", "flags"})
      if (line.rfind(key, 0) == 0) id += line + "\n";
  }
  utsname u{};
  if (::uname(&u) == 0) id += std::string(u.machine) + " " + u.release + "\n";
  id += "cpus " + std::to_string(::sysconf(_SC_NPROCESSORS_ONLN));
  auto t = Tensor::from_strings({id}, {1});
  return hash_hex(tensor_hash(t));
}

}  // namespace ig
