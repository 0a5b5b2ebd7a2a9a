// --shape and --dim: open dims get the sizes users give, contradictions are errors naming the input
// and the dim, and every dim left at its default is reported.
#include <gtest/gtest.h>

#include "inputs/inputs.h"

#include "../support/onnx_builder.h"
#include "model/npy.h"

namespace ig {
namespace {

ValueInfo value(const std::string& name, DType dtype, std::vector<Dim> dims) {
  ValueInfo v;
  v.name = name;
  v.dtype = dtype;
  v.has_shape = true;
  v.dims = std::move(dims);
  return v;
}

// x: float[N,3,H,W], mask: bool[N,H,W], scale: float[?] (an unnamed open dim).
Model detector() {
  Model m;
  m.path = "det.onnx";
  m.opsets[""] = 13;
  m.graph.inputs.push_back(value("x", DType::kFloat32, {{-1, "N"}, {3, ""}, {-1, "H"}, {-1, "W"}}));
  m.graph.inputs.push_back(value("mask", DType::kBool, {{-1, "N"}, {-1, "H"}, {-1, "W"}}));
  m.graph.inputs.push_back(value("scale", DType::kFloat32, {{-1, ""}}));
  return m;
}

Expected<InputTarget> target(const Model& m, size_t input, const std::vector<std::string>& shapes,
                             const std::vector<std::string>& dims) {
  IG_ASSIGN_OR_RETURN(InputSizing sizing, parse_input_sizing(shapes, dims));
  return sized_input_target(m, m.graph.inputs[input], sizing);
}

std::string error_of(const Status& st) { return st.ok() ? "ok" : st.message(); }

TEST(InputSizing, OpenDimsDefaultToOneAndAreListedByIndexAndSymbol) {
  const Model m = detector();
  auto t = target(m, 0, {}, {});
  ASSERT_TRUE(t.ok()) << t.status().to_string();
  EXPECT_EQ(*t->shape, (Shape{1, 3, 1, 1}));
  ASSERT_EQ(t->defaulted.size(), 3u);
  EXPECT_EQ(t->defaulted[0].index, 0u);
  EXPECT_EQ(t->defaulted[0].symbol, "N");
  EXPECT_EQ(t->defaulted[2].index, 3u);
  EXPECT_EQ(t->defaulted[2].symbol, "W");
  EXPECT_EQ(t->defaulted[1].describe(),
            "input 'x' dim 2 (H) is not fixed by the model: using 1 (set it with --dim H=SIZE or "
            "--shape x=...)");
  auto scale = target(m, 2, {}, {});
  ASSERT_TRUE(scale.ok());
  EXPECT_EQ(scale->defaulted[0].describe(),
            "input 'scale' dim 0 is not fixed by the model: using 1 (set it with --shape "
            "scale=...)");
}

TEST(InputSizing, DimSizesEverySymbolOfThatNameAndShapeSizesSharedSymbols) {
  const Model m = detector();
  auto x = target(m, 0, {}, {"H=640", "W=480"});
  ASSERT_TRUE(x.ok()) << x.status().to_string();
  EXPECT_EQ(*x->shape, (Shape{1, 3, 640, 480}));
  ASSERT_EQ(x->defaulted.size(), 1u);
  EXPECT_EQ(x->defaulted[0].symbol, "N");
  // --shape x sizes N, H and W, so the mask that shares them follows.
  auto mask = target(m, 1, {"x=2x3x64x32"}, {});
  ASSERT_TRUE(mask.ok()) << mask.status().to_string();
  EXPECT_EQ(*mask->shape, (Shape{2, 64, 32}));
  EXPECT_TRUE(mask->defaulted.empty());
  auto whole = target(m, 0, {"x=2x3x64x32"}, {});
  ASSERT_TRUE(whole.ok());
  EXPECT_TRUE(whole->shape_given);
  EXPECT_EQ(*whole->shape, (Shape{2, 3, 64, 32}));
}

TEST(InputSizing, ContradictionsNameTheInputTheDimAndBothSizes) {
  const Model m = detector();
  EXPECT_EQ(error_of(target(m, 0, {"x=1x4x64x64"}, {}).status()),
            "det.onnx: input 'x': --shape x=1x4x64x64 makes dim 1 4 but the model fixes it at 3 "
            "(x: float[N,3,H,W])");
  EXPECT_EQ(error_of(target(m, 0, {"x=1x3x64"}, {}).status()),
            "det.onnx: input 'x': --shape x=1x3x64 has 3 dims but the model declares 4 (x: "
            "float[N,3,H,W])");
  EXPECT_EQ(
      error_of(target(m, 1, {"x=1x3x64x64"}, {"H=32"}).status()),
      "det.onnx: --shape x=1x3x64x64 makes dim 2 (H) of input 'x' 64, but --dim H=32 says 32");
}

TEST(InputSizing, MalformedFlagsAreErrorsNamingTheFlagAndThePart) {
  auto err = [](const std::vector<std::string>& shapes, const std::vector<std::string>& dims) {
    return error_of(parse_input_sizing(shapes, dims).status());
  };
  EXPECT_EQ(err({"x=1x0x"}, {}),
            "--shape 'x=1x0x': shape '1x0x': dim 2 is empty (expected sizes like 1x3x32x32)");
  EXPECT_EQ(err({"x=axb"}, {}),
            "--shape 'x=axb': shape 'axb': dim 0 ('a') is not a size (expected sizes like "
            "1x3x32x32)");
  EXPECT_EQ(err({"x=1x-3"}, {}),
            "--shape 'x=1x-3': shape '1x-3': dim 1 ('-3') is not a size (expected sizes like "
            "1x3x32x32)");
  EXPECT_EQ(err({"1x3"}, {}), "--shape '1x3': expected NAME=DIMS, e.g. x=1x3x640x640");
  EXPECT_EQ(err({"x="}, {}), "--shape 'x=': no dims (expected NAME=DIMS, e.g. x=1x3x640x640)");
  EXPECT_EQ(err({"x=1x3", "x=1x4"}, {}), "--shape 'x=1x4': input 'x' given twice");
  EXPECT_EQ(err({"x=99999999999999999999"}, {}),
            "--shape 'x=99999999999999999999': shape '99999999999999999999': dim 0 "
            "(99999999999999999999) is too large");
  EXPECT_EQ(err({}, {"H=big"}),
            "--dim 'H=big': 'big' is not a size (expected SYMBOL=SIZE, e.g. "
            "H=640)");
  EXPECT_EQ(err({}, {"H"}), "--dim 'H': expected SYMBOL=SIZE, e.g. H=640");
  EXPECT_EQ(err({}, {"H=2", "H=3"}), "--dim 'H=3': symbol 'H' given twice");
}

TEST(InputSizing, FlagsThatFitNoModelAreNamedWithWhatTheModelsHave) {
  const Model m = detector();
  InputRequest request{{"mask=value:true", "scale=value:2"}, {"q=1x3"}, {"H=8", "Q=5"}, 0};
  auto g = gather_inputs(m, request);
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  EXPECT_EQ(g->unused_shapes, std::set<std::string>{"q"});
  EXPECT_EQ(g->unused_dims, std::set<std::string>{"Q"});
  EXPECT_EQ(error_of(sizing_fits_nothing(request, {&*g}, "det.onnx")),
            "--shape 'q=1x3': no input of det.onnx is named 'q' (inputs: x, mask, scale)");
  request.shapes.clear();
  auto g2 = gather_inputs(m, request);
  ASSERT_TRUE(g2.ok());
  EXPECT_EQ(error_of(sizing_fits_nothing(request, {&*g2}, "det.onnx")),
            "--dim 'Q=5': no input dim of det.onnx is named 'Q' (symbols: N, H, W)");
  // A flag that fits one of several models is fine.
  GatheredInputs has_q;
  EXPECT_TRUE(sizing_fits_nothing(request, {&*g2, &has_q}, "any of the 2 models").ok());
}

TEST(InputSizing, GeneratedInputsCarryTheirDefaultedDimsAndFilesMustMatchSizedDims) {
  const Model m = detector();
  InputRequest request{{}, {}, {"H=4", "W=5"}, 3};
  auto g = gather_inputs(m, request);
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  ASSERT_EQ(g->inputs.size(), 3u);
  EXPECT_EQ(g->inputs[0].tensor.shape(), (Shape{1, 3, 4, 5}));
  EXPECT_EQ(g->inputs[1].tensor.shape(), (Shape{1, 4, 5}));
  ASSERT_EQ(g->inputs[0].defaulted.size(), 1u);
  EXPECT_EQ(g->inputs[0].defaulted[0].symbol, "N");
  EXPECT_EQ(g->inputs[2].defaulted.size(), 1u);
  // shape= in a spec and --shape for the same input: given twice.
  InputRequest twice{{"x=random:uniform,shape=1x3x2x2"}, {"x=1x3x4x4"}, {}, 0};
  EXPECT_EQ(error_of(gather_inputs(m, twice).status()),
            "det.onnx: input 'x': its shape is given twice (--shape x=1x3x4x4 and "
            "shape=1x3x2x2)");
}

TEST(InputSizing, FilesMustAgreeWithTheDimsUsersSized) {
  testing::TempDir dir;
  const std::string x = dir.file("x.npy");
  ASSERT_TRUE(write_npy(Tensor(DType::kFloat32, {1, 3, 5, 5}), x).ok());
  const Model m = detector();
  auto fits = gather_inputs(m, InputRequest{{"x=" + x}, {}, {"H=5"}, 0});
  ASSERT_TRUE(fits.ok()) << fits.status().to_string();
  EXPECT_TRUE(fits->inputs[0].defaulted.empty());  // a file's dims are its own, not defaults
  EXPECT_EQ(error_of(gather_inputs(m, InputRequest{{"x=" + x}, {}, {"H=4"}, 0}).status()),
            "det.onnx: input 'x': it holds float[1,3,5,5] but dim 2 (H) is sized 4 by --dim or "
            "--shape");
  EXPECT_EQ(error_of(gather_inputs(m, InputRequest{{"x=" + x}, {"x=1x3x5x6"}, {}, 0}).status()),
            "det.onnx: input 'x': it holds float[1,3,5,5] but --shape x=1x3x5x6 asks for another "
            "shape");
}

// A file sizes the symbols it shares with generated inputs: x from a file of [2,3,5,6] makes the
// random mask [2,5,6], not [1,1,1] (input_ids of seq 8 and a random position_ids alike).
TEST(InputSizing, AFileSizesTheSymbolsItSharesWithGeneratedInputs) {
  testing::TempDir dir;
  const std::string x = dir.file("x.npy");
  ASSERT_TRUE(write_npy(Tensor(DType::kFloat32, {2, 3, 5, 6}), x).ok());
  const Model m = detector();
  auto g = gather_inputs(m, InputRequest{{"x=" + x}, {}, {}, 0});
  ASSERT_TRUE(g.ok()) << g.status().to_string();
  EXPECT_EQ(g->inputs[0].name, "x");  // the model's order, whatever was made first
  EXPECT_EQ(g->inputs[1].tensor.shape(), (Shape{2, 5, 6}));
  EXPECT_TRUE(g->inputs[1].defaulted.empty());
  // --dim still wins over a file, which must then agree with it.
  auto sized = gather_inputs(m, InputRequest{{"mask=random:uniform"}, {}, {"H=4"}, 0});
  ASSERT_TRUE(sized.ok());
  EXPECT_EQ(sized->inputs[1].tensor.shape(), (Shape{1, 4, 1}));
}

TEST(InputSizing, RequestFlagsRecreateTheRequestQuotedForAShell) {
  InputRequest r{
      {"x=image:my photos/a.png,preset=imagenet", "sr=value:16000"}, {"x=1x3x640x640"}, {"N=2"}, 7};
  EXPECT_EQ(r.flags(),
            " --input 'x=image:my photos/a.png,preset=imagenet' --input sr=value:16000 --shape "
            "x=1x3x640x640 --dim N=2 --seed 7");
  const InputRequest quote{{"x=it's.npy"}, {}, {}, 0};
  EXPECT_EQ(quote.flags(), " --input 'x=it'\\''s.npy' --seed 0");
}

}  // namespace
}  // namespace ig
