// The shared library executor with a toy library that keeps its outputs "on the device" (in its
// own map), as the cuda backend does: host copies only where needed, the reference fallback and
// data movement with their notes, fused groups. Runs without any accelerator.
#include <gtest/gtest.h>

#include <map>
#include <span>

#include "backends/library/library_backend.h"

namespace ig {
namespace {

struct ToyArgs {
  std::vector<Tensor> in;
};
using ToyRunFn = Tensor (*)(const ToyArgs& a);
using ToyOp = OpEntry<ToyRunFn>;

Tensor toy_relu(const ToyArgs& a) {
  Tensor y = a.in[0].clone();
  for (float& v : std::span(y.data<float>(), static_cast<size_t>(y.numel()))) v = v < 0 ? 0 : v;
  return y;
}

Tensor toy_add(const ToyArgs& a) {
  Tensor y = a.in[0].clone();
  for (int64_t i = 0; i < y.numel(); ++i) y.data<float>()[i] += a.in[1].data<float>()[i];
  return y;
}

Status only_two_inputs(const Node& node, const Model&) {
  if (node.inputs.size() == 2) return Status::Ok();
  return unsupported("{}: the toy adds two inputs", node.label());
}

const std::vector<ToyOp>& toy_ops() {
  static const std::vector<ToyOp> ops = {
      {"", "Relu", 1, kMaxOpset, toy_relu},
      {"", "Add", 1, kMaxOpset, toy_add, only_two_inputs},
  };
  return ops;
}

class ToyBackend;

// Outputs stay in `device`; `copies` counts the host copies the executor asks for.
class ToyRun : public LibraryRun {
 public:
  ToyRun(const ToyBackend& backend, const Model& model, NodeGroups groups, bool group_fails,
         std::vector<std::string>& copies)
      : backend_(backend),
        model_(model),
        groups_(std::move(groups)),
        group_fails_(group_fails),
        copies_(copies) {}

  Expected<NativeOutputs> run_node(const Node& node, RunValues& values) override;
  const NodeGroups& groups() const override { return groups_; }
  Expected<NativeOutputs> run_group(const NodeGroup& group, RunValues& values) override {
    if (group_fails_) return unsupported("the toy refuses this group");
    for (size_t n : group.nodes)
      IG_RETURN_IF_ERROR(run_node(model_.graph.nodes[n], values).status());
    return NativeOutputs{{}, "toy group"};
  }
  Expected<Value> to_host(const std::string& name) override {
    copies_.push_back(name);
    return Value::of(device_.at(name));
  }
  void ran_on_reference(const Node& node) override {
    for (const auto& out : node.outputs) device_.erase(out);
  }

 private:
  const ToyBackend& backend_;
  const Model& model_;
  NodeGroups groups_;
  bool group_fails_;
  std::vector<std::string>& copies_;
  std::map<std::string, Tensor> device_;
};

class ToyBackend : public LibraryBackend {
 public:
  explicit ToyBackend(bool fallback)
      : LibraryBackend("toy", {"Toy", "ToyLib"}), fallback_(fallback) {}
  bool fallback_ref() const override { return fallback_; }
  NodeGroups groups;
  bool group_fails = false;
  std::vector<std::string> copies;

 protected:
  Status check_native(const Node& node, const Model& model) const override {
    return check_in_table(toy_ops(), node, model);
  }
  std::unique_ptr<LibraryRun> begin_run(const Model& model,
                                        const std::map<std::string, Value>&) override {
    copies.clear();
    return std::make_unique<ToyRun>(*this, model, groups, group_fails, copies);
  }

 private:
  bool fallback_;
};

Expected<NativeOutputs> ToyRun::run_node(const Node& node, RunValues& values) {
  ToyArgs args;
  for (const auto& in : node.inputs) {
    if (auto it = device_.find(in); it != device_.end()) {
      args.in.push_back(it->second);
      continue;
    }
    IG_ASSIGN_OR_RETURN(const Tensor* t, values.input(node, in));
    args.in.push_back(*t);
  }
  IG_ASSIGN_OR_RETURN(const ToyOp* op, backend_.table_entry(toy_ops(), node, model_));
  device_[node.outputs[0]] = op->run(args);
  return NativeOutputs{{}, "toy " + node.op_type};
}

Node make_node(const std::string& op, const std::string& name, std::vector<std::string> in,
               std::string out, size_t index) {
  Node n;
  n.op_type = op;
  n.name = name;
  n.inputs = std::move(in);
  n.outputs = {std::move(out)};
  n.index = index;
  return n;
}

ValueInfo float4(const std::string& name) {
  ValueInfo vi;
  vi.name = name;
  vi.dtype = DType::kFloat32;
  vi.has_shape = true;
  vi.dims = {Dim{4, ""}};
  return vi;
}

// X -> Relu r -> Identity i; Add(r, i) a -> Softsign s (not in the toy) -> Relu Y.
Model toy_model() {
  Model m;
  m.path = "toy.onnx";
  m.opsets[""] = 13;
  m.graph.inputs = {float4("X")};
  m.graph.outputs = {float4("Y")};
  m.graph.nodes = {
      make_node("Relu", "relu", {"X"}, "r", 0), make_node("Identity", "id", {"r"}, "i", 1),
      make_node("Add", "add", {"r", "i"}, "a", 2), make_node("Softsign", "soft", {"a"}, "s", 3),
      make_node("Relu", "relu2", {"s"}, "Y", 4)};
  return m;
}

std::map<std::string, Tensor> feeds() {
  return {{"X", Tensor::from_vector<float>({-1.5f, 0.25f, 2.0f, -0.75f}, {4})}};
}

struct Traced {
  Status status;
  std::vector<Value> outputs;
  std::map<std::string, NodeReport> reports;  // by node name
};

Traced run(Backend& backend, const Model& model, bool trace) {
  Traced t;
  NodeCallback on_node;
  if (trace) {
    on_node = [&](const Node& n, const std::vector<Value>& outs, const NodeReport& r) {
      EXPECT_TRUE(outs.at(0).is_tensor()) << n.name;
      t.reports[n.name] = r;
    };
  }
  auto outs = backend.run(model, feeds(), on_node);
  if (!outs.ok()) t.status = outs.status();
  if (outs.ok()) t.outputs = std::move(*outs);
  return t;
}

TEST(LibraryExecutor, HostCopiesOnlyForReferenceNodesAndGraphOutputs) {
  const Model model = toy_model();
  ToyBackend toy(true);
  EXPECT_EQ(toy.name(), "toy+ref");
  Traced t = run(toy, model, false);
  ASSERT_TRUE(t.status.ok()) << t.status.to_string();
  // r for Identity (data movement), a for Softsign (fallback), Y as the graph output.
  EXPECT_EQ(toy.copies, (std::vector<std::string>{"r", "a", "Y"}));
  RefBackend ref;
  Traced r = run(ref, model, false);
  ASSERT_TRUE(r.status.ok());
  EXPECT_TRUE(t.outputs.at(0).tensor.bitwise_equal(r.outputs.at(0).tensor));
}

TEST(LibraryExecutor, TheTraceGetsEveryNodeWithItsNoteAndEachCopyIsMadeOnce) {
  ToyBackend toy(true);
  Traced t = run(toy, toy_model(), true);
  ASSERT_TRUE(t.status.ok()) << t.status.to_string();
  EXPECT_EQ(toy.copies, (std::vector<std::string>{"r", "a", "Y"}));
  EXPECT_EQ(t.reports["relu"].note, "toy Relu");
  EXPECT_EQ(t.reports["id"].note, "data movement (reference kernel)");
  EXPECT_EQ(t.reports["add"].note, "toy Add");
  EXPECT_EQ(t.reports["soft"].note.rfind("fallback=ref: Softsign 'soft': no ToyLib mapping for "
                                         "Softsign (mapped: Relu, Add; data movement: Identity",
                                         0),
            0u)
      << t.reports["soft"].note;
}

TEST(LibraryExecutor, WithoutFallbackTheReasonNamesTheLibraryAndWhatItMaps) {
  const Model model = toy_model();
  ToyBackend toy(false);
  EXPECT_EQ(toy.name(), "toy");
  Traced t = run(toy, model, false);
  ASSERT_FALSE(t.status.ok());
  EXPECT_EQ(t.status.code(), StatusCode::kUnsupported);
  EXPECT_EQ(t.status.message().rfind("toy.onnx: Softsign 'soft': no ToyLib mapping", 0), 0u)
      << t.status.message();
  EXPECT_FALSE(toy.supports(model.graph.nodes[3], model).ok());
  EXPECT_TRUE(toy.supports(model.graph.nodes[1], model).ok());  // data movement
  Node custom = model.graph.nodes[0];
  custom.domain = "com.example";
  EXPECT_EQ(toy.supports(custom, model).message(),
            "com.example.Relu 'relu': domain 'com.example' has no Toy mapping");
  Node three = model.graph.nodes[2];
  three.inputs.push_back("X");
  EXPECT_EQ(toy.supports(three, model).message(), "Add 'add': the toy adds two inputs");
}

TEST(LibraryExecutor, AGroupRunsAsOneAtItsLastNodeOrNodeByNodeWhenRefused) {
  Model model = toy_model();
  model.graph.nodes.erase(model.graph.nodes.begin() + 3);  // relu -> id, add -> relu2
  model.graph.nodes[3].inputs = {"a"};
  model.graph.nodes[3].index = 3;
  ToyBackend toy(true);
  toy.groups.groups = {NodeGroup{{2, 3}}};
  toy.groups.group_of = {-1, -1, 0, 0};
  Traced fused = run(toy, model, true);
  ASSERT_TRUE(fused.status.ok()) << fused.status.to_string();
  EXPECT_EQ(fused.reports.count("add"), 0u);
  EXPECT_EQ(fused.reports["relu2"].note, "fused: toy group");
  EXPECT_EQ(fused.reports["relu2"].covers, "add,relu2");
  toy.group_fails = true;
  Traced unfused = run(toy, model, true);
  ASSERT_TRUE(unfused.status.ok()) << unfused.status.to_string();
  EXPECT_EQ(unfused.reports["add"].note, "toy Add");
  EXPECT_EQ(unfused.reports["relu2"].note, "toy Relu");
  EXPECT_EQ(unfused.reports["relu2"].covers, "");
  EXPECT_TRUE(fused.outputs.at(0).tensor.bitwise_equal(unfused.outputs.at(0).tensor));
}

TEST(OpTable, OpsetRangesAndUnknownOperatorsAreExplained) {
  const std::vector<ToyOp> table = {{"", "Pad", 2, 10, toy_relu}, {"", "Pad", 11, 12, toy_relu}};
  auto none = [] { return unsupported("not here"); };
  auto found = find_op_entry(table, "", "Pad", 11, none);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ((*found)->since, 11);
  auto late = find_op_entry(table, "", "Pad", 13, none);
  EXPECT_EQ(late.status().message(),
            "Pad is implemented for opsets [2, 10], [11, 12] but the model uses opset 13");
  EXPECT_EQ(find_op_entry(table, "ai.x", "Pad", 11, none).status().message(), "not here");
  EXPECT_EQ(opset_mismatch("ai.x", "Op", {{3, kMaxOpset}}, 1).message(),
            "ai.x.Op is implemented for opsets [3, latest] but the model uses opset 1");
}

}  // namespace
}  // namespace ig
