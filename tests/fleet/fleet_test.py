#!/usr/bin/env python3
"""The fleet against a real PostgreSQL server (ctest label `fleet`).

Starts its own server (tests/support/pg_server.py), then checks: bad URLs, wrong credentials and a
store of another schema version fail with exit 2 and the password redacted; a study plan run by
three concurrent `infergap work` processes, one SIGKILLed mid-job, stores every run exactly once
with intact rows and the same tensors (hashes) as the same study run into SQLite; `status`
reports it; the Slurm array script runs a campaign plan when executed without Slurm.
"""
import argparse
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from pg_server import PASSWORD, PgServer  # noqa: E402
import slurm_cluster  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PLATFORMS = ["-p", "ref", "-p", "ref:acc=lanes8"]
CASES = 12
SHARDS = 4
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def cli(args, **kw):
    return subprocess.run([CLI] + args, capture_output=True, text=True, **kw)


def json_of(r, what):
    if r.returncode not in (0, 1):
        raise SystemExit(f"{what}: exit {r.returncode}\n{r.stderr}")
    return json.loads(r.stdout)


def bad_input(pg):
    unreachable = f"postgresql://infergap:{PASSWORD}@/postgres?host=/nonexistent-dir&port=1"
    r = cli(["status", "--store", unreachable])
    check(r.returncode == 2, f"unreachable server: exit 2 (got {r.returncode})")
    check("cannot connect to postgresql://infergap:***@" in r.stderr and PASSWORD not in r.stderr,
          "unreachable server: the error names the URL with the password redacted: "
          + r.stderr.strip()[:160])
    wrong = pg.url(password="hunter2-wrong")
    r = cli(["compare", "--store", wrong])
    check(r.returncode == 2 and "password authentication failed" in r.stderr
          and "hunter2-wrong" not in r.stderr and "***" in r.stderr,
          "wrong credentials: exit 2, named, redacted: " + r.stderr.strip()[:160])
    old = pg.createdb("old_version")
    pg.psql("old_version", "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            "INSERT INTO meta VALUES('schema_version', '3')")
    r = cli(["compare", "--store", old])
    check(r.returncode == 2 and "schema version 3" in r.stderr and "versions 4 and 5" in r.stderr,
          "store of another schema version refused: " + r.stderr.strip()[:160])
    tables = pg.psql("old_version", "SELECT count(*) FROM pg_tables WHERE schemaname='public'")
    check(tables == "1", f"nothing written to the other version's store ({tables} tables)")
    r = cli(["study", "--model", "x.onnx", "--store", "local.db", "--plan"])
    check(r.returncode == 2 and "--plan needs a postgresql:// store" in r.stderr,
          "--plan without a server: exit 2 and why")


def failing_job(pg, tmp):
    """Bad input fails at --plan when it can be seen there, and a job that fails on bad input
    (exit 2: its model vanished) is marked failed at once, with the error, not retried."""
    url = pg.createdb("failing")
    r = cli(["study", "--model", "missing.onnx", "-p", "ref", "--store", url, "--plan"])
    check(r.returncode == 2 and "missing.onnx: no such model file" in r.stderr,
          "--plan of a missing model: exit 2 naming it " + r.stderr.strip()[-120:])
    model = os.path.join(tmp, "vanishing.onnx")
    assert cli(["zoo", "export", "Cifar10-small", "-o", model]).returncode == 0
    json_of(cli(["study", "--model", model, "-p", "ref", "--store", url, "--plan", "--shards",
                 "1", "--json"]), "plan")
    os.remove(model)
    r = cli(["work", "--store", url, "--json"])
    check(r.returncode == 1 and json.loads(r.stdout)["jobs_failed"] == 1,
          f"the worker reports the failed job (exit {r.returncode})")
    status = json_of(cli(["status", "--store", url, "--json"]), "status")
    attempts = pg.psql("failing", "SELECT attempts FROM fleet_jobs")
    check(status["jobs"]["failed"] == 1 and attempts == "1"
          and "vanishing.onnx" in status["failed"][0]["error"],
          f"failed once, not retried, the error kept: {status['failed']}")


def read_only_role(pg, tmp):
    """A role that may only read analyses a store made already (no DDL at connect); a study it
    cannot copy in exits 3 and keeps its results in the snapshot it names, and `merge` copies
    them in later: hours of runs are not lost to a failing final push."""
    url = pg.createdb("readonly")
    model = os.path.join(tmp, "readonly.onnx")
    assert cli(["zoo", "export", "Cifar10-small", "-o", model]).returncode == 0
    json_of(cli(["study", "--model", model, "-p", "ref", "--oracle", "none", "--store", url,
                 "--json"]), "study as owner")
    pg.psql("readonly", "CREATE ROLE reader LOGIN PASSWORD 'reader-pw';"
            "GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader")
    reader = url.replace(f":{PASSWORD}@", ":reader-pw@").replace("//infergap:", "//reader:")
    r = cli(["compare", "--store", reader, "--json"])
    check(r.returncode == 0, "a read-only role compares a made store " + r.stderr.strip()[-160:])
    r = cli(["study", "--model", model, "-p", "ref", "--oracle", "none", "--host-tag", "second",
             "--store", reader])
    kept = re.search(r"the results are kept in (\S+):", r.stderr)
    check(r.returncode == 3 and "permission denied" in r.stderr and kept is not None
          and "reader-pw" not in r.stderr,
          f"a push refused by the server: exit 3 (got {r.returncode}), why, where the results "
          "are: " + r.stderr.strip()[-240:])
    if kept is None:
        return
    snapshot = kept.group(1)
    check(os.path.exists(snapshot), f"the snapshot {snapshot} is still there")
    before = int(pg.psql("readonly", "SELECT count(*) FROM runs"))
    r = cli(["merge", snapshot, "-o", url])
    after = int(pg.psql("readonly", "SELECT count(*) FROM runs"))
    check(r.returncode == 0 and after == before + 1,
          f"merge copies the kept results in ({before} -> {after} runs) " + r.stderr[-160:])
    os.remove(snapshot)


def keep_tensors_none(pg, tmp):
    """A study that kept no inner tensors pushes their rows without bytes; a later push of the
    same tensors (another host) fills them in, so blobs encoded against them stay readable."""
    url = pg.createdb("keepnone")
    model = os.path.join(tmp, "keepnone.onnx")
    assert cli(["zoo", "export", "Cifar10-small", "-o", model]).returncode == 0
    json_of(cli(["study", "--model", model, "-p", "ref", "-p", "ref:acc=lanes8", "--store", url,
                 "--keep-tensors", "none", "--json"]), "study --keep-tensors none")
    empty = int(pg.psql("keepnone", "SELECT count(*) FROM tensors WHERE data IS NULL"))
    facts = int(pg.psql("keepnone", "SELECT count(*) FROM tensor_facts"))
    check(empty > 0 and facts > 0,
          f"pushed without inner bytes ({empty} tensors), with its tensor facts ({facts})")
    json_of(cli(["study", "--model", model, "-p", "ref", "-p", "ref:acc=lanes8", "--store", url,
                 "--host-tag", "second", "--keep-tensors", "classes", "--json"]),
            "study on a second host")
    empty = int(pg.psql("keepnone", "SELECT count(*) FROM tensors WHERE data IS NULL"))
    r = cli(["compare", "--layers", "--json", "--store", url])
    check(empty == 0 and r.returncode == 0,
          f"a second host's push filled the bytes in ({empty} left without), compare --layers "
          f"exit {r.returncode} " + r.stderr[-160:])


GATE_MODEL = """
import sys, numpy as np, torch
class Gate(torch.nn.Module):
    def forward(self, x):
        return torch.sigmoid(x.reshape(1, 8, 8) * 1.5)
torch.onnx.export(Gate(), torch.zeros(1, 64), sys.argv[1], opset_version=13, input_names=["x"],
                  output_names=["gate"])
v = -(40.0 / 3) - np.arange(64, dtype=np.float32) * (40.0 / 63)
np.save(sys.argv[2], v.astype(np.float32).reshape(1, 64))
"""


def incremental_push(pg, tmp):
    """A study into a URL pushes back only what it added to the snapshot it pulled: new runs, and
    rows added to runs pulled earlier (self-check re-runs). The store ends up as the same two
    studies into SQLite."""
    url = pg.createdb("incremental")
    model = os.path.join(tmp, "incremental.onnx")
    assert cli(["zoo", "export", "Cifar10-small", "-o", model]).returncode == 0
    local = os.path.join(tmp, "incremental.db")
    for store in (url, local):
        for platforms in (["-p", "ref"], ["-p", "ref", "-p", "ref:acc=lanes8"]):
            json_of(cli(["study", "--model", model, *platforms, "--store", store, "--no-report",
                         "--json"]), "study " + " ".join(platforms))
    pulled = os.path.join(tmp, "incremental-pulled.db")
    r = cli(["merge", url, "-o", pulled])
    check(r.returncode == 0 and outputs_of_sqlite(pulled) == outputs_of_sqlite(local),
          "two studies into PostgreSQL store what they store into SQLite " + r.stderr[-160:])
    counts = lambda db, t: sqlite3.connect(db).execute(f"SELECT count(*) FROM {t}").fetchone()[0]
    check(all(counts(pulled, t) == counts(local, t) for t in ("tensors", "tensor_facts", "runs")),
          "the same tensors, tensor facts and runs: " + ", ".join(
              f"{t} {counts(pulled, t)}/{counts(local, t)}" for t in ("tensors", "tensor_facts",
                                                                      "runs")))
    gate, x = os.path.join(tmp, "gate.onnx"), os.path.join(tmp, "gate_x.npy")
    if subprocess.run(["/usr/bin/python3", "-c", GATE_MODEL, gate, x],
                      capture_output=True).returncode != 0:
        print("skip the self-check part: no torch to export the gate model")
        return
    url = pg.createdb("gate")
    base = ["study", "--model", gate, "--input", "x=" + x, "-p", "ref", "-p", "ort", "--store",
            url, "--no-report", "--json"]
    json_of(cli(base + ["--no-self-check"]), "gate study without self-check")
    second = json_of(cli(base), "gate study again, with its self-check")
    rows = pg.psql("gate", "SELECT count(*) FROM self_checks")
    r = cli(["origins", "--store", url, "--oracle"])
    check(second.get("self_checks", {}).get("executed") == 2 and rows == "2"
          and "self-check: kernel" in r.stdout,
          f"self-check re-runs of runs pulled earlier are pushed ({rows} rows) and judged")


def wait_for(pred, timeout, what):
    end = time.time() + timeout
    while time.time() < end:
        if pred():
            return True
        time.sleep(0.1)
    raise SystemExit(f"timed out waiting for {what}")


def outputs_of_sqlite(path):
    db = sqlite3.connect(path)
    rows = db.execute(
        "SELECT r.model, r.input, r.platform, r.repetition, r.verdict, o.value, o.hash, o.dtype, "
        "o.shape FROM runs r JOIN node_outputs o ON o.run = r.id").fetchall()
    db.close()
    return sorted(rows)


def fleet_study(pg, tmp):
    model = os.path.join(tmp, "small.onnx")
    assert cli(["zoo", "export", "Cifar10-small", "-o", model]).returncode == 0
    study = ["study", "--model", model, "--inputs", str(CASES), "--seed", "5"] + PLATFORMS
    url = pg.createdb("fleet")
    plan = json_of(cli(study + ["--store", url, "--plan", "--shards", str(SHARDS), "--json"]),
                   "plan")
    check(plan["jobs"] == SHARDS and PASSWORD not in json.dumps(plan),
          f"plan registered {plan['jobs']} jobs, password not echoed")

    work = ["work", "--store", url, "--lease", "3", "--poll", "0.3", "--json"]
    first = subprocess.Popen([CLI] + work, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wait_for(lambda: pg.psql("fleet", "SELECT count(*) FROM fleet_jobs WHERE state='running'")
             != "0", 120, "a running job")
    first.send_signal(signal.SIGKILL)
    first.wait()
    held = pg.psql("fleet", "SELECT count(*) FROM fleet_jobs WHERE state='running'")
    check(held == "1", f"the killed worker left its job running under a lease ({held})")

    others = [subprocess.Popen([CLI] + work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True) for _ in range(2)]
    results = [p.communicate(timeout=600) for p in others]
    for p, (out, err) in zip(others, results):
        check(p.returncode == 0, f"worker exit 0 (got {p.returncode}) {err[-300:]}")
    done = [json.loads(out) for out, _ in results]
    check(sum(d["jobs_done"] for d in done) >= SHARDS - 1,
          f"the two surviving workers did the jobs ({[d['jobs_done'] for d in done]})")

    status = json_of(cli(["status", "--store", url, "--json"]), "status")
    jobs = status["jobs"]
    check(jobs["done"] == SHARDS and jobs["failed"] == 0 and jobs["queued"] == 0
          and jobs["running"] == 0, f"status: every job done ({jobs})")
    retried = pg.psql("fleet", "SELECT max(attempts) FROM fleet_jobs")
    check(int(retried) >= 2, f"the killed worker's job was claimed again (attempts {retried})")
    expected_runs = CASES * 3  # two platforms and the oracle
    check(status["runs"] == expected_runs, f"{status['runs']} runs stored, {expected_runs} expected")
    dup = pg.psql("fleet", "SELECT count(*) - count(DISTINCT (model, input, platform, repetition)) "
                  "FROM runs")
    check(dup == "0", f"no run stored twice ({dup} duplicates)")
    orphans = pg.psql("fleet", "SELECT count(*) FROM node_outputs o LEFT JOIN tensors t ON "
                      "t.hash = o.hash AND t.dtype = o.dtype AND t.shape = o.shape "
                      "WHERE t.hash IS NULL")
    check(orphans == "0", f"every node output's tensor is stored ({orphans} missing)")
    empty = pg.psql("fleet", "SELECT count(*) FROM runs r WHERE NOT EXISTS (SELECT 1 FROM "
                    "node_outputs o WHERE o.run = r.id)")
    check(empty == "0", f"every run has its node outputs ({empty} without)")

    local = os.path.join(tmp, "local.db")
    r = cli(study + ["--store", local, "--no-report", "--json"])
    check(r.returncode in (0, 1), f"the same study into SQLite (exit {r.returncode})")
    pulled = os.path.join(tmp, "pulled.db")
    r = cli(["merge", url, "-o", pulled, "--json"])
    check(r.returncode == 0, "merge postgresql:// -o file.db " + r.stderr[-200:])
    a, b = outputs_of_sqlite(local), outputs_of_sqlite(pulled)
    check(len(a) > 0 and a == b,
          f"fleet and single-process SQLite stores hold the same node outputs, bit for bit "
          f"({len(a)} vs {len(b)} rows)")
    ca = json_of(cli(["compare", "--store", local, "--json"]), "compare local")
    cb = json_of(cli(["compare", "--store", url, "--json"]), "compare url")
    eqc = lambda c: sorted((x["input"], x["eqc_count"]) for x in c["cases"])  # noqa: E731
    check(eqc(ca) == eqc(cb), "compare on the PostgreSQL store gives the SQLite store's classes")
    back = pg.createdb("roundtrip")
    r = cli(["merge", local, "-o", back, "--json"])
    runs_back = pg.psql("roundtrip", "SELECT count(*) FROM runs")
    check(r.returncode == 0 and runs_back == str(expected_runs),
          f"merge file.db -o postgresql:// copies every run ({runs_back})")


def cut_off_worker(pg, tmp):
    """A worker that stops answering (SIGSTOP: as good as a lost connection) past its lease: the
    job is done again by another worker, and the first one's copy is refused when it wakes."""
    model = os.path.join(tmp, "small.onnx")
    url = pg.createdb("cutoff")
    study = ["study", "--model", model, "--inputs", "3", "--seed", "9"] + PLATFORMS
    json_of(cli(study + ["--store", url, "--plan", "--shards", "1", "--json"]), "plan")
    work = ["work", "--store", url, "--lease", "2", "--poll", "0.2", "--json"]
    stalled = subprocess.Popen([CLI] + work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    wait_for(lambda: pg.psql("cutoff", "SELECT count(*) FROM fleet_jobs WHERE state='running'")
             == "1", 120, "a running job")
    stalled.send_signal(signal.SIGSTOP)
    other = cli(work, timeout=300)
    check(other.returncode == 0 and json.loads(other.stdout)["jobs_done"] == 1,
          "a second worker took over the lapsed job and finished it")
    stalled.send_signal(signal.SIGCONT)
    out, err = stalled.communicate(timeout=300)
    summary = json.loads(out)
    check(stalled.returncode == 0 and summary["jobs_lost"] == 1 and summary["runs_new"] == 0,
          f"the cut-off worker found its job taken over and stored nothing ({summary})")
    runs = pg.psql("cutoff", "SELECT count(*) FROM runs")
    check(runs == "9", f"every run of the job stored once ({runs} of 9)")


def stalled_last_attempt(pg, tmp):
    """A worker that stalls past its lease on the job's last attempt: the queue marks the job
    failed (nobody may take it again), and when the worker wakes it revives and finishes it
    instead of throwing its results away."""
    model = os.path.join(tmp, "small.onnx")
    url = pg.createdb("lastattempt")
    study = ["study", "--model", model, "--inputs", "2", "--seed", "5"] + PLATFORMS
    json_of(cli(study + ["--store", url, "--plan", "--shards", "1", "--json"]), "plan")
    work = ["work", "--store", url, "--lease", "2", "--poll", "0.2", "--max-attempts", "1",
            "--json"]
    stalled = subprocess.Popen([CLI] + work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    wait_for(lambda: pg.psql("lastattempt", "SELECT count(*) FROM fleet_jobs WHERE "
                             "state='running'") == "1", 120, "a running job")
    stalled.send_signal(signal.SIGSTOP)
    time.sleep(3)
    other = json_of(cli(work, timeout=120), "a second worker")
    state = pg.psql("lastattempt", "SELECT state FROM fleet_jobs")
    check(other["jobs_done"] == 0 and state == "failed",
          f"the lapsed last attempt is marked failed, not handed out ({state})")
    stalled.send_signal(signal.SIGCONT)
    out, _ = stalled.communicate(timeout=300)
    summary = json.loads(out)
    state = pg.psql("lastattempt", "SELECT state || ' ' || coalesce(error, '') FROM fleet_jobs")
    runs = pg.psql("lastattempt", "SELECT count(*) FROM runs")
    check(summary["jobs_done"] == 1 and state.strip() == "done" and runs == "6",
          f"the woken worker revived and finished it: {summary}, job {state!r}, {runs} of 6 runs")


def every_host(pg, tmp):
    """An --every-host plan: each host fingerprint (two here, told apart by --host-tag) runs every
    job, so every case is run by both and the same platform spec on two hosts is two platforms."""
    model = os.path.join(tmp, "small.onnx")
    url = pg.createdb("everyhost")
    study = ["study", "--model", model, "--inputs", "2", "--seed", "13"] + PLATFORMS
    json_of(cli(study + ["--store", url, "--plan", "--every-host", "--shards", "2", "--json"]),
            "plan")
    work = ["work", "--store", url, "--poll", "0.3", "--json"]
    procs = [subprocess.Popen([CLI] + work + ["--host-tag", tag], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for tag in ("rack-a", "rack-b")]
    done = [json.loads(p.communicate(timeout=300)[0])["jobs_done"] for p in procs]
    check(done == [2, 2], f"each host did every job of the every-host plan ({done})")
    hosts = pg.psql("everyhost", "SELECT count(DISTINCT host) FROM runs")
    runs = pg.psql("everyhost", "SELECT count(*) FROM runs")
    check(hosts == "2" and runs == "12", f"every case on both hosts: {runs} runs on {hosts} hosts")
    labels = json_of(cli(["compare", "--store", url, "--json"]), "compare")["platforms"]
    check(len(labels) == 4 and len({label.split("@")[0] for label in labels}) == 2,
          f"the same spec on two hosts is two platforms ({labels})")


def slurm_script(pg, tmp):
    parent = os.path.join(tmp, "parent.onnx")
    assert cli(["zoo", "export", "Cifar10-small", "-o", parent]).returncode == 0
    variants = os.path.join(tmp, "variants")
    r = cli(["mutate", parent, "--extract", "--per-node", "1", "--seed", "3", "-o", variants])
    assert r.returncode == 0, r.stderr
    url = pg.createdb("campaign")
    r = cli(["campaign", "--models", variants] + PLATFORMS +
            ["--store", url, "--plan", "--shards", "3", "--json"])
    check(r.returncode == 0, "campaign --plan " + r.stderr[-200:])
    env = dict(os.environ, INFERGAP=CLI, INFERGAP_STORE=url, SLURM_ARRAY_TASK_ID="0",
               INFERGAP_LEASE="30")
    r = subprocess.run(["bash", os.path.join(ROOT, "scripts/slurm/infergap-work.sbatch")],
                       capture_output=True, text=True, env=env, cwd=tmp, timeout=600)
    check(r.returncode == 0, f"the Slurm array script, run without Slurm (exit {r.returncode}) "
          + r.stderr[-300:])
    status = json_of(cli(["status", "--store", url, "--json"]), "status")
    check(status["jobs"]["done"] == 3 and status["runs"] > 0,
          f"campaign plan done through the script ({status['jobs']}, {status['runs']} runs)")
    local = os.path.join(tmp, "campaign.db")
    cli(["campaign", "--models", variants] + PLATFORMS + ["--store", local, "--no-report"])
    db = sqlite3.connect(local)
    n = db.execute("SELECT count(*) FROM runs").fetchone()[0]
    check(status["runs"] == n, f"campaign: {status['runs']} runs in the fleet store, {n} in "
          "one process")


def slurm_array(pg, tmp):
    """A 4-task Slurm array of workers (the repo's job script, submitted to a real single-node
    slurmctld + slurmd + munged brought up in a temporary folder) works a study plan."""
    why = slurm_cluster.available()
    if why:
        print(f"skip Slurm array: {why}; the job script ran without Slurm above", flush=True)
        return
    model = os.path.join(tmp, "small.onnx")
    url = pg.createdb("slurm")
    study = ["study", "--model", model, "--inputs", "8", "--seed", "21"] + PLATFORMS
    json_of(cli(study + ["--store", url, "--plan", "--shards", "8", "--json"]), "plan")
    logs = os.path.join(tmp, "slurm-logs")
    os.makedirs(logs)
    with slurm_cluster.SlurmCluster() as cluster:
        r = cluster.sbatch(["--array=0-3", "--wait", "--cpus-per-task=1",
                            f"--output={logs}/work-%A_%a.log",
                            os.path.join(ROOT, "scripts/slurm/infergap-work.sbatch")],
                           env={"INFERGAP": CLI, "INFERGAP_STORE": url,
                                "INFERGAP_WORK_FLAGS": "--poll 0.3"}, cwd=tmp, timeout=600)
        check(r.returncode == 0, f"sbatch --array=0-3 --wait: exit {r.returncode} "
              + (r.stderr + r.stdout)[-300:] + ("" if r.returncode == 0 else cluster.logs()))
    tasks = sorted(f for f in os.listdir(logs) if f.startswith("work-"))
    ran = [open(os.path.join(logs, f)).read() for f in tasks]
    check(len(tasks) == 4 and all("infergap-work: task" in t for t in ran),
          f"four array tasks ran the worker ({len(tasks)} logs)")
    status = json_of(cli(["status", "--store", url, "--json"]), "status")
    dup = pg.psql("slurm", "SELECT count(*) - count(DISTINCT (model, input, platform, repetition)) "
                  "FROM runs")
    check(status["jobs"]["done"] == 8 and status["runs"] == 24 and dup == "0",
          f"the array did the plan: {status['jobs']}, {status['runs']} of 24 runs, {dup} twice")


def main():
    global CLI
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    CLI = os.path.abspath(ap.parse_args().cli)
    with tempfile.TemporaryDirectory(prefix="infergap-fleet-") as tmp, PgServer() as pg:
        os.chdir(tmp)
        bad_input(pg)
        failing_job(pg, tmp)
        read_only_role(pg, tmp)
        keep_tensors_none(pg, tmp)
        incremental_push(pg, tmp)
        fleet_study(pg, tmp)
        cut_off_worker(pg, tmp)
        stalled_last_attempt(pg, tmp)
        every_host(pg, tmp)
        slurm_script(pg, tmp)
        slurm_array(pg, tmp)
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
