#include "synth/hostile.h"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "inputs/rng.h"
#include "model/npy.h"

namespace ig {

namespace fs = std::filesystem;

namespace hostile {

std::string put(const std::string& dir, const std::string& name, const std::string& file,
                const std::string& bytes) {
  const fs::path folder = fs::path(dir) / name;
  fs::create_directories(folder);
  std::string path = (folder / file).string();
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

namespace {

// Any of these is a clear statement that the bytes are not a usable model.
const std::vector<std::string> kNotAModel = {"not a valid onnx protobuf", "no graph",
                                             "not an onnx model", "onnx checker", "empty"};

std::string random_bytes(uint64_t seed, size_t n) {
  Rng rng(seed);
  std::string out(n, '\0');
  for (auto& c : out) c = static_cast<char>(rng.below(256));
  return out;
}

// Protobuf varint, for hand-made length prefixes.
std::string varint(uint64_t v) {
  std::string out;
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    out += static_cast<char>(v ? b | 0x80 : b);
  } while (v);
  return out;
}

}  // namespace

std::vector<HostileCase> byte_cases(const std::string& dir) {
  std::vector<HostileCase> cases;
  auto add = [&](const std::string& name, const std::string& bytes,
                 std::vector<std::string> expect) {
    cases.push_back({name, put(dir, name, "model.onnx", bytes), {}, std::move(expect)});
  };
  const std::string good = relu_model_bytes();
  add("empty_file", "", {"empty"});
  for (size_t keep : {size_t{1}, size_t{3}, good.size() / 4, good.size() / 2, good.size() * 3 / 4,
                      good.size() - 1}) {
    add("truncated_" + std::to_string(keep), good.substr(0, keep), kNotAModel);
  }
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    add("random_bytes_" + std::to_string(seed), random_bytes(seed, 16 + 100 * seed), kNotAModel);
  }
  // One byte flipped at spread positions: tags, lengths and payload all get hit.
  for (size_t i = 0; i < 8; ++i) {
    std::string bad = good;
    size_t at = i * (good.size() - 1) / 7;
    // A flip inside a free-form name still leaves a valid model: move past the names.
    for (const char* name : {"infergap-hostile", "relu"}) {
      const size_t p = good.find(name);
      if (p != std::string::npos && at >= p && at < p + std::strlen(name))
        at = p + std::strlen(name);
    }
    bad[at] = static_cast<char>(bad[at] ^ 0xff);
    add("flipped_byte_" + std::to_string(at), bad, kNotAModel);
  }
  // Field 7 (graph), length-delimited, claiming 2^35 bytes follow; and a 2^31 - 1 string.
  add("huge_length_graph", "\x08\x08" + std::string("\x3a") + varint(uint64_t{1} << 35) + "x",
      kNotAModel);
  add("huge_length_name", "\x08\x08" + std::string("\x12") + varint(0x7fffffff) + "abc",
      kNotAModel);
  // A sparse 3 GiB file: over the size limit, checked before reading it.
  const std::string big = put(dir, "file_over_limit", "model.onnx", "");
  fs::resize_file(big, uint64_t{3} << 30);
  cases.push_back({"file_over_limit", big, {}, {"over the limit"}});
  cases.push_back(
      {"model_is_folder", (fs::path(dir) / "file_over_limit").string(), {}, {"is a directory"}});
  cases.push_back(
      {"model_missing", (fs::path(dir) / "no_such_model.onnx").string(), {}, {"no such file"}});
  return cases;
}

std::vector<HostileCase> input_cases(const std::string& dir) {
  std::vector<HostileCase> cases;
  const std::string model_bytes = relu_model_bytes();
  auto add = [&](const std::string& name, const std::string& npy, std::vector<std::string> expect) {
    const std::string model = put(dir, name, "model.onnx", model_bytes);
    const std::string input = put(dir, name, "x.npy", npy);
    cases.push_back({name, model, {"X=" + input}, std::move(expect)});
  };
  Tensor f3(DType::kFloat32, {3});
  Tensor i2(DType::kInt32, {2});
  Tensor f22(DType::kFloat32, {2, 2});
  add("npy_wrong_shape", encode_npy(f3), {"shape"});
  add("npy_wrong_rank", encode_npy(f22), {"shape"});
  add("npy_wrong_dtype", encode_npy(i2), {"int32"});
  add("npy_empty", "", {"npy"});
  add("npy_truncated", encode_npy(Tensor(DType::kFloat32, {2})).substr(0, 70), {"npy"});
  add("npy_random_bytes", random_bytes(42, 200), {"npy"});
  const std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }";
  auto npy_with_shape = [&](const std::string& shape) {
    std::string h = header;
    h.replace(h.find("%s"), 2, shape);
    while ((10 + h.size() + 1) % 64) h += ' ';
    h += '\n';
    std::string out = "\x93NUMPY\x01";
    out += '\0';
    out += static_cast<char>(h.size() & 0xff);
    out += static_cast<char>(h.size() >> 8);
    return out + h + std::string(8, '\0');
  };
  add("npy_absurd_shape", npy_with_shape("1099511627776, 1099511627776"),
      {"over the limit", "more elements than fit"});
  add("npy_negative_shape", npy_with_shape("-2,"), {"negative", "shape"});
  add("npy_data_short", npy_with_shape("2, 100"), {"npy"});
  add("npy_bad_dtype",
      [&] {
        std::string s = npy_with_shape("2,");
        s.replace(s.find("<f4"), 3, "<X9");
        return s;
      }(),
      {"dtype", "descr", "npy"});
  const std::string model = put(dir, "input_unknown_name", "model.onnx", model_bytes);
  cases.push_back({"input_unknown_name", model, {"NOPE=random:uniform"}, {"nope"}});
  const std::string model2 = put(dir, "input_file_missing", "model.onnx", model_bytes);
  cases.push_back({"input_file_missing", model2, {"X=" + dir + "/missing.npy"}, {"no such file"}});
  return cases;
}

}  // namespace hostile

Expected<std::vector<HostileCase>> write_hostile_cases(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return io_error("{}: cannot create: {}", dir, ec.message());
  std::vector<HostileCase> all;
  try {
    for (auto part : {hostile::byte_cases, hostile::model_cases, hostile::external_cases,
                      hostile::input_cases, hostile::quant_cases}) {
      for (auto& c : part(dir)) all.push_back(std::move(c));
    }
  } catch (const fs::filesystem_error& e) {
    return io_error("{}: writing hostile cases: {}", dir, e.what());
  }
  return all;
}

}  // namespace ig
