#include "analysis/precision/overflow.h"

#include <cmath>
#include <limits>
#include <set>

#include "analysis/json_measure.h"

namespace ig {

namespace {

double largest_finite(DType t) {
  switch (t) {
    case DType::kFloat16:
      return 65504.0;
    case DType::kBFloat16:
      return 3.3895313892515355e38;
    case DType::kFloat32:
      return std::numeric_limits<float>::max();
    default:
      return std::numeric_limits<double>::max();
  }
}

bool narrow(DType t) { return t == DType::kFloat16 || t == DType::kBFloat16; }

bool has_nonfinite(const Tensor& t) {
  if (!is_float(t.dtype())) return false;
  for (int64_t i = 0; i < t.numel(); ++i)
    if (!std::isfinite(t.as_double(i))) return true;
  return false;
}

OverflowRow measure(const std::string& value, const onnx::NodeProto& n, const Tensor& d,
                    const Tensor* p) {
  OverflowRow r{value, n.name(), n.op_type(), d.dtype(), d.numel()};
  const double top = largest_finite(d.dtype());
  for (int64_t i = 0; i < d.numel(); ++i) {
    const double x = d.as_double(i);
    if (std::isnan(x))
      ++r.nans;
    else if (std::isinf(x))
      ++r.infs;
    else if (std::abs(x) >= top)
      ++r.saturated;
  }
  if (p && p->numel() == d.numel() && is_float(p->dtype())) {
    r.parent_known = true;
    for (int64_t i = 0; i < p->numel(); ++i) {
      const double x = p->as_double(i);
      if (std::isfinite(x))
        r.parent_max = std::max(r.parent_max, std::abs(x));
      else
        ++r.parent_nonfinite;
    }
    r.headroom_bits =
        r.parent_max > 0 ? std::log2(top / r.parent_max) : std::numeric_limits<double>::infinity();
  }
  return r;
}

}  // namespace

OverflowReport find_overflows(const onnx::GraphProto& g,
                              const std::map<std::string, Tensor>& derived,
                              const std::map<std::string, Tensor>& parent) {
  OverflowReport out;
  std::set<std::string> bad;  // values already Inf/NaN in the derived model
  for (const auto& [name, t] : derived)
    if (has_nonfinite(t)) bad.insert(name);
  std::map<std::string, std::vector<std::string>> readers;
  for (const auto& n : g.node())
    for (const auto& v : n.input()) readers[v].push_back(n.name());
  std::set<std::string> keep;
  for (const auto& n : g.node()) {
    for (const auto& v : n.output()) {
      auto d = derived.find(v);
      if (d == derived.end() || !narrow(d->second.dtype())) continue;
      auto p = parent.find(v);
      OverflowRow r = measure(v, n, d->second, p == parent.end() ? nullptr : &p->second);
      r.first = true;
      for (const auto& in : n.input()) r.first = r.first && !bad.count(in);
      // Out of range in the parent too: the value cannot exist in the narrow type at all.
      const bool beyond = r.parent_known && r.headroom_bits < 0;
      if ((r.overflows() && r.first) || beyond) {
        keep.insert(n.name());
        for (const auto& reader : readers[v]) keep.insert(reader);
      }
      if (r.overflows() && r.first) out.first_overflow.push_back(out.rows.size());
      out.rows.push_back(std::move(r));
    }
  }
  for (const auto& n : g.node())
    if (keep.count(n.name())) out.keep.push_back(n.name());
  return out;
}

nlohmann::json overflow_json(const OverflowReport& report) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : report.rows) {
    nlohmann::json j = {{"value", r.value},     {"node", r.node},
                        {"op_type", r.op_type}, {"dtype", dtype_name(r.dtype)},
                        {"elements", r.numel},  {"inf", r.infs},
                        {"nan", r.nans},        {"saturated", r.saturated},
                        {"first", r.first},     {"overflows", r.overflows()}};
    if (r.parent_known) {
      j["parent_max_abs"] = r.parent_max;
      j["headroom_bits"] = json_measure(r.headroom_bits);
      j["parent_nonfinite"] = r.parent_nonfinite;
    }
    rows.push_back(std::move(j));
  }
  nlohmann::json first = nlohmann::json::array();
  for (size_t i : report.first_overflow) first.push_back(report.rows[i].node);
  return {{"first_overflows", first}, {"keep_in_float32", report.keep}, {"values", rows}};
}

}  // namespace ig
