// Tensor facts (analysis/tensor_facts.h): what a study learns from its tensors gives `compare`
// exactly the numbers that decoding the tensors gives, and `compare` no longer needs the tensors.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>

#include "../support/cli.h"
#include "../support/mini_resnet.h"
#include "../support/onnx_builder.h"

namespace ig {
namespace {

using testing::cli_json;
using testing::run_cli;
using testing::TempDir;

int64_t sql_count(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
  const int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n;
}

void sql_exec(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(h);
}

// `j` with the store's path replaced, so that two stores' answers can be compared.
nlohmann::json without_paths(const nlohmann::json& j, const std::string& path) {
  std::string text = j.dump();
  for (size_t at = text.find(path); at != std::string::npos; at = text.find(path, at))
    text.replace(at, path.size(), "STORE");
  return nlohmann::json::parse(text);
}

TEST(TensorFactsCli, CompareFromKeptFactsEqualsCompareFromTensors) {
  TempDir dir;
  const std::string model = testing::write_model(testing::mini_resnet(), dir.file("m.onnx"));
  const std::string db = dir.file("s.db");
  // Platforms that split at different layers, and the fp64 oracle: every kind of fact.
  const auto study = run_cli("study --model " + model +
                             " -p ref -p ref:acc=lanes8 -p ref:fma=on --inputs 2 --no-report "
                             "--no-self-check --keep-tensors classes --store " +
                             db);
  ASSERT_EQ(study.exit_code, 0) << study.err;
  for (const char* kind : {"oracle_error", "rp", "deviating"})
    EXPECT_GT(
        sql_count(db, std::string("SELECT count(*) FROM tensor_facts WHERE kind = '") + kind + "'"),
        0)
        << kind;

  // The numbers computed again from the tensors, in a copy without facts.
  const std::string bare = dir.file("bare.db");
  std::filesystem::copy_file(db, bare);
  sql_exec(bare, "DELETE FROM tensor_facts");
  const auto from_tensors = cli_json("compare --layers --json --store " + bare);
  ASSERT_TRUE(from_tensors.contains("cases"));
  EXPECT_GT(sql_count(bare, "SELECT count(*) FROM tensor_facts"), 0)
      << "compare keeps what it computed";

  // With the facts, inner-layer tensors are not read at all: overwrite them with garbage.
  sql_exec(db,
           "UPDATE tensors SET data = x'00' WHERE NOT EXISTS (SELECT 1 FROM node_outputs o "
           "WHERE o.hash = tensors.hash AND o.is_output = 1)");
  const auto from_facts = cli_json("compare --layers --json --store " + db);
  ASSERT_TRUE(from_facts.contains("cases"));
  nlohmann::json a = from_facts, b = from_tensors;
  EXPECT_EQ(a, b);
  // Not a trivial study: layers split, and platforms differ from the oracle.
  bool split = false, erred = false;
  for (const auto& c : from_facts["cases"])
    for (const auto& row : c["layers"]) {
      split |= row["eqc_count"].get<int>() > 1;
      for (const auto& [p, e] : row["oracle_errors"].items()) erred |= e.is_number() && e > 0;
    }
  EXPECT_TRUE(split);
  EXPECT_TRUE(erred);
}

std::string sql_text(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
  std::string out;
  if (sqlite3_step(st) == SQLITE_ROW)
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

// The same study of mini_resnet on three platforms twice: once keeping every tensor, once with
// `--keep-tensors keep`, which must drop some. `study` is the command, a store path to follow.
struct TwoStores {
  std::string study, all, pruned;
};
TwoStores study_kept_and_pruned(TempDir& dir, const std::string& keep) {
  const std::string model = testing::write_model(testing::mini_resnet(), dir.file("m.onnx"));
  const std::string study = "study --model " + model +
                            " -p ref -p ref:acc=lanes8 -p ref:fma=on --inputs 2 --no-report "
                            "--json --store ";
  const TwoStores s{study, dir.file("classes.db"), dir.file(keep + ".db")};
  cli_json(study + s.all + " --keep-tensors classes");
  const auto summary = cli_json(study + s.pruned + " --keep-tensors " + keep);
  EXPECT_GT(summary["tensors_dropped"]["tensors"].get<int64_t>(), 0);
  return s;
}

// Inner tensors' bytes are gone from the pruned store, their hashes stay (every layer row is still
// there), and each command answers on it what it answers on the whole store.
void expect_rows_and_answers_kept(const TwoStores& s, const std::vector<std::string>& commands) {
  EXPECT_GT(sql_count(s.pruned, "SELECT count(*) FROM tensors WHERE data IS NULL"), 0);
  EXPECT_EQ(sql_count(s.pruned, "SELECT count(*) FROM node_outputs"),
            sql_count(s.all, "SELECT count(*) FROM node_outputs"));
  for (const auto& command : commands) {
    const auto a = without_paths(cli_json(command + " --store " + s.all), s.all);
    const auto b = without_paths(cli_json(command + " --store " + s.pruned), s.pruned);
    EXPECT_EQ(a, b) << command;
  }
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// An inner layer the pruned store dropped: reading it re-runs its run on this host, checks every
// stored hash and puts the bytes back (the same .npy as from the store that kept it); where the
// re-run cannot be trusted (a run's other values come back with other bits, the model file is
// gone) it says the tensor was not kept, and why.
void expect_dropped_tensor_is_rerun(TempDir& dir, const TwoStores& s, const std::string& run,
                                    const std::string& inner) {
  const std::string pruned = dir.file("rerun.db");
  std::filesystem::copy_file(s.pruned, pruned);
  const std::string model = sql_text(pruned, "SELECT path FROM models");
  // Every run of the value's case that traced it, with one other value's hash changed.
  const std::string other =
      sql_text(pruned, "SELECT value FROM node_outputs WHERE is_output = 0 AND value != '" + inner +
                           "' AND run = " + run + " ORDER BY node_index DESC LIMIT 1");
  sql_exec(pruned, "UPDATE node_outputs SET hash = '0000000000000001' WHERE value = '" + other +
                       "' AND run IN (SELECT run FROM node_outputs WHERE value = '" + inner +
                       "' AND hash = (SELECT hash FROM node_outputs WHERE run = " + run +
                       " AND value = '" + inner + "'))");
  const std::string npy = dir.file("x.npy");
  const std::string exporting = " --run " + run + " --node " + inner + " -o " + npy;
  auto r = run_cli("export --store " + pruned + exporting);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("was not kept (the study ran with --keep-tensors none or origins"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("gave other bits at " + other), std::string::npos) << r.err;

  std::filesystem::rename(model, model + ".moved");
  r = run_cli("export --store " + s.pruned + exporting);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("re-creating it: its model file " + model + " is gone"), std::string::npos)
      << r.err;
  std::filesystem::rename(model + ".moved", model);

  const std::string null_rows = "SELECT count(*) FROM tensors WHERE data IS NULL";
  const int64_t dropped = sql_count(s.pruned, null_rows);
  r = run_cli("export --store " + s.pruned + exporting);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("same bits as stored at all"), std::string::npos) << r.err;
  EXPECT_LT(sql_count(s.pruned, null_rows), dropped);  // the run's other layers came back too
  const std::string kept = dir.file("kept.npy");
  r = run_cli("export --store " + s.all + " --run " + run + " --node " + inner + " -o " + kept);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(file_bytes(npy), file_bytes(kept));
}

TEST(TensorFactsCli, KeepTensorsNoneGivesTheSameComparisonInASmallerStore) {
  TempDir dir;
  const TwoStores stores = study_kept_and_pruned(dir, "none");
  const std::string &study = stores.study, &all = stores.all, &none = stores.pruned;
  const std::string bytes = "SELECT coalesce(sum(length(data)), 0) FROM tensors";
  EXPECT_LT(sql_count(none, bytes), sql_count(all, bytes) / 2);
  expect_rows_and_answers_kept(stores,
                               {"compare --json", "compare --layers --json", "origins --json"});

  // Graph outputs can be exported; an inner layer says it was not kept.
  const std::string run = sql_text(none, "SELECT min(run) FROM node_outputs");
  const std::string output =
      sql_text(none, "SELECT value FROM node_outputs WHERE is_output = 1 AND run = " + run);
  auto r = run_cli("export --store " + none + " --run " + run + " --node " + output + " -o " +
                   dir.file("y.npy"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string inner =
      sql_text(none,
               "SELECT o.value FROM node_outputs o JOIN tensors t ON t.hash = o.hash AND t.dtype = "
               "o.dtype AND t.shape = o.shape WHERE t.data IS NULL AND o.run = " +
                   run);
  expect_dropped_tensor_is_rerun(dir, stores, run, inner);

  // Merged with a store that kept them, the tensors come back (the `none` store first, so its
  // rows without bytes are there before the other store's).
  const std::string merged = dir.file("merged.db");
  r = run_cli("merge " + none + " " + all + " -o " + merged);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(sql_count(merged, "SELECT count(*) FROM tensors WHERE data IS NULL"), 0);
  const std::string merged_run = sql_text(
      merged,
      "SELECT min(o.run) FROM node_outputs o JOIN runs r ON r.id = o.run WHERE o.value = '" +
          inner + "'");
  r = run_cli("export --store " + merged + " --run " + merged_run + " --node " + inner + " -o " +
              dir.file("m.npy"));
  EXPECT_EQ(r.exit_code, 0) << r.err;

  // A version-4 store (before tensors could lack bytes) is read, and becomes version 5 once it
  // holds a tensor without bytes, by a merge or a --keep-tensors none study: an older infergap
  // then refuses it instead of taking the missing bytes for present ones.
  const std::string version = "SELECT value FROM meta WHERE key = 'schema_version'";
  EXPECT_EQ(sql_text(none, version), "5");
  sql_exec(all, "UPDATE meta SET value = '4' WHERE key = 'schema_version'");
  cli_json("compare --json --store " + all);
  EXPECT_EQ(sql_text(all, version), "4");
  const std::string old = dir.file("old.db");
  std::filesystem::copy_file(all, old);
  r = run_cli("merge " + none + " -o " + old);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(sql_text(old, version), "4");  // the bytes it lacked were all there
  sql_exec(none, "UPDATE meta SET value = '4' WHERE key = 'schema_version'");
  const std::string empty = dir.file("v4.db");
  cli_json(study + empty + " --no-self-check --layers outputs");
  sql_exec(empty, "UPDATE meta SET value = '4' WHERE key = 'schema_version'");
  r = run_cli("merge " + none + " -o " + empty);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(sql_text(empty, version), "5");
  cli_json(study + all + " --keep-tensors none");
  EXPECT_EQ(sql_text(all, version), "5");
}

// --keep-tensors origins: the tensors of the nodes where divergences are born stay
// on every run of their case, so explain reads them; other inner layers go, and compare, compare
// --layers and origins give what a store that kept every tensor gives.
TEST(TensorFactsCli, KeepTensorsOriginsKeepsWhatExplainReads) {
  TempDir dir;
  const TwoStores stores = study_kept_and_pruned(dir, "origins");
  const std::string &all = stores.all, &kept = stores.pruned;
  const std::string bytes = "SELECT coalesce(sum(length(data)), 0) FROM tensors";
  EXPECT_LT(sql_count(kept, bytes), sql_count(all, bytes));
  // Inner layers that are no origin's are gone, their rows stay; the answers are the same.
  expect_rows_and_answers_kept(stores,
                               {"compare --json", "compare --layers --json", "origins --json"});
  // Every origin's inputs and outputs have their bytes on every run.
  const auto origins = cli_json("origins --json --store " + kept);
  std::set<std::string> values;
  for (const auto& o : origins["set"]) {
    for (const auto& v : o["inputs"]) values.insert(v.get<std::string>());
    for (const auto& v : o["outputs"]) values.insert(v.get<std::string>());
  }
  ASSERT_FALSE(values.empty()) << origins.dump();
  for (const auto& v : values) {
    EXPECT_EQ(sql_count(kept,
                        "SELECT count(*) FROM node_outputs o JOIN tensors t ON t.hash = o.hash AND "
                        "t.dtype = o.dtype AND t.shape = o.shape WHERE t.data IS NULL AND "
                        "o.value = '" +
                            v + "'"),
              0)
        << v;
  }
  // explain of the first split reads the kept tensors and says what classes' store says.
  const std::string node = origins["set"][0]["node"].get<std::string>();
  for (const std::string platform : {"ref:acc=lanes8", "ref:fma=on"}) {
    const std::string explain =
        "explain --json --max-trials 40 --platform " + platform + " --node " + node + " --store ";
    const auto a = without_paths(cli_json(explain + all), all);
    const auto b = without_paths(cli_json(explain + kept), kept);
    EXPECT_EQ(a, b) << platform;
  }
}

// Run ids depend on the order runs were stored in: dropped where two stores are compared.
nlohmann::json without_run_ids(nlohmann::json j) {
  if (j.is_object()) {
    j.erase("run");
    j.erase("runs");
  }
  if (j.is_structured())
    for (auto& v : j) v = without_run_ids(v);
  return j;
}

// A platform added to a store that dropped its inner tensors: the earlier platforms' runs are
// re-run on this host for the layers it is compared on, and the store answers what a store of all
// three platforms at once answers.
TEST(TensorFactsCli, APlatformAddedToAPrunedStoreIsComparedLayerByLayer) {
  TempDir dir;
  const std::string model = testing::write_model(testing::mini_resnet(), dir.file("m.onnx"));
  const std::string store = dir.file("none.db"), at_once = dir.file("at_once.db");
  const std::string study = "study --model " + model + " --inputs 2 --no-report --json";
  const std::string two = " -p ref -p ref:acc=lanes8 --keep-tensors none";
  cli_json(study + " --store " + store + two);
  auto r = run_cli(study + " --store " + store + two + " -p ref:fma=on");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("not all computed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("same bits as stored"), std::string::npos) << r.err;
  cli_json(study + " --store " + at_once + two + " -p ref:fma=on");
  for (const std::string command : {"compare --json", "compare --layers --json", "origins --json"})
    EXPECT_EQ(without_run_ids(without_paths(cli_json(command + " --store " + store), store)),
              without_run_ids(without_paths(cli_json(command + " --store " + at_once), at_once)))
        << command;
}

// The same where the earlier runs were made on another machine: this host's bits cannot stand
// for theirs, so the added platform's runs are stored and compared by their outputs; the
// per-layer numbers and self-checks it cannot have are noted, not fatal.
TEST(TensorFactsCli, APlatformAddedToAnotherHostsPrunedStoreIsStored) {
  TempDir dir;
  const std::string model = testing::write_model(testing::mini_resnet(), dir.file("m.onnx"));
  const std::string store = dir.file("none.db");
  const std::string study = "study --model " + model + " --inputs 2 --no-report --json --store " +
                            store + " --keep-tensors none -p ref -p ref:acc=lanes8";
  cli_json(study);
  sql_exec(store,
           "UPDATE hosts SET fingerprint = json_set(fingerprint, '$.tag', 'elsewhere', "
           "'$.cpu_model', 'another CPU')");
  const int64_t runs = sql_count(store, "SELECT count(*) FROM runs");
  const auto r = run_cli(study + " -p ref:fma=on");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("per-layer numbers of 2 of 2 cases not all computed"), std::string::npos)
      << r.err;
  EXPECT_EQ(sql_count(store, "SELECT count(*) FROM runs"), runs + 2);
  const auto compared = cli_json("compare --json --store " + store);
  EXPECT_EQ(compared["platforms"].size(), 3u) << compared.dump();  // the oracle is apart
  ASSERT_EQ(compared["notes"].size(), 2u) << compared.dump();      // one per case
  EXPECT_NE(compared["notes"][0].get<std::string>().find("no divergence origins for ref:fma=on"),
            std::string::npos)
      << compared.dump();
  for (const auto& o : compared["oracle_origins"])
    EXPECT_NE(o["platform"], "ref:fma=on") << o.dump();
  // Per layer there is nothing to say about it but why.
  const auto layers = run_cli("compare --layers --json --store " + store);
  EXPECT_EQ(layers.exit_code, 2);
  EXPECT_NE(layers.err.find("was not kept"), std::string::npos) << layers.err;
}

}  // namespace
}  // namespace ig
