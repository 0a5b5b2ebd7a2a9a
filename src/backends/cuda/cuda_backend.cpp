#include "backends/cuda/cuda_backend.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <unordered_map>

#include "backends/cuda/cuda_ops.h"
#include "backends/single_node.h"
#include "core/strings.h"

namespace ig {

namespace {

using Values = std::unordered_map<std::string, Value>;

}  // namespace

Status CudaBackend::native_support(const Node& node, const Model& model) const {
  if (!node.domain.empty()) {
    return unsupported("{}: domain '{}' has no cuDNN mapping", node.label(), node.domain);
  }
  if (is_data_movement(node.op_type)) return ref_.supports(node, model);
  const cuda::OpDef* def = cuda::find_op(node.op_type);
  if (!def) {
    return unsupported("{}: no cuDNN/cuBLAS mapping for {} (mapped: {}; data movement: {})",
                       node.label(), node.op_type, join_names(cuda::op_names()),
                       data_movement_names());
  }
  return def->check(node, model.opset_for(node.domain));
}

Status CudaBackend::supports(const Node& node, const Model& model) const {
  Status native = native_support(node, model);
  if (native.ok() || !ctx_->opt().fallback_ref) return native;
  return ref_.supports(node, model).ok() ? Status::Ok() : native;
}

namespace {

class Executor {
 public:
  Executor(CudaBackend& backend, const Model& model, const NodeCallback& on_node)
      : backend_(backend), ctx_(backend.context()), model_(model), on_node_(on_node) {}

  Status run(Values& values) {
    size_t conv_count = 0;
    for (const auto& n : model_.graph.nodes) conv_count += n.op_type == "Conv";
    size_t conv_index = 0;
    for (const auto& node : model_.graph.nodes) {
      IG_RETURN_IF_ERROR(run_node(node, values, conv_index, conv_count));
      conv_index += node.op_type == "Conv";
    }
    return ctx_.sync();
  }
  const std::vector<std::string>& conv_algos() const { return conv_algos_; }

 private:
  Expected<cuda::OpResult> run_native(const Node& node, const Values& values, size_t conv_index,
                                      size_t conv_count) {
    cuda::OpArgs args{node, model_.opset_for(node.domain), {}, {}, conv_index, conv_count};
    for (const auto& in : node.inputs) {
      if (in.empty()) {
        args.host.push_back(nullptr);
        continue;
      }
      auto it = values.find(in);
      if (it == values.end())
        return invalid_argument("{}: input '{}' has no value", node.label(), in);
      if (!it->second.is_tensor())
        return unsupported("{}: input '{}' is not a tensor", node.label(), in);
      args.host.push_back(&it->second.tensor);
    }
    // Inputs go to the device once per run; outputs of earlier nodes are already there.
    args.device = [&](size_t i) -> Expected<cuda::DeviceTensor> {
      const std::string& name = node.inputs.at(i);
      auto it = device_.find(name);
      if (it != device_.end()) return it->second;
      IG_ASSIGN_OR_RETURN(cuda::DeviceTensor d, ctx_.upload(*args.host.at(i)));
      device_[name] = d;
      return d;
    };
    auto r = cuda::find_op(node.op_type)->run(ctx_, args);
    if (!r.ok() && r.status().message().rfind(node.label(), 0) != 0) {
      return Status(r.status().code(), node.label() + ": " + r.status().message());
    }
    return r;
  }

  void store(const Node& node, std::vector<Value> outs, Values& values, const NodeReport& report) {
    std::vector<Value> by_pos = outputs_by_position(node, std::move(outs));
    if (on_node_) on_node_(node, by_pos, report);
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (node.outputs[i].empty()) continue;
      device_.erase(node.outputs[i]);  // a name is produced once; stale copies never linger
      values[node.outputs[i]] = std::move(by_pos[i]);
    }
  }

  Status run_node(const Node& node, Values& values, size_t conv_index, size_t conv_count) {
    const bool fallback = ctx_.opt().fallback_ref;
    Status native = backend_.native_support(node, model_);
    if (native.ok() && !is_data_movement(node.op_type)) {
      auto r = run_native(node, values, conv_index, conv_count);
      if (r.ok()) {
        IG_ASSIGN_OR_RETURN(Tensor host, ctx_.download(r->out));
        if (node.op_type == "Conv") conv_algos_.push_back(r->note.substr(5, r->note.find(' ') - 5));
        store(node, {Value::of(std::move(host))}, values, {"", r->note});
        device_[node.outputs[0]] = r->out;
        return Status::Ok();
      }
      native = r.status();
      if (native.code() != StatusCode::kUnsupported || !fallback) return native;
    } else if (!native.ok() && !fallback) {
      return native;
    }
    IG_ASSIGN_OR_RETURN(auto outs, run_single_node(backend_.ref(), model_, node, values));
    if (node.op_type == "Conv") conv_algos_.push_back("ref");
    const std::string note =
        native.ok() ? "data movement (reference kernel)" : "fallback=ref: " + native.message();
    store(node, std::move(outs), values, {"", note});
    return Status::Ok();
  }

  CudaBackend& backend_;
  cuda::Context& ctx_;
  const Model& model_;
  const NodeCallback& on_node_;
  std::unordered_map<std::string, cuda::DeviceTensor> device_;
  std::vector<std::string> conv_algos_;  // the algorithm each Conv used, in node order
};

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

}  // namespace

Expected<std::vector<Value>> CudaBackend::run_values(const Model& model,
                                                     const std::map<std::string, Value>& feeds,
                                                     const NodeCallback& on_node) {
  IG_RETURN_IF_ERROR(check_feeds(model, feeds));
  Values values;
  for (const auto& [name, t] : model.graph.initializers) values[name] = Value::of(t);
  for (const auto& [name, v] : feeds) values[name] = v;
  Executor exec(*this, model, on_node);
  Status st = exec.run(values);
  if (!st.ok()) return st.with_context(model.path);
  log_algorithms(model, exec.conv_algos());
  std::vector<Value> results;
  for (const auto& out : model.graph.outputs) {
    auto it = values.find(out.name);
    if (it == values.end())
      return invalid_argument("graph output '{}' is never produced", out.name);
    results.push_back(it->second);
  }
  return results;
}

}  // namespace ig
