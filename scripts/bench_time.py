"""Times a whole command N times; writes the times, their median and the stores' sizes and runs.

usage: bench_time.py N OUT.json [--store DB]... [--stdout FILE] -- COMMAND...
(--stdout keeps the last run's standard output in FILE.)
"""
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import time

n, out = int(sys.argv[1]), sys.argv[2]
rest = sys.argv[3:]
split = rest.index("--")
stores = [rest[i + 1] for i in range(0, split, 2) if rest[i] == "--store"]
keep = next((rest[i + 1] for i in range(0, split, 2) if rest[i] == "--stdout"), None)
cmd = rest[split + 1:]
times = []
for _ in range(n):
    t0 = time.monotonic()
    with open(keep, "w") if keep else open(os.devnull, "w") as sink:
        subprocess.run(cmd, check=True, stdout=sink)
    times.append(time.monotonic() - t0)


def store_info(path):
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    runs = db.execute("SELECT count(*) FROM runs").fetchone()[0]
    platforms = db.execute("SELECT count(DISTINCT platform) FROM runs").fetchone()[0]
    verdicts = dict(db.execute("SELECT verdict, count(*) FROM runs GROUP BY verdict").fetchall())
    db.close()
    return {"path": path, "bytes": os.path.getsize(path), "runs": runs, "platforms": platforms,
            "verdicts": verdicts}


json.dump({"command": " ".join(cmd), "times": times, "median": statistics.median(times),
           "stores": [store_info(s) for s in stores]}, open(out, "w"), indent=1)
