// A small ONNX graph builder for the model zoo: layers as one call each, weights seeded per
// initializer name (so a layer's weights do not depend on the layers built before it), output as
// an onnx::ModelProto that passes the ONNX checker.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "core/status.h"
#include "inputs/rng.h"
#include "tensor/tensor.h"

namespace ig {

enum class Activation { kRelu, kRelu6, kSigmoid, kTanh, kGelu };
enum class PoolKind { kMax, kAvg };

const char* activation_name(Activation a);
Expected<Activation> parse_activation(const std::string& text);
const char* pool_name(PoolKind p);
Expected<PoolKind> parse_pool(const std::string& text);

// How weights are drawn. He: normal(0, sqrt(2 / fan_in)); Glorot: uniform(+-sqrt(6 / (fan_in +
// fan_out))) as Keras' glorot_uniform; Gaussian: normal(mu, sigma) as in the paper's Section 3.5.
struct WeightInit {
  enum class Kind { kHe, kGlorot, kGaussian };
  Kind kind = Kind::kHe;
  double mu = 0;
  double sigma = 1;
  std::string to_string() const;
};
Expected<WeightInit> parse_weight_init(const std::string& text);

using AttrValue =
    std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>>;
using Attrs = std::map<std::string, AttrValue>;

class GraphBuilder {
 public:
  // `dtype` is the element type of inputs, weights and outputs (float, float16 or double).
  GraphBuilder(std::string graph_name, DType dtype, uint64_t seed, WeightInit init);

  DType dtype() const { return dtype_; }
  // Graph input with a symbolic batch dimension "N" in front of `dims`.
  std::string input(const std::string& name, const std::vector<int64_t>& dims);
  void output(const std::string& value, const std::string& name, const std::vector<int64_t>& dims);
  void metadata(const std::string& key, const std::string& value);

  // One node with one output; returns the output's name (derived from `hint`, made unique).
  std::string node(const std::string& op, const std::vector<std::string>& inputs,
                   const std::string& hint, const Attrs& attrs = {});

  // Initializers. `weight` follows the WeightInit; the others are seeded uniform, for biases,
  // normalisation parameters and running statistics.
  std::string weight(const std::string& hint, const Shape& shape, int64_t fan_in, int64_t fan_out);
  std::string uniform(const std::string& hint, const Shape& shape, double lo, double hi);
  std::string constant(const std::string& hint, const Tensor& value);
  std::string scalar(const std::string& hint, double value);  // of the model's dtype
  std::string int64s(const std::string& hint, const std::vector<int64_t>& values);

  // Layers (NCHW). Biases follow PyTorch's default, uniform(+-1 / sqrt(fan_in)).
  std::string conv(const std::string& x, int64_t cin, int64_t cout, int64_t kernel, int64_t stride,
                   int64_t pad, int64_t groups = 1, bool bias = true);
  // Inference batch norm with seeded non-trivial scale, shift, running mean and variance;
  // `var_scale` scales the running variance (and the mean by its root) for inputs whose variance
  // is known to be larger, as in a residual stream that grows block by block.
  std::string batch_norm(const std::string& x, int64_t channels, double var_scale = 1.0);
  std::string activation(const std::string& x, Activation a);
  std::string pool(const std::string& x, PoolKind kind, int64_t kernel, int64_t stride,
                   int64_t pad = 0);
  std::string global_avg_pool(const std::string& x);
  std::string flatten(const std::string& x);
  std::string dense(const std::string& x, int64_t in, int64_t out);   // Gemm, rank 2
  std::string linear(const std::string& x, int64_t in, int64_t out);  // MatMul + Add
  std::string layer_norm(const std::string& x, int64_t features);     // last axis
  std::string add(const std::string& a, const std::string& b);
  std::string mul(const std::string& a, const std::string& b);
  std::string matmul(const std::string& a, const std::string& b);
  std::string softmax(const std::string& x, int64_t axis = -1);
  std::string reshape(const std::string& x, const std::vector<int64_t>& shape);
  std::string transpose(const std::string& x, const std::vector<int64_t>& perm);
  // Gelu (exact, erf form) from Erf, Mul and Add: opset 17 has no Gelu operator.
  std::string gelu(const std::string& x);

  // The finished model: ir_version 8, opset 17, deterministic bytes for the same calls.
  onnx::ModelProto finish();

 private:
  std::string unique(const std::string& hint);
  std::string add_initializer(const std::string& hint, const Shape& shape,
                              const std::vector<double>& values);
  // An initializer of `shape` whose values `draw(rng)` produces, with the rng seeded from the
  // initializer's final name (so a layer's weights do not depend on the layers built before it).
  std::string seeded_initializer(const std::string& hint, const Shape& shape,
                                 const std::function<double(Rng&)>& draw);

  onnx::ModelProto model_;
  onnx::GraphProto* graph_;
  DType dtype_;
  uint64_t seed_;
  WeightInit init_;
  std::map<std::string, int> name_counts_;
};

}  // namespace ig
