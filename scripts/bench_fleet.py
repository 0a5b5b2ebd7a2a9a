#!/usr/bin/env python3
"""The fleet's throughput beside one process into SQLite (BENCHMARKS.md "Fleet").

usage: bench_fleet.py CLI OUT.json SQLITE_STORE -- CAMPAIGN_ARGS...
Registers the campaign (the same arguments that made SQLITE_STORE in this benchmark run) as a plan
of --shards jobs in a throwaway PostgreSQL server (tests/support/pg_server.py), runs it with three
local `infergap work` processes at once, and writes wall times, runs stored, duplicates and
whether every stored run's outputs match SQLITE_STORE's bit for bit.
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "support"))
from pg_server import PgServer  # noqa: E402

WORKERS = 3
SHARDS = int(os.environ.get("FLEET_SHARDS", "6"))


def outputs(path):
    db = sqlite3.connect(path)
    rows = db.execute("SELECT r.model, r.input, r.platform, r.repetition, r.verdict, o.value, "
                      "o.hash FROM runs r LEFT JOIN node_outputs o ON o.run = r.id "
                      "WHERE o.is_output = 1 OR o.run IS NULL").fetchall()
    db.close()
    return sorted(rows, key=repr)


def main():
    cli, out, sqlite_store = sys.argv[1], sys.argv[2], sys.argv[3]
    args = sys.argv[sys.argv.index("--") + 1:]
    with PgServer() as pg, tempfile.TemporaryDirectory() as tmp:
        url = pg.createdb("bench")
        t0 = time.monotonic()
        subprocess.run([cli, "campaign"] + args + ["--store", url, "--plan", "--shards",
                                                   str(SHARDS)], check=True,
                       stdout=subprocess.DEVNULL)
        t_plan = time.monotonic() - t0
        workers = [subprocess.Popen([cli, "work", "--store", url, "--json"],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
                   for _ in range(WORKERS)]
        summaries = [json.loads(w.communicate()[0]) for w in workers]
        t_all = time.monotonic() - t0
        runs = int(pg.psql("bench", "SELECT count(*) FROM runs"))
        dup = int(pg.psql("bench", "SELECT count(*) - count(DISTINCT (model, input, platform, "
                          "repetition)) FROM runs"))
        t1 = time.monotonic()
        pulled = os.path.join(tmp, "pulled.db")
        subprocess.run([cli, "merge", url, "-o", pulled], check=True, stdout=subprocess.DEVNULL)
        t_pull = time.monotonic() - t1
        same = outputs(pulled) == outputs(sqlite_store)
        pg_bytes = int(pg.psql("bench", "SELECT pg_database_size('bench')"))
    json.dump({"workers": WORKERS, "shards": SHARDS, "plan_seconds": t_plan,
               "wall_seconds": t_all, "runs": runs, "duplicates": dup,
               "jobs_done": [s["jobs_done"] for s in summaries],
               "jobs_failed": sum(s["jobs_failed"] for s in summaries),
               "pull_seconds": t_pull, "same_outputs_as_sqlite": same,
               "database_bytes": pg_bytes}, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
