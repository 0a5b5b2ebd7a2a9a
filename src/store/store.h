// The study store: one SQLite file per study (WAL), see DESIGN.md "Store". Hosts, platforms,
// models, inputs, runs and per-node outputs; tensors are kept once per content key,
// zstd-compressed. Each run is written whole (a batch of runs per transaction) and keyed by (model,
// input, platform, host, repetition), so a killed study resumes where it stopped and never records
// a run twice.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/enum_names.h"
#include "results/run_result.h"
#include "tensor/tensor.h"

struct sqlite3;

namespace ig {
class ReferenceIndex;
}

namespace ig {

// A tensor's identity in the store: content hash plus dtype and shape (bitwise identity needs all
// three; two tensors with the same bytes and another shape are different).
struct TensorKey {
  uint64_t hash = 0;
  DType dtype = DType::kUndefined;
  Shape shape;
  auto operator<=>(const TensorKey&) const = default;
  bool operator==(const TensorKey&) const = default;
  static TensorKey of(const Tensor& t);
};

// A number that depends only on the contents of tensors (the error of one against the oracle's,
// the remaining precision of a pair, ...), computed once by an analysis and kept, so that later
// analyses need not decode the tensors again (analysis/tensor_facts.h). Never stale: the tensors
// are named by their content.
struct TensorFact {
  std::string kind, a, b;
  double value = 0;
};

struct PruneCounts {
  int64_t tensors = 0, bytes = 0;  // dropped, and their encoded bytes
};

// Values of one case (model and input set) whose tensors a prune keeps on every run of the case.
struct CaseValues {
  std::string model, input;  // RunKey's hashes
  std::set<std::string> values;
};

struct RunKey {
  std::string model;  // model content hash (hex)
  std::string input;  // input-set hash (hex)
  std::string platform;
  std::string host;
  int repetition = 0;
  auto operator<=>(const RunKey&) const = default;
};

struct StoredRun {
  int64_t id = 0;
  RunKey key;
  Verdict verdict = Verdict::kError;
  std::string reason, repro;
  double seconds = 0;
};

struct StoredOutput {
  int64_t run = 0;
  int64_t node_index = -1;
  std::string value, node, op_type;
  TensorKey tensor;
  bool is_output = false;
  int64_t nan_count = 0, inf_count = 0;
  std::string note, covers;  // TracedTensor::note and ::covers ("" when the platform said nothing)
};

struct StoredNode {
  int64_t index = 0;
  std::string name, op_type, domain;
  std::vector<std::string> inputs, outputs;
  nlohmann::json attributes;
};

// The self-check (study/self_check.h) re-runs a span of nodes of a platform run alone, fed the
// values that run traced at the span's inputs: on the platform with its fusion off, and on the
// oracle.
enum class SelfCheckKind : uint8_t { kUnfused, kOracle, kCount };
inline constexpr auto kSelfCheckKindNames = std::to_array<std::string_view>({"unfused", "oracle"});
static_assert(names_cover_enum<SelfCheckKind>(kSelfCheckKindNames));
std::string_view self_check_kind_name(SelfCheckKind k);

struct StoredSelfCheck {
  int64_t run = 0;    // the platform run whose span was re-run
  std::string value;  // the span's output that was checked
  SelfCheckKind kind = SelfCheckKind::kUnfused;
  std::string spec;            // the platform that ran it
  std::vector<int64_t> nodes;  // the span's nodes (graph_nodes.idx)
  Verdict verdict = Verdict::kError;
  std::string reason;
  std::optional<TensorKey> tensor;  // `value` as the re-run computed it (verdict ok)
};

struct StoredModel {
  std::string hash, path, name;
  nlohmann::json lineage;
};

struct StoredInput {
  std::string hash, label;
  nlohmann::json recipe;
};

// What platform_libraries holds: the library a platform ran on a host, and its version.
struct PlatformLibrary {
  std::string spec;
  std::string host;
  std::string library;
  std::string version;
};

struct StoredHost {
  std::string id;
  nlohmann::json fingerprint;
};

// Bumped whenever a table or the meaning of a column changes. Version 2 added rejections and the
// version itself; stores of version 1 have no schema_version in meta. Version 3 added self_checks,
// and a graph output's row holds the tensor of the unmodified model where a traced copy differs.
// Version 4: a tensor's data may be a compact blob (byte planes, or XOR with another tensor of the
// same value; store/tensor_blob.h) instead of a bare zstd frame.
// Version 5: a tensor's bytes may be absent (tensors.data NULL after --keep-tensors none). A
// version-4 store is read and written as it is and becomes version 5 when it first holds a
// tensor without bytes, so that an older infergap refuses it instead of taking the missing bytes
// for present ones.
inline constexpr int kStoreSchemaVersion = 5;
inline constexpr int kOldestSchemaVersion = 4;
bool schema_version_supported(const std::string& version);
std::string supported_schema_versions();  // for messages: "versions 4 and 5"
// Marks a version-4 store (SQLite or PostgreSQL) that holds a tensor without bytes as version 5.
inline constexpr const char* kMarkTensorsWithoutBytes =
    "UPDATE meta SET value = '5' WHERE key = 'schema_version' AND value = '4' AND EXISTS "
    "(SELECT 1 FROM tensors WHERE data IS NULL)";

class Store {
 public:
  // Opens (creating if needed) the store at `path`. A postgresql:// URL opens a snapshot of that
  // store pulled into a temporary SQLite file (store/pg_store.h), removed when the Store closes;
  // push_to_remote() copies what was added to it back.
  static Expected<std::unique_ptr<Store>> open(const std::string& path);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  const std::string& path() const { return path_; }
  // The postgresql:// URL this store is a snapshot of ("" for a plain SQLite store).
  const std::string& remote() const { return remote_; }
  // Copies this snapshot's rows into its PostgreSQL store in one transaction (runs by key,
  // tensors by content: rows already there are kept). No-op for a plain SQLite store.
  Status push_to_remote();

  Status put_host(const StoredHost& host);
  // A spec may be recorded twice on a host: as a compared platform and as the oracle.
  Status put_platform(const std::string& spec, const std::string& host, bool oracle = false);
  Status put_model(const StoredModel& model, const std::vector<StoredNode>& nodes);
  Status put_input(const StoredInput& input, const std::vector<Tensor>& tensors);
  Status set_meta(const std::string& key, const std::string& value);
  std::optional<std::string> meta(const std::string& key) const;

  // Writes the run, its node outputs and their tensors in one transaction. Returns false (and
  // writes nothing) when a run with this key is already stored.
  Expected<bool> put_run(const RunKey& key, const RunResult& result);
  // Writes several runs in one transaction (a campaign's small runs cost mostly their commit):
  // all are stored or none is. Element i is false when run i's key was already stored.
  Expected<std::vector<bool>> put_runs(
      const std::vector<std::pair<RunKey, const RunResult*>>& runs);
  // The keys of the runs stored for `host`: a resumed study asks once instead of once per job.
  Expected<std::set<RunKey>> run_keys(const std::string& host) const;
  // Adds per-node outputs to a stored run (one transaction): a campaign captures graph outputs
  // first and reruns only the runs whose divergence it must locate with every layer. Values
  // already recorded for the run keep their row.
  Status add_trace(int64_t run, const std::vector<TracedTensor>& trace);

  Expected<std::vector<StoredHost>> hosts() const;
  struct PlatformRow {
    std::string spec, host;
    bool oracle = false;
  };
  Expected<std::vector<PlatformRow>> platforms() const;
  Expected<std::vector<StoredModel>> models() const;
  Expected<std::vector<StoredNode>> nodes(const std::string& model) const;
  Expected<std::vector<StoredInput>> inputs() const;
  Expected<std::vector<StoredRun>> runs() const;
  Expected<StoredRun> run(int64_t id) const;
  Expected<std::vector<StoredOutput>> outputs(int64_t run) const;
  // The nodes the platform refused in a run (verdict unsupported), in graph order.
  Expected<std::vector<Rejection>> rejections(int64_t run) const;
  // Every run's rejections, by run id (the campaign analysis reads them all at once).
  Expected<std::map<int64_t, std::vector<Rejection>>> all_rejections() const;
  Expected<Tensor> tensor(const TensorKey& key) const;
  // A self-check re-run and, when it ran ok, its tensor; a row already stored is kept.
  Status put_self_check(const StoredSelfCheck& row, const Tensor* tensor);
  // Every self-check re-run, by the run it checked.
  Expected<std::map<int64_t, std::vector<StoredSelfCheck>>> self_checks() const;
  Expected<int64_t> count(const std::string& table) const;
  Expected<std::vector<TensorFact>> tensor_facts() const;
  // Every platform's library and version, per host (written with its runs).
  Expected<std::vector<PlatformLibrary>> platform_libraries() const;
  // Facts already there are kept (they cannot differ: they are functions of content).
  Status put_tensor_facts(const std::vector<TensorFact>& facts);
  // Drops the bytes of every tensor no graph output, input, self-check re-run, value of `keep` or
  // tensor of `keep_tensors` needs (their rows and hashes stay; reading one says it was not kept),
  // and gives the space back.
  Expected<PruneCounts> drop_inner_tensors(const std::vector<CaseValues>& keep = {},
                                           const std::vector<TensorKey>& keep_tensors = {});

  // Unions the store at `other` into this one; existing runs (by key) are kept.
  // A store of another schema version is refused with both versions named.
  Status merge_from(const std::string& other);

  sqlite3* db() const { return db_; }

  // Re-creates the bytes of a tensor a --keep-tensors origins or none study dropped
  // (study/restore_tensors.h): called when a read finds the tensor's row without bytes; it puts
  // them back with restore_tensors() or says why it could not. Reads without one (and reads the
  // restorer itself makes) say the tensor was not kept.
  using TensorRestorer = std::function<Status(const TensorKey&)>;
  void set_tensor_restorer(TensorRestorer restorer) { restorer_ = std::move(restorer); }
  // Puts back the bytes of those tensors whose row has none (in one transaction, or in the
  // caller's); tensors with bytes or without a row are left alone. Returns how many got bytes.
  Expected<int64_t> restore_tensors(const std::vector<Tensor>& tensors);
  // The runs with verdict ok that traced `key` (as a node output), in run order.
  struct RunOfTensor {
    int64_t run = 0;
    std::string host;
  };
  Expected<std::vector<RunOfTensor>> runs_of_tensor(const TensorKey& key) const;

  // Bounds the tensors this Store holds in memory to `bytes` / 4 each (a study's --trace-budget:
  // half of it for the store): the references it XORs new tensors against (one dropped is read
  // back from the store when needed: what is written does not depend on the bound) and the
  // decoded references its reads share. Default 64 MiB each.
  void set_memory_budget(uint64_t bytes);

 private:
  Store();
  Status exec(const std::string& sql) const;
  Status put_tensor(const Tensor& t);
  // With `run` (the run whose value `value` the tensor is), the tensor is stored as the XOR with
  // the reference of that value in that case where there is one (store/reference_index.h).
  Status put_tensor(const TensorKey& key, const Tensor& t, const RunKey* run = nullptr,
                    const std::string& value = "");
  Expected<std::string> tensor_blob(const TensorKey& key) const;
  // A reference's tensor: from memory, else read back from the store.
  Expected<Tensor> reference_tensor(const TensorKey& key);
  Expected<Tensor> tensor_at_depth(const TensorKey& key, int depth) const;
  // Whether `schema` ("main" or an attached "src") has the table.
  Expected<bool> has_table(const std::string& name, const std::string& schema = "main") const;
  Status write_outputs(int64_t run, const std::vector<TracedTensor>& tensors, bool is_output,
                       const RunKey& key);
  // One run's rows, inside the caller's transaction.
  Expected<bool> write_run(const RunKey& key, const RunResult& result);
  static Expected<std::unique_ptr<Store>> open_remote(const std::string& url);
  sqlite3* db_ = nullptr;
  std::string path_;
  std::string remote_;          // postgresql:// URL when path_ is a temporary snapshot of it
  bool keep_snapshot_ = false;  // a failed push leaves the results there, not lost
  std::string oracle_;          // meta "oracle": its tensors become their values' references
  std::unique_ptr<ReferenceIndex> references_;
  // References (oracle tensors) decoded and in the dtype of the tensors read against them:
  // analyses read every platform's tensor of a value against the same reference.
  struct DecodedReferences;
  std::unique_ptr<DecodedReferences> decoded_;
  TensorRestorer restorer_;
};

// Ok when the store's schema (main, or an attached "src") is a supported version; otherwise an
// error naming `path` and the versions.
Status check_schema_version(const Store& store, const std::string& path,
                            const std::string& schema = "main");

// The error of reading a tensor whose bytes a --keep-tensors none study dropped (its hash and
// the facts computed from it stay): analyses skip what it blocks instead of failing.
bool tensor_not_kept(const Status& st);

std::string shape_json(const Shape& shape);
Expected<Shape> parse_shape_json(const std::string& text);

// An existing store (a SQLite file or a PostgreSQL URL); a missing file is an error instead of a
// new empty store.
Expected<std::unique_ptr<Store>> open_existing_store(const std::string& path);

}  // namespace ig
