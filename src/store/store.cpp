#include "store/store.h"

#include <sqlite3.h>

#include <cmath>
#include <cstdio>

#include "store/decoded_references.h"
#include "store/pg_store.h"
#include "store/reference_index.h"
#include "store/schema.h"
#include "store/sqlite_util.h"
#include "tensor/hash.h"

namespace ig {

namespace {

struct Stats {
  double min = NAN, max = NAN, mean = NAN;
  int64_t nan = 0, inf = 0;
};

// Over the elements in order, each as a double; `at(i)` reads element i.
template <typename At>
Stats summarize_elements(int64_t n, At at) {
  Stats s;
  double sum = 0;
  int64_t finite = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double v = at(i);
    if (std::isnan(v)) {
      ++s.nan;
    } else if (std::isinf(v)) {
      ++s.inf;
    } else {
      s.min = finite ? std::min(s.min, v) : v;
      s.max = finite ? std::max(s.max, v) : v;
      sum += v;
      ++finite;
    }
  }
  if (finite) s.mean = sum / static_cast<double>(finite);
  return s;
}

Stats summarize(const Tensor& t) {
  if (!t.defined() || t.dtype() == DType::kString) return Stats{};
  // The common dtypes read typed: every stored value is summarized, and the per-element dtype
  // switch of as_double was a tenth of a campaign's coordinator time. Same values, same order.
  if (t.dtype() == DType::kFloat32) {
    const float* p = t.data<float>();
    return summarize_elements(t.numel(), [p](int64_t i) { return static_cast<double>(p[i]); });
  }
  if (t.dtype() == DType::kFloat64) {
    const double* p = t.data<double>();
    return summarize_elements(t.numel(), [p](int64_t i) { return p[i]; });
  }
  return summarize_elements(t.numel(), [&t](int64_t i) { return t.as_double(i); });
}

void bind_real_or_null(sql::Stmt& st, int i, double v) {
  if (std::isnan(v)) {
    st.bind_null(i);
  } else {
    st.bind(i, v);
  }
}

}  // namespace

TensorKey TensorKey::of(const Tensor& t) { return {tensor_hash(t), t.dtype(), t.shape()}; }

std::string shape_json(const Shape& shape) { return nlohmann::json(shape).dump(); }

Expected<Shape> parse_shape_json(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_array()) return parse_error("bad shape '{}' in store", text);
  return j.get<Shape>();
}

Expected<std::unique_ptr<Store>> Store::open(const std::string& path) {
  if (is_postgres_url(path)) return open_remote(path);
  std::unique_ptr<Store> s(new Store());
  s->path_ = path;
  if (sqlite3_open_v2(path.c_str(), &s->db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI,
                      nullptr) != SQLITE_OK) {
    return io_error("{}: cannot open store: {}", path,
                    s->db_ ? sqlite3_errmsg(s->db_) : "out of memory");
  }
  sqlite3_busy_timeout(s->db_, 10000);
  // WAL: readers (compare while a study runs) never block the writer. synchronous=NORMAL keeps
  // every committed run across a killed process; only a power cut may lose the last commits.
  IG_RETURN_IF_ERROR(s->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"));
  // An existing store is checked before anything is written to it: a store of another version is
  // refused whole, never extended or mixed.
  IG_ASSIGN_OR_RETURN(const bool existing, s->has_table("runs"));
  if (existing) IG_RETURN_IF_ERROR(check_schema_version(*s, path));
  IG_RETURN_IF_ERROR(s->exec(schema_sql(SqlDialect::kSqlite)));
  Status st = s->exec("SELECT count(*) FROM runs");
  if (!st.ok()) return st.with_context(path + " is not an infergap store");
  if (!existing) {
    sql::Stmt v(s->db_, "INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', ?)");
    IG_RETURN_IF_ERROR(v.bind(1, std::to_string(kStoreSchemaVersion)).run());
    IG_RETURN_IF_ERROR(check_schema_version(*s, path));  // another process may have made it first
  }
  s->oracle_ = s->meta("oracle").value_or("");
  return s;
}

// The references of a campaign's recent cases are kept (those of 256 MiB of tensors); older ones
// are dropped. The tensors in memory have their own bound (set_memory_budget).
Store::Store()
    : references_(std::make_unique<ReferenceIndex>(size_t{256} << 20, size_t{64} << 20)),
      decoded_(std::make_unique<DecodedReferences>(size_t{64} << 20)) {}

Store::~Store() {
  sql::forget_cached(db_);
  sqlite3_close_v2(db_);
  if (!remote_.empty() && !keep_snapshot_)
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path_ + suffix).c_str());
}

Expected<bool> Store::has_table(const std::string& name, const std::string& schema) const {
  sql::Stmt st(
      db_,
      ("SELECT 1 FROM " + schema + ".sqlite_master WHERE type = 'table' AND name = ?").c_str());
  const bool found = st.bind(1, name).step();
  IG_RETURN_IF_ERROR(st.status());
  return found;
}

Status check_schema_version(const Store& store, const std::string& path,
                            const std::string& schema) {
  std::string version = "1 (none recorded: written before schema versions)";
  sql::Stmt st(store.db(),
               ("SELECT value FROM " + schema + ".meta WHERE key = 'schema_version'").c_str());
  if (st.step()) version = st.text(0);
  IG_RETURN_IF_ERROR(st.status());
  if (schema_version_supported(version)) return Status::Ok();
  return invalid_argument(
      "{}: store schema version {}, but this infergap reads {}; run the study again "
      "into a new store (stores of different versions are never mixed)",
      path, version, supported_schema_versions());
}

bool schema_version_supported(const std::string& version) {
  for (int v = kOldestSchemaVersion; v <= kStoreSchemaVersion; ++v)
    if (version == std::to_string(v)) return true;
  return false;
}

std::string supported_schema_versions() {
  return fmt::format("versions {} and {}", kOldestSchemaVersion, kStoreSchemaVersion);
}

Status Store::exec(const std::string& sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    Status st = io_error("{}: {}", path_, err ? err : "sqlite error");
    sqlite3_free(err);
    return st;
  }
  return Status::Ok();
}

Status Store::put_host(const StoredHost& host) {
  sql::Stmt st(db_, "INSERT OR IGNORE INTO hosts(id, fingerprint) VALUES(?, ?)");
  return st.bind(1, host.id).bind(2, host.fingerprint.dump()).run();
}

Status Store::put_platform(const std::string& spec, const std::string& host, bool oracle) {
  sql::Stmt st(db_, "INSERT OR IGNORE INTO platforms(spec, host, oracle) VALUES(?, ?, ?)");
  return st.bind(1, spec).bind(2, host).bind(3, oracle ? 1 : 0).run();
}

Status Store::put_model(const StoredModel& model, const std::vector<StoredNode>& nodes) {
  sql::Transaction tx(db_);
  IG_RETURN_IF_ERROR(tx.status());
  sql::Stmt m(db_, "INSERT OR IGNORE INTO models(hash, path, name, lineage) VALUES(?, ?, ?, ?)");
  IG_RETURN_IF_ERROR(m.bind(1, model.hash)
                         .bind(2, model.path)
                         .bind(3, model.name)
                         .bind(4, model.lineage.dump())
                         .run());
  sql::Stmt n(db_,
              "INSERT OR IGNORE INTO graph_nodes(model, idx, name, op_type, domain, inputs, "
              "outputs, attributes) VALUES(?, ?, ?, ?, ?, ?, ?, ?)");
  for (const auto& node : nodes) {
    n.reset();
    IG_RETURN_IF_ERROR(n.bind(1, model.hash)
                           .bind(2, node.index)
                           .bind(3, node.name)
                           .bind(4, node.op_type)
                           .bind(5, node.domain)
                           .bind(6, nlohmann::json(node.inputs).dump())
                           .bind(7, nlohmann::json(node.outputs).dump())
                           .bind(8, node.attributes.dump())
                           .run());
  }
  return tx.commit();
}

Status Store::put_input(const StoredInput& input, const std::vector<Tensor>& tensors) {
  sql::Transaction tx(db_);
  IG_RETURN_IF_ERROR(tx.status());
  sql::Stmt st(db_, "INSERT OR IGNORE INTO inputs(hash, label, recipe) VALUES(?, ?, ?)");
  IG_RETURN_IF_ERROR(
      st.bind(1, input.hash).bind(2, input.label).bind(3, input.recipe.dump()).run());
  for (const auto& t : tensors) IG_RETURN_IF_ERROR(put_tensor(t));
  return tx.commit();
}

Status Store::set_meta(const std::string& key, const std::string& value) {
  sql::Stmt st(db_, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
  IG_RETURN_IF_ERROR(st.bind(1, key).bind(2, value).run());
  if (key == "oracle") oracle_ = value;
  return Status::Ok();
}

std::optional<std::string> Store::meta(const std::string& key) const {
  sql::Stmt st(db_, "SELECT value FROM meta WHERE key = ?");
  if (st.bind(1, key).step()) return st.text(0);
  return std::nullopt;
}

Expected<std::set<RunKey>> Store::run_keys(const std::string& host) const {
  std::set<RunKey> keys;
  sql::Stmt st(db_, "SELECT model, input, platform, repetition FROM runs WHERE host = ?");
  st.bind(1, host);
  while (st.step())
    keys.insert({st.text(0), st.text(1), st.text(2), host, static_cast<int>(st.integer(3))});
  IG_RETURN_IF_ERROR(st.status());
  return keys;
}

Expected<bool> Store::put_run(const RunKey& key, const RunResult& result) {
  IG_ASSIGN_OR_RETURN(auto written, put_runs({{key, &result}}));
  return bool(written[0]);
}

Expected<std::vector<bool>> Store::put_runs(
    const std::vector<std::pair<RunKey, const RunResult*>>& runs) {
  auto written = [&]() -> Expected<std::vector<bool>> {
    sql::Transaction tx(db_);
    IG_RETURN_IF_ERROR(tx.status());
    std::vector<bool> out;
    out.reserve(runs.size());
    for (const auto& [key, result] : runs) {
      IG_ASSIGN_OR_RETURN(bool w, write_run(key, *result));
      out.push_back(w);
    }
    IG_RETURN_IF_ERROR(tx.commit());
    return out;
  }();
  // References written in a transaction that rolled back are not in the store.
  if (written.ok()) {
    references_->commit();
  } else {
    references_->rollback();
  }
  return written;
}

Expected<bool> Store::write_run(const RunKey& key, const RunResult& result) {
  sql::Stmt r(db_,
              "INSERT OR IGNORE INTO runs(model, input, platform, host, repetition, verdict, "
              "reason, repro, seconds) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)");
  r.bind(1, key.model).bind(2, key.input).bind(3, key.platform).bind(4, key.host);
  r.bind(5, key.repetition).bind(6, std::string(verdict_name(result.verdict)));
  r.bind(7, result.reason);
  IG_RETURN_IF_ERROR(r.bind(8, result.repro).bind(9, result.seconds).run());
  if (sqlite3_changes(db_) == 0) return false;
  if (!result.library.empty()) {
    sql::Stmt lib(db_,
                  "INSERT OR REPLACE INTO platform_libraries(spec, host, library, version) "
                  "VALUES(?, ?, ?, ?)");
    lib.bind(1, key.platform).bind(2, key.host).bind(3, result.library);
    IG_RETURN_IF_ERROR(lib.bind(4, result.library_version).run());
  }
  const int64_t run_id = sqlite3_last_insert_rowid(db_);
  sql::Stmt rej(db_,
                "INSERT INTO rejections(run, position, node, op_type, node_index, reason) "
                "VALUES(?, ?, ?, ?, ?, ?)");
  for (size_t i = 0; i < result.rejections.size(); ++i) {
    const Rejection& x = result.rejections[i];
    rej.reset();
    rej.bind(1, run_id).bind(2, static_cast<int64_t>(i)).bind(3, x.node).bind(4, x.op_type);
    IG_RETURN_IF_ERROR(rej.bind(5, x.node_index).bind(6, x.reason).run());
  }
  IG_RETURN_IF_ERROR(write_outputs(run_id, result.trace, false, key));
  IG_RETURN_IF_ERROR(write_outputs(run_id, result.outputs, true, key));
  return true;
}

Status Store::write_outputs(int64_t run_id, const std::vector<TracedTensor>& tensors,
                            bool is_output, const RunKey& key) {
  // A value both traced and a graph output has one row, and the graph output's tensor wins: a
  // backend that traces a copy of the model (ORT) may compute the output another way, and the
  // output is what the platform computes. A trace added later never replaces a recorded row.
  const std::string on_conflict =
      is_output ? "hash = excluded.hash, dtype = excluded.dtype, shape = excluded.shape, "
                  "min = excluded.min, max = excluded.max, mean = excluded.mean, "
                  "nan_count = excluded.nan_count, inf_count = excluded.inf_count, is_output = 1"
                : "is_output = is_output";
  sql::Stmt o(db_, ("INSERT INTO node_outputs(run, node_index, value, node, op_type, hash, dtype, "
                    "shape, is_output, min, max, mean, nan_count, inf_count) "
                    "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT(run, value) DO UPDATE SET " +
                    on_conflict)
                       .c_str());
  // What the platform did at a node (e.g. "algo=winograd", "conv=direct (winograd4 needs stride
  // 1)") and which nodes a fused tensor covers: kept only where there is something to say; a
  // graph output's note replaces its trace's.
  sql::Stmt n(db_, is_output ? "INSERT OR REPLACE INTO node_notes(run, value, note, covers) "
                               "VALUES(?, ?, ?, ?)"
                             : "INSERT OR IGNORE INTO node_notes(run, value, note, covers) "
                               "VALUES(?, ?, ?, ?)");
  for (const auto& t : tensors) {
    if (!t.note.empty() || !t.covers.empty()) {
      n.reset();
      IG_RETURN_IF_ERROR(
          n.bind(1, run_id).bind(2, t.value).bind(3, t.note).bind(4, t.covers).run());
    }
    // A tensor the coordinator spilled (results/trace_memory.h) is read back, one at a time.
    IG_ASSIGN_OR_RETURN(const Tensor data, t.data());
    const Stats s = summarize(data);
    o.reset();
    o.bind(1, run_id).bind(2, t.node_index).bind(3, t.value).bind(4, t.node).bind(5, t.op_type);
    o.bind(6, hash_hex(t.hash)).bind(7, dtype_name(t.dtype)).bind(8, shape_json(t.shape));
    o.bind(9, is_output ? 1 : 0);
    bind_real_or_null(o, 10, s.min);
    bind_real_or_null(o, 11, s.max);
    bind_real_or_null(o, 12, s.mean);
    IG_RETURN_IF_ERROR(o.bind(13, s.nan).bind(14, s.inf).run());
    // Keyed by the hash the worker computed: the bytes are not hashed twice.
    if (data.defined())
      IG_RETURN_IF_ERROR(put_tensor(TensorKey{t.hash, t.dtype, t.shape}, data, &key, t.value));
  }
  return Status::Ok();
}

Status Store::add_trace(int64_t run, const std::vector<TracedTensor>& trace) {
  IG_ASSIGN_OR_RETURN(const StoredRun stored, this->run(run));
  Status st = [&]() -> Status {
    sql::Transaction tx(db_);
    IG_RETURN_IF_ERROR(tx.status());
    IG_RETURN_IF_ERROR(write_outputs(run, trace, false, stored.key));
    return tx.commit();
  }();
  if (st.ok()) {
    references_->commit();
  } else {
    references_->rollback();
  }
  return st;
}

Expected<int64_t> Store::count(const std::string& table) const {
  sql::Stmt st(db_, ("SELECT count(*) FROM " + table).c_str());
  IG_RETURN_IF_ERROR(st.status());
  const int64_t n = st.step() ? st.integer(0) : 0;
  IG_RETURN_IF_ERROR(st.status());
  return n;
}

}  // namespace ig
