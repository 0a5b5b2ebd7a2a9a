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
// Options for every kind: seed=S, shape=1x3x32x32 (fills symbolic dims), dtype=float (must agree
// with the model), inject=KIND@WHERE (repeatable) with KIND one of nan, inf, -inf, denormal,
// -denormal, zero, -zero, huge, -huge and WHERE a rate (0.01 or 1%) or flat positions (0/17/200),
// mask=N (zero the lowest N mantissa bits of every element, synth/mantissa_mask.h).
// A path ending in an image extension, or naming a folder, may drop the image: prefix.
#pragma once

#include <map>
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
  enum class Kind { kFile, kImage, kRandom };
  Kind kind = Kind::kRandom;
  std::string head;  // the path, or the distribution name
  std::map<std::string, std::string> options;
  std::vector<Injection> injections;
};
Expected<InputSource> parse_input_source(const std::string& text);

// What the model expects for one input.
struct InputTarget {
  std::string name;
  DType dtype = DType::kUndefined;
  bool has_shape = false;
  std::vector<Dim> dims;
  std::map<std::string, std::string> metadata;  // the model's metadata_props
  std::string model_label;                      // for messages
};
InputTarget input_target(const Model& model, const ValueInfo& info);

struct NamedInput {
  std::string name;
  std::string source;  // the recipe: a spec that recreates this tensor
  Tensor tensor;
  std::string hash;                   // xxh3 of the tensor (tensor_hash)
  std::vector<Injection> injections;  // exceptional values put into the tensor, as typed facts
};

// Materialises one source for one input; `default_seed` applies when the spec names none.
Expected<NamedInput> make_input(const InputSource& source, const InputTarget& target,
                                uint64_t default_seed);
// All runtime inputs of a model from NAME=SPEC strings; inputs without a spec get
// random:uniform with `seed` (uniform [0,1) as in the paper). Errors name the input and the model.
Expected<std::vector<NamedInput>> gather_inputs(const Model& model,
                                                const std::vector<std::string>& specs,
                                                uint64_t seed);
// One hash for a whole input set (names and tensor hashes, in name order).
std::string input_set_hash(const std::vector<NamedInput>& inputs);

// Parts, one file each.
Expected<Tensor> random_input(const InputSource& source, const InputTarget& target,
                              const Shape& shape, uint64_t seed, std::string& recipe);
Expected<Tensor> image_input(const InputSource& source, const InputTarget& target,
                             std::string& recipe);
Status apply_injections(const std::vector<Injection>& injections, uint64_t seed,
                        const std::string& label, Tensor& t);

// An error naming `what` and the valid keys when the source has an option outside `allowed`.
Status check_source_options(const InputSource& source, const std::set<std::string>& allowed,
                            const std::string& what);
// Whether a path names an image file by its extension (PNG, JPEG, BMP, TIFF, WebP).
bool is_image_path(const std::string& path);
// "1x3x32x32" <-> Shape.
Expected<Shape> parse_shape(const std::string& text);
std::string shape_string(const Shape& shape);

}  // namespace ig
