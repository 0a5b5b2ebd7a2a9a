#include "store/pg_tables.h"

namespace ig {

const std::vector<PgTable>& pg_plain_tables() {
  static const std::vector<PgTable> tables = {
      {"meta", {{"key", 't'}, {"value", 't'}}, "key"},
      {"hosts", {{"id", 't'}, {"fingerprint", 't'}}, "id"},
      {"platforms", {{"spec", 't'}, {"host", 't'}, {"oracle", 'i'}}, "spec, host, oracle"},
      {"models", {{"hash", 't'}, {"path", 't'}, {"name", 't'}, {"lineage", 't'}}, "hash"},
      {"graph_nodes",
       {{"model", 't'},
        {"idx", 'i'},
        {"name", 't'},
        {"op_type", 't'},
        {"domain", 't'},
        {"inputs", 't'},
        {"outputs", 't'},
        {"attributes", 't'}},
       "model, idx"},
      {"inputs", {{"hash", 't'}, {"label", 't'}, {"recipe", 't'}}, "hash"},
      {"tensors",
       {{"hash", 't'}, {"dtype", 't'}, {"shape", 't'}, {"nbytes", 'i'}, {"data", 'b'}},
       "hash, dtype, shape",
       false,
       // A tensor a host did not keep (--keep-tensors none) takes another's bytes: blobs pushed
       // later may be XOR-encoded against it.
       "ON CONFLICT (hash, dtype, shape) DO UPDATE SET data = excluded.data "
       "WHERE tensors.data IS NULL AND excluded.data IS NOT NULL"},
      {"tensor_facts", {{"kind", 't'}, {"a", 't'}, {"b", 't'}, {"value", 'r'}}, "kind, a, b"},
  };
  return tables;
}

const PgTable& pg_runs_table() {
  static const PgTable runs = {"runs",
                               {{"id", 'i'},
                                {"model", 't'},
                                {"input", 't'},
                                {"platform", 't'},
                                {"host", 't'},
                                {"repetition", 'i'},
                                {"verdict", 't'},
                                {"reason", 't'},
                                {"repro", 't'},
                                {"seconds", 'r'}},
                               "model, input, platform, host, repetition"};
  return runs;
}

const std::vector<PgTable>& pg_run_tables() {
  static const std::vector<PgTable> tables = {
      {"node_outputs",
       {{"run", 'i'},
        {"node_index", 'i'},
        {"value", 't'},
        {"node", 't'},
        {"op_type", 't'},
        {"hash", 't'},
        {"dtype", 't'},
        {"shape", 't'},
        {"is_output", 'i'},
        {"min", 'r'},
        {"max", 'r'},
        {"mean", 'r'},
        {"nan_count", 'i'},
        {"inf_count", 'i'}},
       "run, value",
       true},
      {"node_notes",
       {{"run", 'i'}, {"value", 't'}, {"note", 't'}, {"covers", 't'}},
       "run, value",
       true},
      {"rejections",
       {{"run", 'i'},
        {"position", 'i'},
        {"node", 't'},
        {"op_type", 't'},
        {"node_index", 'i'},
        {"reason", 't'}},
       "run, position",
       true},
      {"self_checks",
       {{"run", 'i'},
        {"value", 't'},
        {"kind", 't'},
        {"spec", 't'},
        {"nodes", 't'},
        {"verdict", 't'},
        {"reason", 't'},
        {"hash", 't'},
        {"dtype", 't'},
        {"shape", 't'}},
       "run, value, kind",
       true},
  };
  return tables;
}

std::string pg_schema_sql() {
  // The SQLite schema (store.cpp) in PostgreSQL's types; the fleet's tables follow. The last
  // table made is the one pg_connect looks for to know the schema is complete.
  return R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS hosts(id TEXT PRIMARY KEY, fingerprint TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS platforms(spec TEXT NOT NULL, host TEXT NOT NULL,
  oracle BIGINT NOT NULL, PRIMARY KEY(spec, host, oracle));
CREATE TABLE IF NOT EXISTS models(hash TEXT PRIMARY KEY, path TEXT NOT NULL, name TEXT NOT NULL,
  lineage TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS graph_nodes(model TEXT NOT NULL, idx BIGINT NOT NULL,
  name TEXT NOT NULL, op_type TEXT NOT NULL, domain TEXT NOT NULL, inputs TEXT NOT NULL,
  outputs TEXT NOT NULL, attributes TEXT NOT NULL, PRIMARY KEY(model, idx));
CREATE TABLE IF NOT EXISTS inputs(hash TEXT PRIMARY KEY, label TEXT NOT NULL,
  recipe TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs(id BIGSERIAL PRIMARY KEY, model TEXT NOT NULL,
  input TEXT NOT NULL, platform TEXT NOT NULL, host TEXT NOT NULL, repetition BIGINT NOT NULL,
  verdict TEXT NOT NULL, reason TEXT NOT NULL, repro TEXT NOT NULL,
  seconds DOUBLE PRECISION NOT NULL, UNIQUE(model, input, platform, host, repetition));
CREATE TABLE IF NOT EXISTS node_outputs(run BIGINT NOT NULL REFERENCES runs(id),
  node_index BIGINT NOT NULL, value TEXT NOT NULL, node TEXT NOT NULL, op_type TEXT NOT NULL,
  hash TEXT NOT NULL, dtype TEXT NOT NULL, shape TEXT NOT NULL, is_output BIGINT NOT NULL,
  min DOUBLE PRECISION, max DOUBLE PRECISION, mean DOUBLE PRECISION, nan_count BIGINT,
  inf_count BIGINT, PRIMARY KEY(run, value));
CREATE TABLE IF NOT EXISTS tensors(hash TEXT NOT NULL, dtype TEXT NOT NULL, shape TEXT NOT NULL,
  nbytes BIGINT NOT NULL, data BYTEA, PRIMARY KEY(hash, dtype, shape));
CREATE TABLE IF NOT EXISTS node_notes(run BIGINT NOT NULL REFERENCES runs(id),
  value TEXT NOT NULL, note TEXT NOT NULL, covers TEXT NOT NULL, PRIMARY KEY(run, value));
CREATE TABLE IF NOT EXISTS rejections(run BIGINT NOT NULL REFERENCES runs(id),
  position BIGINT NOT NULL, node TEXT NOT NULL, op_type TEXT NOT NULL,
  node_index BIGINT NOT NULL, reason TEXT NOT NULL, PRIMARY KEY(run, position));
CREATE TABLE IF NOT EXISTS self_checks(run BIGINT NOT NULL REFERENCES runs(id),
  value TEXT NOT NULL, kind TEXT NOT NULL, spec TEXT NOT NULL, nodes TEXT NOT NULL,
  verdict TEXT NOT NULL, reason TEXT NOT NULL, hash TEXT NOT NULL, dtype TEXT NOT NULL,
  shape TEXT NOT NULL, PRIMARY KEY(run, value, kind));
CREATE TABLE IF NOT EXISTS fleet_plans(id BIGSERIAL PRIMARY KEY, command TEXT NOT NULL,
  args TEXT NOT NULL, cwd TEXT NOT NULL, shards BIGINT NOT NULL,
  every_host BOOLEAN NOT NULL DEFAULT false, created TIMESTAMPTZ NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS fleet_jobs(id BIGSERIAL PRIMARY KEY,
  plan BIGINT NOT NULL REFERENCES fleet_plans(id), shard BIGINT NOT NULL,
  scope TEXT NOT NULL DEFAULT '', state TEXT NOT NULL DEFAULT 'queued', worker TEXT, host TEXT, lease_until TIMESTAMPTZ,
  attempts BIGINT NOT NULL DEFAULT 0, runs_new BIGINT, runs_existing BIGINT, error TEXT,
  started TIMESTAMPTZ, finished TIMESTAMPTZ, UNIQUE(plan, shard, scope));
CREATE INDEX IF NOT EXISTS fleet_jobs_state ON fleet_jobs(state, id);
CREATE TABLE IF NOT EXISTS tensor_facts(kind TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL,
  value DOUBLE PRECISION NOT NULL, PRIMARY KEY(kind, a, b));
)sql";
}

}  // namespace ig
