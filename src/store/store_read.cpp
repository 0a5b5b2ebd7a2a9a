// Store: reading back, content-addressed tensors (zstd) and merging stores.
#include <sqlite3.h>

#include <cstring>
#include <memory>

#include "store/decoded_references.h"
#include "store/reference_index.h"
#include "store/sqlite_util.h"
#include "store/store.h"
#include "store/store_parse.h"
#include "store/tensor_blob.h"
#include "tensor/hash.h"

namespace ig {

namespace {

nlohmann::json parse_json(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  return j.is_discarded() ? nlohmann::json() : j;
}

std::vector<std::string> parse_strings(const std::string& text) {
  auto j = parse_json(text);
  return j.is_array() ? j.get<std::vector<std::string>>() : std::vector<std::string>{};
}

}  // namespace

Expected<uint64_t> parse_hash(const std::string& hex) {
  uint64_t h = 0;
  if (hex.size() != 16) return parse_error("bad tensor hash '{}' in store", hex);
  for (char c : hex) {
    const int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
    if (d < 0) return parse_error("bad tensor hash '{}' in store", hex);
    h = (h << 4) | static_cast<uint64_t>(d);
  }
  return h;
}

Expected<DType> parse_dtype(const std::string& name) {
  auto dt = dtype_from_name(name);
  if (!dt) return parse_error("unknown dtype '{}' in store", name);
  return *dt;
}

Status Store::put_tensor(const Tensor& t) { return put_tensor(TensorKey::of(t), t); }

Status Store::put_tensor(const TensorKey& key, const Tensor& t, const RunKey* run,
                         const std::string& value) {
  // String tensors are identified by hash only: their comparison needs no stored bytes.
  if (t.dtype() == DType::kString) return Status::Ok();
  const std::string hash = hash_hex(key.hash);
  const std::string dtype = dtype_name(key.dtype);
  const std::string shape = shape_json(key.shape);
  // A row without bytes (a store that kept no inner tensors) gets them: blobs written later by
  // another store may be XOR-encoded against this tensor.
  sql::Stmt exists(
      db_, "SELECT data IS NOT NULL FROM tensors WHERE hash = ? AND dtype = ? AND shape = ?");
  if (exists.bind(1, hash).bind(2, dtype).bind(3, shape).step() && exists.integer(0))
    return Status::Ok();
  IG_RETURN_IF_ERROR(exists.status());
  // Another platform's tensor of this value in this case agrees on most bits: XOR with it leaves
  // mostly zeros. The oracle's own tensor is stored plainly and becomes the reference.
  const std::string id = run ? ReferenceIndex::id(run->model, run->input, value) : "";
  const bool oracle = run && !oracle_.empty() && run->platform == oracle_;
  const ReferenceIndex::Entry* ref = id.empty() ? nullptr : references_->find(id);
  if (ref && (ref->key.shape != key.shape || (oracle && !ref->oracle) ||
              (ref->key.dtype != key.dtype && !(is_float(ref->key.dtype) && is_float(key.dtype)))))
    ref = nullptr;
  Tensor ref_tensor;
  if (ref) {
    IG_ASSIGN_OR_RETURN(ref_tensor, reference_tensor(ref->key));
  }
  IG_ASSIGN_OR_RETURN(std::string blob, encode_tensor_blob(t, ref ? &ref_tensor : nullptr,
                                                           ref ? &ref->key : nullptr));
  sql::Stmt ins(db_,
                "INSERT INTO tensors(hash, dtype, shape, nbytes, data) VALUES(?, ?, ?, ?, ?) "
                "ON CONFLICT(hash, dtype, shape) DO UPDATE SET data = excluded.data");
  ins.bind(1, hash).bind(2, dtype).bind(3, shape).bind(4, static_cast<int64_t>(t.nbytes()));
  IG_RETURN_IF_ERROR(ins.bind_blob(5, blob.data(), blob.size()).run());
  if (!ref && !id.empty()) {
    references_->offer(id, {key, oracle});
    references_->tensors().put(key, t);
  }
  return Status::Ok();
}

Expected<Tensor> Store::reference_tensor(const TensorKey& key) {
  if (const Tensor* t = references_->tensors().find(key)) return *t;
  // Dropped under the memory budget: read back (plain, and visible inside this transaction).
  IG_ASSIGN_OR_RETURN(Tensor t, tensor(key));
  references_->tensors().put(key, t);
  return t;
}

void Store::set_memory_budget(uint64_t bytes) {
  // Half of the study's budget (results/trace_memory.h), shared by the two caches.
  references_->tensors().set_budget(bytes / 4);
  decoded_->set_budget(bytes / 4);
}

namespace {
constexpr const char* kNotKept = "was not kept";
}  // namespace

bool tensor_not_kept(const Status& st) {
  return st.code() == StatusCode::kNotFound && st.message().find(kNotKept) != std::string::npos;
}

Expected<std::string> Store::tensor_blob(const TensorKey& key) const {
  const std::string hash = hash_hex(key.hash);
  sql::Stmt st(db_, "SELECT nbytes, data FROM tensors WHERE hash = ? AND dtype = ? AND shape = ?");
  st.bind(1, hash).bind(2, dtype_name(key.dtype)).bind(3, shape_json(key.shape));
  if (!st.step()) {
    IG_RETURN_IF_ERROR(st.status());
    return not_found("{}: no stored tensor {} {}{}", path_, hash, dtype_name(key.dtype),
                     shape_to_string(key.shape));
  }
  if (st.is_null(1)) {
    // The restorer re-runs a run on this host and puts the bytes back; the read it makes of the
    // run's inputs must not call it again.
    static thread_local bool restoring = false;
    std::string why;
    if (restorer_ && !restoring) {
      st.reset();
      restoring = true;
      const Status restored = restorer_(key);
      // Read again with the flag still set: a restorer that said ok without bytes ends here.
      if (restored.ok()) {
        auto again = tensor_blob(key);
        restoring = false;
        return again;
      }
      restoring = false;
      why = "; re-creating it: " + restored.message();
    }
    return not_found(
        "{}: tensor {} {}{} {} (the study ran with --keep-tensors none or origins, which keep "
        "graph outputs, inputs and the nodes where divergences are born; its hash and the "
        "numbers computed from it are kept){}",
        path_, hash, dtype_name(key.dtype), shape_to_string(key.shape), kNotKept, why);
  }
  const int64_t numel = shape_numel(key.shape);
  if (numel < 0 ||
      static_cast<uint64_t>(st.integer(0)) != static_cast<uint64_t>(numel) * dtype_size(key.dtype))
    return internal_error("{}: tensor {} has a wrong byte count", path_, hash);
  return std::string(st.blob(1));
}

Expected<Tensor> Store::tensor(const TensorKey& key) const { return tensor_at_depth(key, 0); }

Expected<Tensor> Store::tensor_at_depth(const TensorKey& key, int depth) const {
  // A reference is stored plainly where it was written; merged stores may chain a few.
  constexpr int kMaxChain = 8;
  const std::string hash = hash_hex(key.hash);
  if (depth > kMaxChain)
    return io_error("{}: tensor {} has a reference chain longer than {}", path_, hash, kMaxChain);
  IG_ASSIGN_OR_RETURN(std::string blob, tensor_blob(key));
  auto t = decode_tensor_blob_as(blob, key, [&](const TensorKey& ref, DType dtype) {
    return decoded_->get(ref, dtype, [&] { return tensor_at_depth(ref, depth + 1); });
  });
  if (!t.ok()) return t.status().with_context(path_ + ": tensor " + hash);
  if (tensor_hash(*t) != key.hash) return io_error("{}: tensor {} fails its hash", path_, hash);
  return t;
}

Expected<std::vector<StoredHost>> Store::hosts() const {
  std::vector<StoredHost> out;
  sql::Stmt st(db_, "SELECT id, fingerprint FROM hosts ORDER BY id");
  while (st.step()) out.push_back({st.text(0), parse_json(st.text(1))});
  IG_RETURN_IF_ERROR(st.status());
  return out;
}

Expected<std::vector<Store::PlatformRow>> Store::platforms() const {
  std::vector<PlatformRow> out;
  sql::Stmt st(db_, "SELECT spec, host, oracle FROM platforms ORDER BY rowid");
  while (st.step()) out.push_back({st.text(0), st.text(1), st.integer(2) != 0});
  IG_RETURN_IF_ERROR(st.status());
  return out;
}

Expected<std::vector<StoredModel>> Store::models() const {
  std::vector<StoredModel> out;
  sql::Stmt st(db_, "SELECT hash, path, name, lineage FROM models ORDER BY rowid");
  while (st.step()) out.push_back({st.text(0), st.text(1), st.text(2), parse_json(st.text(3))});
  IG_RETURN_IF_ERROR(st.status());
  return out;
}

Expected<std::vector<StoredNode>> Store::nodes(const std::string& model) const {
  std::vector<StoredNode> out;
  sql::Stmt st(db_,
               "SELECT idx, name, op_type, domain, inputs, outputs, attributes FROM graph_nodes "
               "WHERE model = ? ORDER BY idx");
  st.bind(1, model);
  while (st.step()) {
    out.push_back({st.integer(0), st.text(1), st.text(2), st.text(3), parse_strings(st.text(4)),
                   parse_strings(st.text(5)), parse_json(st.text(6))});
  }
  IG_RETURN_IF_ERROR(st.status());
  return out;
}

Expected<std::vector<StoredInput>> Store::inputs() const {
  std::vector<StoredInput> out;
  sql::Stmt st(db_, "SELECT hash, label, recipe FROM inputs ORDER BY rowid");
  while (st.step()) out.push_back({st.text(0), st.text(1), parse_json(st.text(2))});
  IG_RETURN_IF_ERROR(st.status());
  return out;
}

static constexpr const char* kRunColumns =
    "SELECT id, model, input, platform, host, repetition, verdict, reason, repro, seconds FROM "
    "runs";

static Expected<StoredRun> read_run(const sql::Stmt& st, const std::string& path) {
  StoredRun r;
  r.id = st.integer(0);
  r.key = {st.text(1), st.text(2), st.text(3), st.text(4), static_cast<int>(st.integer(5))};
  const std::string verdict = st.text(6);
  auto v = verdict_from_name(verdict);
  if (!v) return parse_error("{}: run {} has unknown verdict '{}'", path, r.id, verdict);
  r.verdict = *v;
  r.reason = st.text(7);
  r.repro = st.text(8);
  r.seconds = st.real(9);
  return r;
}

Expected<std::vector<StoredRun>> Store::runs() const {
  std::vector<StoredRun> out;
  sql::Stmt st(db_, (std::string(kRunColumns) + " ORDER BY id").c_str());
  while (st.step()) {
    IG_ASSIGN_OR_RETURN(StoredRun r, read_run(st, path_));
    out.push_back(std::move(r));
  }
  IG_RETURN_IF_ERROR(st.status());
  return out;
}

Expected<StoredRun> Store::run(int64_t id) const {
  sql::Stmt st(db_, (std::string(kRunColumns) + " WHERE id = ?").c_str());
  if (st.bind(1, id).step()) return read_run(st, path_);
  IG_RETURN_IF_ERROR(st.status());
  return not_found("{}: no run {}", path_, id);
}

Expected<std::vector<StoredOutput>> Store::outputs(int64_t run) const {
  std::vector<StoredOutput> out;
  sql::Stmt st(db_,
               "SELECT o.node_index, o.value, o.node, o.op_type, o.hash, o.dtype, o.shape, "
               "o.is_output, o.nan_count, o.inf_count, n.note, n.covers FROM node_outputs o "
               "LEFT JOIN node_notes n ON n.run = o.run AND n.value = o.value "
               "WHERE o.run = ? ORDER BY o.node_index, o.rowid");
  st.bind(1, run);
  while (st.step()) {
    StoredOutput o;
    o.run = run;
    o.node_index = st.integer(0);
    o.value = st.text(1);
    o.node = st.text(2);
    o.op_type = st.text(3);
    IG_ASSIGN_OR_RETURN(o.tensor.hash, parse_hash(st.text(4)));
    IG_ASSIGN_OR_RETURN(o.tensor.dtype, parse_dtype(st.text(5)));
    IG_ASSIGN_OR_RETURN(o.tensor.shape, parse_shape_json(st.text(6)));
    o.is_output = st.integer(7) != 0;
    o.nan_count = st.integer(8);
    o.inf_count = st.integer(9);
    o.note = st.text(10);
    o.covers = st.text(11);
    out.push_back(std::move(o));
  }
  IG_RETURN_IF_ERROR(st.status());
  return out;
}

namespace {

constexpr const char* kRejectionColumns =
    "SELECT run, node, op_type, node_index, reason FROM rejections ";

// The statement's rejection rows, by run id, each run's in position order.
Expected<std::map<int64_t, std::vector<Rejection>>> rejections_by_run(sql::Stmt& st) {
  std::map<int64_t, std::vector<Rejection>> out;
  while (st.step())
    out[st.integer(0)].push_back({st.text(1), st.text(2), st.integer(3), st.text(4)});
  IG_RETURN_IF_ERROR(st.status());
  return out;
}

}  // namespace

Expected<std::vector<Rejection>> Store::rejections(int64_t run) const {
  sql::Stmt st(db_, (std::string(kRejectionColumns) + "WHERE run = ? ORDER BY position").c_str());
  st.bind(1, run);
  IG_ASSIGN_OR_RETURN(auto by_run, rejections_by_run(st));
  return std::move(by_run[run]);
}

Expected<std::map<int64_t, std::vector<Rejection>>> Store::all_rejections() const {
  sql::Stmt st(db_, (std::string(kRejectionColumns) + "ORDER BY run, position").c_str());
  return rejections_by_run(st);
}

Expected<std::vector<PlatformLibrary>> Store::platform_libraries() const {
  std::vector<PlatformLibrary> out;
  IG_ASSIGN_OR_RETURN(const bool present, has_table("platform_libraries"));
  if (!present) return out;  // a store opened read-only from before the table
  sql::Stmt st(db_, "SELECT spec, host, library, version FROM platform_libraries");
  while (st.step()) out.push_back({st.text(0), st.text(1), st.text(2), st.text(3)});
  IG_RETURN_IF_ERROR(st.status());
  return out;
}

Expected<std::vector<TensorFact>> Store::tensor_facts() const {
  std::vector<TensorFact> out;
  sql::Stmt st(db_, "SELECT kind, a, b, value FROM tensor_facts");
  while (st.step()) out.push_back({st.text(0), st.text(1), st.text(2), st.real(3)});
  IG_RETURN_IF_ERROR(st.status());
  return out;
}

Status Store::put_tensor_facts(const std::vector<TensorFact>& facts) {
  if (facts.empty()) return Status::Ok();
  sql::Transaction tx(db_);
  IG_RETURN_IF_ERROR(tx.status());
  sql::Stmt st(db_, "INSERT OR IGNORE INTO tensor_facts(kind, a, b, value) VALUES(?, ?, ?, ?)");
  for (const auto& f : facts) {
    st.reset();
    IG_RETURN_IF_ERROR(st.bind(1, f.kind).bind(2, f.a).bind(3, f.b).bind(4, f.value).run());
  }
  return tx.commit();
}

Status Store::merge_from(const std::string& other) {
  {
    sql::Stmt att(db_, "ATTACH DATABASE ? AS src");
    IG_RETURN_IF_ERROR(att.bind(1, "file:" + other + "?mode=ro").run());
  }
  // Runs are matched on their natural key; node outputs follow their run's new id. A tensor one
  // side did not keep (--keep-tensors none) takes the other side's bytes: blobs merged in may be
  // XOR-encoded against it.
  Status st = [&]() -> Status {
    sql::Transaction tx(db_);
    IG_RETURN_IF_ERROR(tx.status());
    Status probe = exec("SELECT count(*) FROM src.runs, src.node_outputs LIMIT 1");
    if (!probe.ok()) return probe.with_context(other + " is not an infergap store");
    IG_RETURN_IF_ERROR(check_schema_version(*this, other, "src"));
    IG_RETURN_IF_ERROR(exec(R"sql(
INSERT OR IGNORE INTO meta SELECT * FROM src.meta;
INSERT OR IGNORE INTO hosts SELECT * FROM src.hosts;
INSERT OR IGNORE INTO platforms SELECT * FROM src.platforms;
INSERT OR IGNORE INTO models SELECT * FROM src.models;
INSERT OR IGNORE INTO graph_nodes SELECT * FROM src.graph_nodes;
INSERT OR IGNORE INTO inputs SELECT * FROM src.inputs;
INSERT INTO tensors SELECT * FROM src.tensors WHERE true
  ON CONFLICT(hash, dtype, shape) DO UPDATE SET data = excluded.data
  WHERE tensors.data IS NULL AND excluded.data IS NOT NULL;
INSERT OR IGNORE INTO runs(model, input, platform, host, repetition, verdict, reason, repro,
  seconds) SELECT model, input, platform, host, repetition, verdict, reason, repro, seconds
  FROM src.runs ORDER BY id;
INSERT OR IGNORE INTO node_outputs SELECT d.id, n.node_index, n.value, n.node, n.op_type, n.hash,
  n.dtype, n.shape, n.is_output, n.min, n.max, n.mean, n.nan_count, n.inf_count
  FROM src.node_outputs n JOIN src.runs s ON n.run = s.id
  JOIN main.runs d ON d.model = s.model AND d.input = s.input AND d.platform = s.platform
    AND d.host = s.host AND d.repetition = s.repetition;
INSERT OR IGNORE INTO node_notes SELECT d.id, n.value, n.note, n.covers
  FROM src.node_notes n JOIN src.runs s ON n.run = s.id
  JOIN main.runs d ON d.model = s.model AND d.input = s.input AND d.platform = s.platform
    AND d.host = s.host AND d.repetition = s.repetition;
INSERT OR IGNORE INTO rejections SELECT d.id, r.position, r.node, r.op_type, r.node_index, r.reason
  FROM src.rejections r JOIN src.runs s ON r.run = s.id
  JOIN main.runs d ON d.model = s.model AND d.input = s.input AND d.platform = s.platform
    AND d.host = s.host AND d.repetition = s.repetition;
INSERT OR IGNORE INTO self_checks SELECT d.id, c.value, c.kind, c.spec, c.nodes, c.verdict,
  c.reason, c.hash, c.dtype, c.shape
  FROM src.self_checks c JOIN src.runs s ON c.run = s.id
  JOIN main.runs d ON d.model = s.model AND d.input = s.input AND d.platform = s.platform
    AND d.host = s.host AND d.repetition = s.repetition;
)sql"));
    IG_ASSIGN_OR_RETURN(const bool has_libraries, has_table("platform_libraries", "src"));
    if (has_libraries) {
      IG_RETURN_IF_ERROR(
          exec("INSERT OR IGNORE INTO platform_libraries SELECT * FROM src.platform_libraries"));
    }
    IG_ASSIGN_OR_RETURN(const bool has_facts, has_table("tensor_facts", "src"));
    if (has_facts)
      IG_RETURN_IF_ERROR(exec("INSERT OR IGNORE INTO tensor_facts SELECT * FROM src.tensor_facts"));
    IG_RETURN_IF_ERROR(exec(kMarkTensorsWithoutBytes));
    return tx.commit();
  }();
  IG_RETURN_IF_ERROR(exec("DETACH DATABASE src"));
  return st;
}

}  // namespace ig
