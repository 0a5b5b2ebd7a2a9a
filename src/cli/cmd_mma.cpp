// infergap mma list [--json]
// infergap mma dot --unit UNIT --a X,.. --b Y,.. [--c Z] [--json]
// infergap mma batch --unit UNIT --k K IN -o OUT
// The matrix-unit emulator on its own (backends/ref/numerics/matrix_unit.h): the presets with
// their sources, one dot product, or a file of them (records of K a's, K b's and c, float32
// little-endian; OUT gets one float32 per record) for checks against other models of the units.
#include <bit>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backends/ref/numerics/matrix_unit.h"
#include "cli/commands.h"
#include "platform/spec.h"

namespace ig::cli {

namespace {

struct MmaArgs {
  std::string unit, in, out;
  std::vector<float> a, b;
  float c = 0;
  int k = 0;
  bool json = false;
};

// "h100-fp16" or "mma=h100-fp16,mma-k=8" (the ref backend's keys).
Expected<MatrixUnit> unit_of(const std::string& text) {
  if (text.find('=') == std::string::npos) return parse_matrix_unit({{"mma", text}});
  IG_ASSIGN_OR_RETURN(const PlatformSpec spec, parse_platform_spec("ref:" + text));
  return parse_matrix_unit(spec.options);
}

std::string hex_bits(float v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", std::bit_cast<uint32_t>(v));
  return buf;
}

Status run_list(const MmaArgs& a) {
  nlohmann::json out = nlohmann::json::array();
  for (const MmaPreset& p : mma_presets()) {
    if (a.json) {
      out.push_back({{"name", p.name},
                     {"unit", p.unit},
                     {"source", p.source},
                     {"arithmetic", p.config.describe()}});
    } else {
      std::printf("%-16s %s\n%16s %s\n%16s source: %s\n", p.name.c_str(), p.unit.c_str(), "",
                  p.config.describe().c_str(), "", p.source.c_str());
    }
  }
  if (a.json) std::printf("%s\n", out.dump(2).c_str());
  return Status::Ok();
}

Status run_dot(const MmaArgs& a) {
  IG_ASSIGN_OR_RETURN(const MatrixUnit u, unit_of(a.unit));
  if (a.a.size() != a.b.size())
    return invalid_argument("--a has {} values and --b {}: a dot product needs as many of each",
                            a.a.size(), a.b.size());
  std::vector<float> x, y;
  for (float v : a.a) x.push_back(mma_input(u, v));
  for (float v : a.b) y.push_back(mma_input(u, v));
  const float r = mma_dot(u, x.data(), 1, y.data(), 1, static_cast<int64_t>(x.size()), a.c);
  if (a.json) {
    std::printf("%s\n", nlohmann::json{{"unit", u.describe()},
                                       {"a", x},
                                       {"b", y},
                                       {"c", a.c},
                                       {"result", r},
                                       {"bits", hex_bits(r)}}
                            .dump(2)
                            .c_str());
  } else {
    std::printf("%.9g (%s) on %s\n", static_cast<double>(r), hex_bits(r).c_str(),
                u.describe().c_str());
  }
  return Status::Ok();
}

Status run_batch(const MmaArgs& a) {
  IG_ASSIGN_OR_RETURN(const MatrixUnit u, unit_of(a.unit));
  if (a.k < 1 || a.k > 1 << 20) return invalid_argument("--k {} is not in 1..1048576", a.k);
  std::ifstream in(a.in, std::ios::binary);
  if (!in) return not_found("{}: cannot open", a.in);
  const size_t record = static_cast<size_t>(2 * a.k + 1);
  std::vector<float> buf(record), out;
  while (in.read(reinterpret_cast<char*>(buf.data()),
                 static_cast<std::streamsize>(record * sizeof(float)))) {
    // Converted as dot converts them, so that a record of plain fp32 values means the same in
    // both (values already in the unit's format are unchanged).
    for (size_t i = 0; i + 1 < record; ++i) buf[i] = mma_input(u, buf[i]);
    out.push_back(mma_dot(u, buf.data(), 1, buf.data() + a.k, 1, a.k, buf[record - 1]));
  }
  if (in.gcount() != 0)
    return invalid_argument("{}: ends in a partial record ({} bytes; records are {} floats)", a.in,
                            in.gcount(), record);
  std::ofstream o(a.out, std::ios::binary);
  o.write(reinterpret_cast<const char*>(out.data()),
          static_cast<std::streamsize>(out.size() * sizeof(float)));
  if (!o) return io_error("{}: cannot write", a.out);
  std::printf("%zu dot products on %s -> %s\n", out.size(), u.describe().c_str(), a.out.c_str());
  return Status::Ok();
}

void on_error(const char* what, const Status& st, int& exit_code) {
  std::fprintf(stderr, "infergap mma %s: %s\n", what, st.message().c_str());
  exit_code = exit_code_for(st);
}

}  // namespace

void add_mma_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<MmaArgs>();
  auto* cmd = app.add_subcommand(
      "mma", "The matrix-unit emulator: presets, one dot product, or a file of them");
  cmd->require_subcommand(1);
  auto* list = cmd->add_subcommand("list", "The matrix units ref:mma= emulates, with sources");
  list->add_flag("--json", a->json, "Print JSON");
  list->callback([a, &exit_code] {
    if (Status st = run_list(*a); !st.ok()) on_error("list", st, exit_code);
  });
  auto* dot = cmd->add_subcommand("dot", "One dot product c + sum a[i]*b[i] on a matrix unit");
  dot->add_option("--unit", a->unit, "A preset, or ref keys: mma=PRESET,mma-k=8,...")->required();
  dot->add_option("--a", a->a, "The a values (converted to the unit's input format)")
      ->delimiter(',')
      ->required();
  dot->add_option("--b", a->b, "The b values")->delimiter(',')->required();
  dot->add_option("--c", a->c, "The accumulator (0)");
  dot->add_flag("--json", a->json, "Print JSON");
  dot->callback([a, &exit_code] {
    if (Status st = run_dot(*a); !st.ok()) on_error("dot", st, exit_code);
  });
  auto* batch = cmd->add_subcommand("batch", "A file of dot products, float32 records");
  batch->add_option("--unit", a->unit, "A preset, or ref keys")->required();
  batch->add_option("--k", a->k, "Products per record")->required();
  batch
      ->add_option("input", a->in,
                   "Records: K a's, K b's (converted to the unit's input format), c (float32)")
      ->required();
  batch->add_option("-o,--output", a->out, "One float32 result per record")->required();
  batch->callback([a, &exit_code] {
    if (Status st = run_batch(*a); !st.ok()) on_error("batch", st, exit_code);
  });
}

}  // namespace ig::cli
