#include "backends/cuda/cuda_backend.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <unordered_map>

#include "backends/cuda/cuda_ops.h"

namespace ig {

namespace {

// $INFERGAP_CUDA_ALGO_LOG names a file that gets one line per run: the model and the sequence of
// convolution algorithms, so that autotuning's choices across fresh workers can be counted
// (scripts/gpu-check). One write() with O_APPEND keeps lines whole across processes.
void log_algorithms(const Model& model, const std::vector<std::string>& algos) {
  const char* path = std::getenv("INFERGAP_CUDA_ALGO_LOG");
  if (!path || !*path) return;
  std::string line = model.path + "\t";
  for (size_t i = 0; i < algos.size(); ++i) line += (i ? "/" : "") + algos[i];
  line += "\n";
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  (void)!::write(fd, line.data(), line.size());
  ::close(fd);
}

// One run: values produced here stay in `device_` until the executor asks for a host copy.
class CudaRun : public LibraryRun {
 public:
  CudaRun(cuda::Context& ctx, const CudaBackend& backend, const Model& model)
      : ctx_(ctx), backend_(backend), model_(model) {
    for (const auto& n : model.graph.nodes) {
      if (n.op_type == "Conv") conv_index_.emplace(&n, conv_index_.size());
    }
  }

  Expected<NativeOutputs> run_node(const Node& node, RunValues& values) override {
    auto r = run_native(node, values);
    if (!r.ok()) {
      if (r.status().message().rfind(node.label(), 0) == 0) return r.status();
      return Status(r.status().code(), node.label() + ": " + r.status().message());
    }
    if (node.op_type == "Conv") conv_algos_.push_back(r->algorithm);
    device_[node.outputs[0]] = r->out;
    return NativeOutputs{{}, r->note};
  }

  Expected<Value> to_host(const std::string& name) override {
    auto it = device_.find(name);
    if (it == device_.end()) return internal_error("'{}' is not on the device", name);
    IG_ASSIGN_OR_RETURN(Tensor host, ctx_.download(it->second));
    return Value::of(std::move(host));
  }

  void ran_on_reference(const Node& node) override {
    if (node.op_type == "Conv") conv_algos_.push_back("ref");
    // Its outputs are on the host now: an older device copy under the same name must not be read.
    for (const auto& out : node.outputs) device_.erase(out);
  }

  Status finish(Status st) override {
    IG_RETURN_IF_ERROR(st);
    IG_RETURN_IF_ERROR(ctx_.sync());
    log_algorithms(model_, conv_algos_);
    return Status::Ok();
  }

 private:
  Expected<cuda::OpResult> run_native(const Node& node, RunValues& values) {
    const auto conv = conv_index_.find(&node);
    cuda::OpArgs args{node,
                      model_.opset_for(node.domain),
                      {},
                      {},
                      {},
                      conv == conv_index_.end() ? 0 : conv->second,
                      conv_index_.size()};
    for (const auto& in : node.inputs) {
      if (in.empty()) {
        args.inputs.emplace_back();
      } else if (auto d = device_.find(in); d != device_.end()) {
        args.inputs.emplace_back(cuda::TensorInfo(DType::kFloat32, d->second.shape));
      } else {
        IG_ASSIGN_OR_RETURN(const Tensor* t, values.input(node, in));
        args.inputs.emplace_back(cuda::TensorInfo(t->dtype(), t->shape()));
      }
    }
    // Inputs go to the device once per run; outputs of earlier nodes are already there.
    args.device = [&](size_t i) -> Expected<cuda::DeviceTensor> {
      const std::string& name = node.inputs.at(i);
      if (auto it = device_.find(name); it != device_.end()) return it->second;
      IG_ASSIGN_OR_RETURN(const Tensor* t, values.input(node, name));
      IG_ASSIGN_OR_RETURN(cuda::DeviceTensor d, ctx_.upload(*t));
      device_[name] = d;
      return d;
    };
    args.host = [&](size_t i) { return values.input(node, node.inputs.at(i)); };
    IG_ASSIGN_OR_RETURN(const cuda::OpDef* def, backend_.table_entry(cuda::ops(), node, model_));
    return def->run(ctx_, args);
  }

  cuda::Context& ctx_;
  const CudaBackend& backend_;
  const Model& model_;
  std::unordered_map<const Node*, size_t> conv_index_;  // position among the graph's Conv nodes
  std::unordered_map<std::string, cuda::DeviceTensor> device_;
  std::vector<std::string> conv_algos_;  // the algorithm each Conv used, in node order
};

}  // namespace

Status CudaBackend::check_native(const Node& node, const Model& model) const {
  return check_in_table(cuda::ops(), node, model);
}

std::unique_ptr<LibraryRun> CudaBackend::begin_run(const Model& model,
                                                   const std::map<std::string, Value>&) {
  return std::make_unique<CudaRun>(*ctx_, *this, model);
}

}  // namespace ig
