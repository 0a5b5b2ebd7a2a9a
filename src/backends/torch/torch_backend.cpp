#include "backends/torch/torch_backend.h"

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <dlfcn.h>

#include "backends/torch/torch_aten.h"
#include "backends/torch/torch_dtypes.h"
#include "backends/torch/torch_ops.h"

namespace ig {

namespace {

class TorchRun : public LibraryRun {
 public:
  TorchRun(const TorchBackend& backend, const Model& model, std::string suffix)
      : backend_(backend), model_(model), suffix_(std::move(suffix)) {}

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
};

}  // namespace

TorchBackend::TorchBackend(TorchOptions options)
    : LibraryBackend("torch", {"ATen", "ATen"}), options_(options) {}

Status TorchBackend::check_native(const Node& node, const Model& model) const {
  IG_RETURN_IF_ERROR(check_in_table(torchb::ops(), node, model));
  return torchb::check_kernel_dtypes(node, model);
}

std::unique_ptr<LibraryRun> TorchBackend::begin_run(const Model& model,
                                                    const std::map<std::string, Value>& feeds) {
  // Process-wide ATen switches: this worker runs this platform only, so set them per run.
  at::globalContext().setUserEnabledMkldnn(options_.mkldnn);
  at::globalContext().setDeterministicAlgorithms(options_.deterministic, false);
  at::set_num_threads(options_.threads);
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
