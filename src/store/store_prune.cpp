// --keep-tensors none and origins (docs/STUDY.md "Keeping tensors"): once a study has learned its
// tensor facts, inner-layer tensors are dropped; graph outputs, inputs, self-check re-runs and the
// values the caller names (origins: the inputs and outputs of the nodes where divergences are born)
// stay, with every tensor one of them is XOR-encoded against (store/tensor_blob.h).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <set>
#include <string>
#include <tuple>

#include "store/sqlite_util.h"
#include "store/store.h"
#include "store/tensor_blob.h"
#include "tensor/hash.h"

namespace ig {

namespace {

using Row = std::tuple<std::string, std::string, std::string>;  // hash, dtype, shape columns

Status collect(sqlite3* db, const char* sql, std::set<Row>& out) {
  sql::Stmt st(db, sql);
  while (st.step()) out.insert({st.text(0), st.text(1), st.text(2)});
  return st.status();
}

}  // namespace

Expected<PruneCounts> Store::drop_inner_tensors(const std::vector<CaseValues>& values,
                                                const std::vector<TensorKey>& tensors) {
  std::set<Row> keep;
  for (const auto& k : tensors)
    keep.insert({hash_hex(k.hash), dtype_name(k.dtype), shape_json(k.shape)});
  IG_RETURN_IF_ERROR(collect(
      db_, "SELECT DISTINCT hash, dtype, shape FROM node_outputs WHERE is_output = 1", keep));
  {
    sql::Stmt by_value(db_,
                       "SELECT DISTINCT o.hash, o.dtype, o.shape FROM node_outputs o JOIN runs r "
                       "ON r.id = o.run WHERE r.model = ? AND r.input = ? AND o.value = ?");
    for (const auto& c : values) {
      for (const auto& value : c.values) {
        by_value.reset();
        by_value.bind(1, c.model).bind(2, c.input).bind(3, value);
        while (by_value.step()) keep.insert({by_value.text(0), by_value.text(1), by_value.text(2)});
        IG_RETURN_IF_ERROR(by_value.status());
      }
    }
  }
  IG_RETURN_IF_ERROR(
      collect(db_, "SELECT hash, dtype, shape FROM self_checks WHERE hash != ''", keep));
  IG_ASSIGN_OR_RETURN(const auto inputs, this->inputs());
  for (const auto& in : inputs)
    for (const auto& r : in.recipe.value("inputs", nlohmann::json::array()))
      keep.insert({r.at("hash").get<std::string>(), r.at("dtype").get<std::string>(),
                   shape_json(r.at("shape").get<Shape>())});
  // What the kept blobs are XOR-encoded against, and what those are, until nothing is added.
  std::vector<Row> todo(keep.begin(), keep.end());
  while (!todo.empty()) {
    const auto [hash, dtype, shape] = todo.back();
    todo.pop_back();
    sql::Stmt st(db_, "SELECT data FROM tensors WHERE hash = ? AND dtype = ? AND shape = ?");
    st.bind(1, hash).bind(2, dtype).bind(3, shape);
    if (!st.step() || st.is_null(0)) {
      IG_RETURN_IF_ERROR(st.status());
      continue;
    }
    IG_ASSIGN_OR_RETURN(const Shape dims, parse_shape_json(shape));
    auto header = parse_tensor_blob_header(st.blob(0), dims);
    if (!header.ok()) return header.status().with_context(path_ + ": tensor " + hash);
    if (!header->reference) continue;
    const Row ref{hash_hex(header->reference->hash), dtype_name(header->reference->dtype), shape};
    if (keep.insert(ref).second) todo.push_back(ref);
  }
  PruneCounts counts;
  IG_RETURN_IF_ERROR(
      exec("CREATE TEMP TABLE IF NOT EXISTS kept(hash TEXT, dtype TEXT, shape TEXT, "
           "PRIMARY KEY(hash, dtype, shape)); DELETE FROM temp.kept"));
  const Status dropped = [&]() -> Status {
    sql::Transaction tx(db_);
    IG_RETURN_IF_ERROR(tx.status());
    {
      sql::Stmt add(db_, "INSERT OR IGNORE INTO temp.kept VALUES(?, ?, ?)");
      for (const auto& [hash, dtype, shape] : keep) {
        add.reset();
        IG_RETURN_IF_ERROR(add.bind(1, hash).bind(2, dtype).bind(3, shape).run());
      }
    }
    {
      sql::Stmt n(db_,
                  "SELECT count(*), coalesce(sum(length(data)), 0) FROM tensors WHERE data IS "
                  "NOT NULL AND (hash, dtype, shape) NOT IN (SELECT hash, dtype, shape FROM "
                  "temp.kept)");
      if (n.step()) counts = {n.integer(0), n.integer(1)};
      IG_RETURN_IF_ERROR(n.status());
    }
    IG_RETURN_IF_ERROR(
        exec("UPDATE tensors SET data = NULL WHERE data IS NOT NULL AND (hash, dtype, shape) NOT "
             "IN (SELECT hash, dtype, shape FROM temp.kept)"));
    IG_RETURN_IF_ERROR(exec(kMarkTensorsWithoutBytes));
    return tx.commit();
  }();
  IG_RETURN_IF_ERROR(exec("DROP TABLE temp.kept"));
  IG_RETURN_IF_ERROR(dropped);
  // The file keeps its size until its free pages are given back. Not a snapshot of a PostgreSQL
  // store: it is temporary, and VACUUM may renumber the rowids its push relies on (pg_copy.cpp).
  if (remote_.empty()) IG_RETURN_IF_ERROR(exec("VACUUM"));
  return counts;
}

}  // namespace ig
