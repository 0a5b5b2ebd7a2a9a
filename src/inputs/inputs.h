// Input sources for run, study and campaign: .npy/.pb files, images (PNG/JPEG files or folders)
// with preprocessing presets, seeded random distributions, and exceptional values injected at
// chosen positions or rates. Every input carries a recipe string that recreates it and a content
// hash.
//
// Spec syntax (what follows NAME= in --input):
//   file.npy | file.pb | file:PATH                  a tensor file
//   image:PATH[,preset=imagenet|cifar|none][,index=K][,limit=N]
//                                                    an image file or a folder of images (sorted;
//                                                    a folder becomes a batch)
//   random:uniform[,lo=A,hi=B] | random:normal[,mean=M,std=S] | random:model
//                                                    seeded values; `model` uses the range the
//                                                    model declares (metadata
//                                                    infergap.input.X.range)
//   value:V                                          one value in the model's dtype: a scalar, or
//                                                    every element of the input's shape
// Options for every kind: seed=S, shape=1x3x32x32 (fills symbolic dims, as --shape does),
// dtype=float (must agree with the model), inject=KIND@WHERE (repeatable) with KIND one of nan,
// inf, -inf, denormal, -denormal, zero, -zero, huge, -huge and WHERE a rate (0.01 or 1%) or flat
// positions (0/17/200), mask=N (zero the lowest N mantissa bits of every element,
// synth/mantissa_mask.h). A path ending in an image extension, or naming a folder, may drop the
// image: prefix.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/graph.h"

namespace ig {

struct Injection {
  enum class Kind {
    kNan,
    kInf,
    kNegInf,
    kDenormal,
    kNegDenormal,
    kZero,
    kNegZero,
    kHuge,
    kNegHuge
  };
  Kind kind = Kind::kNan;
  double rate = 0;                 // fraction of elements, when positions is empty
  std::vector<int64_t> positions;  // flat element indices
  std::string to_string() const;   // "nan@0.01", "-inf@0/5"
};
// "nan", "-inf", "denormal", ... as specs spell them.
const char* injection_kind_name(Injection::Kind kind);
Expected<Injection> parse_injection(const std::string& text);

struct InputSource {
  enum class Kind { kFile, kImage, kRandom, kValue };
  Kind kind = Kind::kRandom;
  std::string head;  // the path, the distribution name, or the value's text
  std::map<std::string, std::string> options;
  std::vector<Injection> injections;
};
Expected<InputSource> parse_input_source(const std::string& text);

// A dim the model leaves open (a symbol, or no name at all) that neither --shape nor --dim sized:
// generated inputs use 1 there, and the run says so (a model that needs more then fails loudly
// instead of quietly computing something else).
struct DefaultedDim {
  std::string input;
  size_t index = 0;
  std::string symbol;  // "" for an unnamed dim
  int64_t value = 1;
  // "input 'x' dim 2 (H) is not fixed by the model: using 1 (set it with --dim H=N or --shape
  // x=...)"
  std::string describe() const;
};

// --shape NAME=1x3x640x640 (a whole input shape) and --dim SYMBOL=640 (every input dim of that
// name), parsed; they size the dims a model leaves open.
struct InputSizing {
  std::map<std::string, Shape> shapes;  // input name -> shape
  std::map<std::string, int64_t> dims;  // symbol -> size
};
// Errors name the flag and what is wrong with it (malformed dims, a name given twice).
Expected<InputSizing> parse_input_sizing(const std::vector<std::string>& shape_flags,
                                         const std::vector<std::string>& dim_flags);

// What the model expects for one input.
struct InputTarget {
  std::string name;
  DType dtype = DType::kUndefined;
  bool has_shape = false;
  std::vector<Dim> dims;
  std::map<std::string, std::string> metadata;  // the model's metadata_props
  std::string model_label;                      // for messages
  // The shape generated inputs take: the declared dims, open ones sized by --shape / --dim or else
  // 1 (listed in `defaulted`); the --shape when the model declares none; unset otherwise.
  std::optional<Shape> shape;
  bool shape_given = false;  // --shape named this input
  std::vector<DefaultedDim> defaulted;
};
// The target with no --shape or --dim: open dims are 1.
InputTarget input_target(const Model& model, const ValueInfo& info);
// The target sized by --shape / --dim. Errors: a --shape whose rank or fixed dims contradict the
// model, a --shape that disagrees with a --dim on a symbol.
Expected<InputTarget> sized_input_target(const Model& model, const ValueInfo& info,
                                         const InputSizing& sizing);

struct NamedInput {
  std::string name;
  std::string source;  // the recipe: a spec that recreates this tensor
  Tensor tensor;
  std::string hash;                     // xxh3 of the tensor (tensor_hash)
  std::vector<Injection> injections;    // exceptional values put into the tensor, as typed facts
  std::vector<DefaultedDim> defaulted;  // open dims this generated tensor filled with 1
};

// Everything a user says about a model's inputs (the --input, --shape, --dim and --seed flags of
// run, study and campaign).
struct InputRequest {
  std::vector<std::string> specs;   // NAME=SPEC
  std::vector<std::string> shapes;  // NAME=1x3x640x640
  std::vector<std::string> dims;    // SYMBOL=640
  uint64_t seed = 0;                // for inputs without a spec, and specs without seed=
  // The `infergap run` flags that recreate these inputs, shell-quoted, each with a leading space.
  std::string flags() const;
};

struct GatheredInputs {
  std::vector<NamedInput> inputs;
  // --shape inputs and --dim symbols that named nothing in this model. A study of several models
  // applies each where it fits; one that fits no model is an error (sizing_fits_nothing).
  std::set<std::string> unused_shapes, unused_dims;
  // The model's input names and dim symbols, for that error.
  std::vector<std::string> input_names, symbols;
};

// Materialises one source for one input; `default_seed` applies when the spec names none.
Expected<NamedInput> make_input(const InputSource& source, const InputTarget& target,
                                uint64_t default_seed);
// All runtime inputs of a model from NAME=SPEC strings; inputs without a spec get
// random:uniform with `seed` (uniform [0,1) as in the paper). Errors name the input and the model.
Expected<std::vector<NamedInput>> gather_inputs(const Model& model,
                                                const std::vector<std::string>& specs,
                                                uint64_t seed);
// The same with --shape and --dim applied where they fit the model.
Expected<GatheredInputs> gather_inputs(const Model& model, const InputRequest& request);
// The error for --shape / --dim flags that fit none of the models (`gathered`, one per model), or
// Ok. `label` names the models ("m.onnx", or "any of the 3 models").
Status sizing_fits_nothing(const InputRequest& request,
                           const std::vector<const GatheredInputs*>& gathered,
                           const std::string& label);
// One hash for a whole input set (names and tensor hashes, in name order).
std::string input_set_hash(const std::vector<NamedInput>& inputs);

// Parts, one file each.
Expected<Tensor> random_input(const InputSource& source, const InputTarget& target,
                              const Shape& shape, uint64_t seed, std::string& recipe);
Expected<Tensor> image_input(const InputSource& source, const InputTarget& target,
                             std::string& recipe);
Status apply_injections(const std::vector<Injection>& injections, uint64_t seed,
                        const std::string& label, Tensor& t);
// Sets target.shape from its declared dims: open ones take their symbol's size from `symbols`, or
// 1 (listed in target.defaulted).
void size_open_dims(InputTarget& target, const std::map<std::string, int64_t>& symbols);
// An error naming `what` (the flag or option that gave `shape`) when `shape` contradicts the
// target's declared rank or fixed dims.
Status check_declared_shape(const InputTarget& target, const Shape& shape, const std::string& what);
// value:V filled into `shape` in the target's dtype; errors say why V does not fit that dtype.
Expected<Tensor> literal_input(const InputSource& source, const InputTarget& target,
                               const Shape& shape, std::string& recipe);

// An error naming `what` and the valid keys when the source has an option outside `allowed`.
Status check_source_options(const InputSource& source, const std::set<std::string>& allowed,
                            const std::string& what);
// Whether a path names an image file by its extension (PNG, JPEG, BMP, TIFF, WebP).
bool is_image_path(const std::string& path);
// "1x3x32x32" <-> Shape; "" is a scalar. Errors name the part that is not a dim.
Expected<Shape> parse_shape(const std::string& text);
std::string shape_string(const Shape& shape);

}  // namespace ig
