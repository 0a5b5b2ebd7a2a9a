#include "report/charts.h"

namespace ig {

namespace {

using json = nlohmann::json;

json field(const char* name, const char* type, const char* title) {
  return {{"field", name}, {"type", type}, {"title", title}};
}

json base(const json& values, int width = 640, int height = 240) {
  return {{"data", {{"values", values}}}, {"width", width}, {"height", height}};
}

// Platform names are long: keep axis labels readable.
json platform_axis(const char* name, const char* title) {
  json f = field(name, "nominal", title);
  f["axis"] = {{"labelLimit", 260}};
  return f;
}

}  // namespace

json cumulative_chart(const json& points) {
  json spec = base(points, 480, 220);
  spec["mark"] = {{"type", "line"}, {"point", true}};
  spec["encoding"] = {{"x", field("platforms", "quantitative", "platforms added (study order)")},
                      {"y", field("eqcs", "quantitative", "equivalence classes")},
                      {"tooltip", json::array({field("platform", "nominal", "added"),
                                               field("eqcs", "quantitative", "classes")})}};
  spec["encoding"]["x"]["axis"] = {{"tickMinStep", 1}};
  spec["encoding"]["y"]["axis"] = {{"tickMinStep", 1}};
  return spec;
}

json layers_chart(const json& rows) {
  auto panel = [&](const char* y, const char* title) {
    json tooltip =
        json::array({field("index", "quantitative", "node #"), field("node", "nominal", "node"),
                     field("op_type", "nominal", "op"), field(y, "quantitative", title)});
    json line = {{"mark", {{"type", "line"}, {"interpolate", "step-after"}}},
                 {"encoding",
                  {{"x", field("index", "quantitative", "node (topological order)")},
                   {"y", field(y, "quantitative", title)}}}};
    json marks = {{"transform", json::array({{{"filter", "datum.kind != ''"}}})},
                  {"mark", {{"type", "point"}, {"filled", true}, {"size", 40}}},
                  {"encoding",
                   {{"x", field("index", "quantitative", "node (topological order)")},
                    {"y", field(y, "quantitative", title)},
                    {"color", field("kind", "nominal", "layer kind")},
                    {"tooltip", tooltip}}}};
    return json{{"width", 640},
                {"height", 150},
                {"transform", json::array({{{"filter", std::string("isValid(datum.") + y + ")"}}})},
                {"layer", json::array({line, marks})}};
  };
  json panels = json::array(
      {panel("eqcs", "EQCs"), panel("remaining_precision", "remaining precision (bits)")});
  // Quantized values (quant_steps.h) differ by whole steps, which their own panel shows.
  for (const auto& r : rows)
    if (r.contains("steps_max") && r["steps_max"].is_number()) {
      panels.push_back(panel("steps_max", "quantization steps apart"));
      break;
    }
  return {{"data", {{"values", rows}}}, {"vconcat", panels}};
}

json parent_sqnr_chart(const json& points) {
  json tooltip =
      json::array({field("index", "quantitative", "layer #"), field("node", "nominal", "node"),
                   field("op_type", "nominal", "op"), field("platform", "nominal", "platform"),
                   field("sqnr_db", "quantitative", "SQNR (dB)")});
  return {{"data", {{"values", points}}},
          {"width", 640},
          {"height", 220},
          {"mark", {{"type", "line"}, {"point", true}}},
          {"encoding",
           {{"x", field("index", "quantitative", "layer (derived model's order)")},
            {"y", field("sqnr_db", "quantitative", "SQNR against the parent (dB)")},
            {"color", field("platform", "nominal", "platform")},
            {"tooltip", tooltip}}}};
}

json dendrogram_chart(const json& drawing) {
  const int top = drawing["top"].get<int>();
  json y = field("y", "quantitative", "remaining precision (bits)");
  y["scale"] = {{"domain", json::array({0, top + 2})}};
  json x = field("x", "quantitative", "");
  x["axis"] = nullptr;
  json rules = {
      {"data", {{"values", drawing["segments"]}}},
      {"mark", {{"type", "rule"}, {"strokeWidth", 2}}},
      {"encoding", {{"x", x}, {"x2", {{"field", "x2"}}}, {"y", y}, {"y2", {{"field", "y2"}}}}}};
  json points = {
      {"data", {{"values", drawing["leaves"]}}},
      {"mark", {{"type", "point"}, {"filled", true}}},
      {"encoding", {{"x", x}, {"y", y}, {"tooltip", field("label", "nominal", "class")}}}};
  json labels = {{"data", {{"values", drawing["leaves"]}}},
                 {"mark", {{"type", "text"}, {"dy", -10}, {"fontSize", 11}}},
                 {"encoding", {{"x", x}, {"y", y}, {"text", {{"field", "label"}}}}}};
  return {{"width", 640}, {"height", 260}, {"layer", json::array({rules, points, labels})}};
}

json sweep_chart(const json& points) {
  auto panel = [&](const char* y, const char* title) {
    json x = field("multiplications", "quantitative", "multiply-accumulates");
    x["scale"] = {{"type", "log"}};
    return json{{"width", 300},
                {"height", 200},
                {"mark", {{"type", "line"}, {"point", true}}},
                {"transform", json::array({{{"filter", std::string("isValid(datum.") + y + ")"}}})},
                {"encoding",
                 {{"x", x},
                  {"y", field(y, "quantitative", title)},
                  {"tooltip", json::array({field("model", "nominal", "model"), x,
                                           field(y, "quantitative", title)})}}}};
  };
  return {{"data", {{"values", points}}},
          {"hconcat", json::array({panel("remaining_precision", "remaining precision (bits)"),
                                   panel("eqcs", "EQCs")})}};
}

json oracle_chart(const json& ranking) {
  json spec = base(ranking, 480, 24 * static_cast<int>(ranking.size()) + 20);
  json x = field("max_ulp", "quantitative", "max ULP distance to the oracle");
  x["scale"] = {{"type", "symlog"}};
  json y = platform_axis("platform", "platform");
  y["sort"] = {{"field", "rank"}};
  spec["mark"] = "bar";
  spec["encoding"] = {
      {"x", x},
      {"y", y},
      {"tooltip",
       json::array({field("rank", "quantitative", "rank"), x,
                    field("max_abs_error", "quantitative", "max abs"),
                    field("max_rel_error", "quantitative", "max rel"),
                    field("remaining_precision", "quantitative", "RP vs rounded oracle")})}};
  return spec;
}

json origins_chart(const json& by_op) {
  json spec = base(by_op, 400, 24 * static_cast<int>(by_op.size()) + 20);
  json y = field("op_type", "nominal", "operator");
  y["sort"] = "-x";
  spec["mark"] = "bar";
  spec["encoding"] = {{"x", field("origins", "quantitative", "nodes where an EQC splits")},
                      {"y", y},
                      {"tooltip", json::array({y, field("origins", "quantitative", "origins")})}};
  return spec;
}

json support_chart(const json& cells) {
  json spec = base(cells, 480, 400);
  spec.erase("width");
  spec.erase("height");
  json color = field("percent", "quantitative", "% of variants run");
  color["scale"] = {{"domain", json::array({0, 100})}, {"scheme", "redyellowgreen"}};
  spec["mark"] = "rect";
  spec["encoding"] = {{"x", platform_axis("platform", "platform")},
                      {"y", field("op", "nominal", "operator")},
                      {"color", color},
                      {"tooltip", json::array({field("op", "nominal", "op"),
                                               field("platform", "nominal", "platform"), color})}};
  return spec;
}

json failures_chart(const json& rows) {
  json spec = base(rows, 480, 300);
  spec["height"] = {{"step", 20}};
  spec["mark"] = "bar";
  spec["encoding"] = {{"x", field("runs", "quantitative", "runs")},
                      {"y", platform_axis("platform", "platform")},
                      {"color", field("verdict", "nominal", "verdict")},
                      {"tooltip", json::array({field("platform", "nominal", "platform"),
                                               field("verdict", "nominal", "verdict"),
                                               field("runs", "quantitative", "runs")})}};
  return spec;
}

json discrepancy_chart(const json& rows) {
  json spec = base(rows, 480, 300);
  spec["height"] = {{"step", 20}};
  spec["mark"] = "bar";
  spec["encoding"] = {{"x", field("variants", "quantitative", "discrepant variants")},
                      {"y", platform_axis("platform", "platform")},
                      {"color", field("op", "nominal", "origin op")},
                      {"tooltip", json::array({field("platform", "nominal", "platform"),
                                               field("op", "nominal", "origin op"),
                                               field("variants", "quantitative", "variants")})}};
  return spec;
}

json compiled_eager_chart(const json& rows) {
  json spec = base(rows, 400, 300);
  spec["height"] = {{"step", 24}};
  spec["mark"] = "bar";
  json x = field("share", "quantitative", "share of variants whose outputs differ");
  x["axis"] = {{"format", "%"}};
  spec["encoding"] = {{"x", x},
                      {"y", field("compiled", "nominal", "compiled platform")},
                      {"tooltip", json::array({field("eager", "nominal", "eager"),
                                               field("compiled", "nominal", "compiled"),
                                               field("differ", "quantitative", "differ"),
                                               field("variants", "quantitative", "variants")})}};
  return spec;
}

}  // namespace ig
