#include "backends/torch/torch_backend.h"

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <dlfcn.h>
#include <torch/version.h>

#include <algorithm>
#include <optional>

#include "backends/torch/torch_aten.h"
#include "backends/torch/torch_dtypes.h"
#include "backends/torch/torch_int8.h"
#include "backends/torch/torch_ops.h"

namespace ig {

namespace {

class TorchRun : public LibraryRun {
 public:
  TorchRun(const TorchBackend& backend, const Model& model, std::string suffix)
      : backend_(backend), model_(model), suffix_(std::move(suffix)) {
    if (backend.quantized()) {
      auto native = [&](const Node& n) { return backend.native_support(n, model).ok(); };
      plan_ = torchb::plan_int8(model, native);
    }
  }

  const NodeGroups& groups() const override { return plan_.groups; }

  Expected<NativeOutputs> run_group(const NodeGroup& group, RunValues& values) override {
    auto it = plan_.qdq.find(group.nodes.back());
    if (it == plan_.qdq.end()) return internal_error("torch: group is not an int8 group");
    // A DequantizeLinear outside the group has run, and the executor may have released its
    // scale and zero point: those come from the model's initializers then.
    auto lookup = [&, init = initializers_of(model_)](const std::string& name) -> const Tensor* {
      auto v = values.host(name);
      return v.ok() && *v && (*v)->is_tensor() ? &(*v)->tensor : init(name);
    };
    try {
      IG_ASSIGN_OR_RETURN(torchb::OpResult r, torchb::run_int8_group(model_, it->second, lookup));
      auto t = torchb::from_aten(r.outs[0]);
      if (!t.ok()) return internal_error("torch: {}", t.status().message());
      return NativeOutputs{{Value::of(std::move(*t))}, r.kernel};
    } catch (const c10::Error& e) {
      return unsupported("{}: PyTorch's quantized kernel: {}",
                         model_.graph.nodes[it->second.head].label(), e.what_without_backtrace());
    }
  }

  Expected<NativeOutputs> run_node(const Node& node, RunValues& values) override {
    torchb::OpInputs x{node, model_.opset_for(node.domain), {}};
    IG_ASSIGN_OR_RETURN(auto inputs, values.inputs(node));
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i]) {
        x.in.emplace_back();
        continue;
      }
      auto a = torchb::to_aten(*inputs[i]);
      if (!a.ok()) {
        return unsupported("{}: input '{}': {}", node.label(), node.inputs[i],
                           a.status().message());
      }
      x.in.push_back(std::move(*a));
    }
    IG_ASSIGN_OR_RETURN(const torchb::OpDef* def,
                        backend_.table_entry(torchb::ops(), node, model_));
    try {
      IG_ASSIGN_OR_RETURN(torchb::OpResult r, def->run(x));
      NativeOutputs out;
      for (size_t i = 0; i < r.outs.size(); ++i) {
        auto t = torchb::from_aten(r.outs[i]);
        if (!t.ok()) return internal_error("{}: {}", node.label(), t.status().message());
        out.host.push_back(Value::of(std::move(*t)));
      }
      out.note = r.kernel + suffix_;
      return out;
    } catch (const c10::Error& e) {
      // A kernel this libtorch lacks for the dtype: unsupported, so fallback=ref can take it.
      if (auto missing = torchb::missing_kernel(node, e.what_without_backtrace())) return *missing;
      // ATen's own argument checks (shapes, dtypes): the node's inputs do not fit the call.
      return invalid_argument("{}: ATen: {}", node.label(), e.what_without_backtrace());
    }
  }

 private:
  const TorchBackend& backend_;
  const Model& model_;
  std::string suffix_;
  torchb::Int8Plan plan_;
};

std::optional<at::QEngine> qengine_of(const std::string& name) {
  if (name == "qnnpack") return at::QEngine::QNNPACK;
  if (name == "fbgemm") return at::QEngine::FBGEMM;
  if (name == "onednn") return at::QEngine::ONEDNN;
  return std::nullopt;
}

}  // namespace

// The headers this module was compiled against are the libtorch it is linked with and loads.
LibraryVersion TorchBackend::library() const { return {"libtorch", TORCH_VERSION}; }

TorchBackend::TorchBackend(TorchOptions options)
    : LibraryBackend("torch", {"ATen", "ATen"}), options_(std::move(options)) {
  if (!quantized()) return;
  // A build has the engines it was compiled with (Debian's 1.13: qnnpack and onednn, no fbgemm).
  const auto engine = qengine_of(options_.qengine);
  const auto& have = at::globalContext().supportedQEngines();
  if (!engine || std::find(have.begin(), have.end(), *engine) == have.end()) {
    std::string names;
    for (auto e : have) {
      if (e == at::QEngine::NoQEngine) continue;
      names += (names.empty() ? "" : ", ") + c10::toString(e);
    }
    throw std::runtime_error("qengine=" + options_.qengine +
                             " is not in this libtorch (it has: " + names + ")");
  }
}

Status TorchBackend::check_native(const Node& node, const Model& model) const {
  // With a qengine, a QDQ node inside an int8 group is the group's to run.
  if (quantized() && (node.op_type == "DequantizeLinear" || node.op_type == "QuantizeLinear") &&
      groups_.in_group(
          node, model, [&](const Node& n) { return native_support(n, model).ok(); },
          torchb::check_int8_group))
    return Status::Ok();
  IG_RETURN_IF_ERROR(check_in_table(torchb::ops(), node, model));
  IG_RETURN_IF_ERROR(torchb::check_kernel_dtypes(node, model));
  // With a qengine, a Conv/Gemm/MatMul reading DequantizeLinear outputs is a quantized operator
  // or nothing: running it in fp32 would hide that PyTorch's quantized kernels cannot take it.
  const bool main =
      node.index < model.graph.nodes.size() && &model.graph.nodes[node.index] == &node;
  if (!quantized() || !main) return Status::Ok();
  const auto grp = find_library_qdq_group(model, node.index);
  if (!grp) return Status::Ok();
  if (Status st = torchb::check_int8_group(model, *grp, initializers_of(model)); !st.ok()) {
    return unsupported("{}: QDQ group is not a PyTorch quantized operator: {}", node.label(),
                       st.message());
  }
  return Status::Ok();
}

std::unique_ptr<LibraryRun> TorchBackend::begin_run(const Model& model,
                                                    const std::map<std::string, Value>& feeds) {
  // Process-wide ATen switches: this worker runs this platform only, so set them per run.
  at::globalContext().setUserEnabledMkldnn(options_.mkldnn);
  at::globalContext().setDeterministicAlgorithms(options_.deterministic, false);
  at::set_num_threads(options_.threads);
  if (quantized()) at::globalContext().setQEngine(*qengine_of(options_.qengine));
  // ATen's native conv and matmul call the system BLAS, which keeps its own thread count (set
  // from OMP_NUM_THREADS when it loads); OpenBLAS splits sums by it, so it follows `threads` too.
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    set(options_.threads);
  }
  const std::string suffix = options_.mkldnn ? "" : " (mkldnn off)";
  return std::make_unique<TorchRun>(*this, model, suffix);
}

}  // namespace ig
