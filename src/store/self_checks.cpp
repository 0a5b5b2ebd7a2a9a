// Store: the self-check re-runs (table self_checks).
#include <sqlite3.h>

#include <algorithm>

#include "store/sqlite_util.h"
#include "store/store.h"
#include "store/store_parse.h"
#include "tensor/hash.h"

namespace ig {

std::string_view self_check_kind_name(SelfCheckKind k) {
  return kSelfCheckKindNames[static_cast<size_t>(k)];
}

Status Store::put_self_check(const StoredSelfCheck& row, const Tensor* tensor) {
  sql::Transaction tx(db_);
  IG_RETURN_IF_ERROR(tx.status());
  const bool has_tensor = row.tensor.has_value();
  if (has_tensor && tensor) IG_RETURN_IF_ERROR(put_tensor(*row.tensor, *tensor));
  sql::Stmt st(db_,
               "INSERT OR IGNORE INTO self_checks(run, value, kind, spec, nodes, verdict, reason, "
               "hash, dtype, shape) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  st.bind(1, row.run).bind(2, row.value).bind(3, self_check_kind_name(row.kind));
  st.bind(4, row.spec).bind(5, nlohmann::json(row.nodes).dump());
  st.bind(6, verdict_name(row.verdict)).bind(7, row.reason);
  st.bind(8, has_tensor ? hash_hex(row.tensor->hash) : std::string());
  st.bind(9, has_tensor ? std::string(dtype_name(row.tensor->dtype)) : std::string());
  IG_RETURN_IF_ERROR(st.bind(10, has_tensor ? shape_json(row.tensor->shape) : "").run());
  return tx.commit();
}

Expected<std::map<int64_t, std::vector<StoredSelfCheck>>> Store::self_checks() const {
  std::map<int64_t, std::vector<StoredSelfCheck>> out;
  sql::Stmt st(db_,
               "SELECT run, value, kind, spec, nodes, verdict, reason, hash, dtype, shape FROM "
               "self_checks ORDER BY run, value, kind");
  while (st.step()) {
    StoredSelfCheck r;
    r.run = st.integer(0);
    r.value = st.text(1);
    const std::string kind = st.text(2);
    auto k = std::find(kSelfCheckKindNames.begin(), kSelfCheckKindNames.end(), kind);
    if (k == kSelfCheckKindNames.end())
      return parse_error("{}: self-check of run {} has unknown kind '{}'", path_, r.run, kind);
    r.kind = static_cast<SelfCheckKind>(k - kSelfCheckKindNames.begin());
    r.spec = st.text(3);
    auto nodes = nlohmann::json::parse(st.text(4), nullptr, false);
    if (!nodes.is_array())
      return parse_error("{}: self-check of run {} has bad nodes '{}'", path_, r.run, st.text(4));
    r.nodes = nodes.get<std::vector<int64_t>>();
    const std::string verdict = st.text(5);
    auto v = verdict_from_name(verdict);
    if (!v)
      return parse_error("{}: self-check of run {} has unknown verdict '{}'", path_, r.run,
                         verdict);
    r.verdict = *v;
    r.reason = st.text(6);
    if (!st.text(7).empty()) {
      TensorKey key;
      IG_ASSIGN_OR_RETURN(key.hash, parse_hash(st.text(7)));
      IG_ASSIGN_OR_RETURN(key.dtype, parse_dtype(st.text(8)));
      IG_ASSIGN_OR_RETURN(key.shape, parse_shape_json(st.text(9)));
      r.tensor = key;
    }
    out[r.run].push_back(std::move(r));
  }
  IG_RETURN_IF_ERROR(st.status());
  return out;
}

}  // namespace ig
