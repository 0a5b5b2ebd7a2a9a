#!/usr/bin/env python3
"""Capture at scale (BENCHMARKS.md "Capture at scale"): what capturing every layer costs a study.

usage: bench_capture.py CLI OUT.json WORKDIR     measures and writes OUT.json
       bench_capture.py --render OUT.json         prints the BENCHMARKS.md section

Exports torchvision's ResNet-18 (seeded weights, 224x224; Debian's python3-torchvision) and runs
one study of 6 platforms x 8 inputs plus the fp64 oracle four ways: graph outputs only, every
layer with --keep-tensors origins (the default), classes and none. Times each study and `compare`
on it, and reading one dropped layer of the default store (`export`: its run is re-run and
checked); checks that `compare` gives the same JSON from the kept tensor facts as from the
tensors (a copy with its facts deleted is the baseline), and from an `origins` or `none` store as
from a `classes` one, and `origins` too. Then the default (demo) study three ways.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time

PLATFORMS = ["-p", "ref", "-p", "onednn:isa=avx2,threads=1", "-p",
             "blas:core=Haswell,lib=openblas,threads=1", "-p", "ref:acc=lanes8", "-p",
             "ort:opt=disabled,threads=1", "-p", "opencv"]
EXPORT = """
import sys, torch, torchvision
torch.manual_seed(0)
torch.set_num_threads(1)
m = torchvision.models.resnet18(weights=None).eval()
torch.onnx.export(m, torch.randn(1, 3, 224, 224), sys.argv[1], opset_version=13,
                  input_names=["x"], output_names=["y"])
"""


def timed(args, **kw):
    t0 = time.monotonic()
    r = subprocess.run(args, capture_output=True, text=True, **kw)
    if r.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)}: exit {r.returncode}\n{r.stderr[-2000:]}")
    return time.monotonic() - t0, r.stdout


def compare_json(cli, store, *flags):
    seconds, out = timed([cli, "compare", "--store", store, "--json", *flags])
    return seconds, json.loads(out.replace(store, "STORE"))


def measure(cli, out, work):
    os.makedirs(work, exist_ok=True)
    model = os.path.join(work, "resnet18.onnx")
    r = subprocess.run(["/usr/bin/python3", "-c", EXPORT, model], capture_output=True, text=True)
    if r.returncode != 0:
        json.dump({"missing": "torchvision export failed: " + r.stderr[-300:]}, open(out, "w"))
        return
    results = {"studies": {}}
    for name, flags in (("outputs", ["--layers", "outputs"]),
                        ("origins", ["--layers", "all"]),
                        ("classes", ["--layers", "all", "--keep-tensors", "classes"]),
                        ("none", ["--layers", "all", "--keep-tensors", "none"])):
        store = os.path.join(work, name + ".db")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(store + suffix):
                os.remove(store + suffix)
        seconds, _ = timed([cli, "study", "--model", model, "--inputs", "8", *PLATFORMS, *flags,
                            "--no-self-check", "--no-report", "--store", store])
        db = sqlite3.connect(store)
        runs = db.execute("SELECT count(*) FROM runs").fetchone()[0]
        db.close()
        layers_s, layers = compare_json(cli, store, "--layers")
        plain_s, plain = compare_json(cli, store)
        results["studies"][name] = {"study_seconds": seconds, "bytes": os.path.getsize(store),
                                    "runs": runs, "compare_layers_seconds": layers_s,
                                    "compare_seconds": plain_s}
        _, origins = timed([cli, "origins", "--store", store, "--json"])
        results["studies"][name]["_json"] = (plain, layers, origins.replace(store, "STORE"))
        print(f"bench_capture: {name}: {seconds:.1f} s, {os.path.getsize(store) / 1e6:.1f} MB",
              file=sys.stderr)
    # A layer the default store dropped, read twice: re-created by a re-run, then stored.
    store = os.path.join(work, "origins.db")
    db = sqlite3.connect(store)
    run, value = db.execute(
        "SELECT o.run, o.value FROM node_outputs o JOIN tensors t ON t.hash = o.hash AND "
        "t.dtype = o.dtype AND t.shape = o.shape WHERE t.data IS NULL ORDER BY o.run, "
        "o.node_index LIMIT 1").fetchone()
    platform, run_seconds = db.execute("SELECT platform, seconds FROM runs WHERE id = ?",
                                       (run,)).fetchone()
    db.close()
    results["dropped_read_run"] = {"platform": platform, "study_seconds": run_seconds}
    reads = []
    for name in ("first", "second"):
        npy = os.path.join(work, f"dropped-{name}.npy")
        seconds, _ = timed([cli, "export", "--store", store, "--run", str(run), "--node", value,
                            "-o", npy])
        reads.append(seconds)
    results["dropped_read_seconds"] = reads
    results["dropped_read_same"] = (open(os.path.join(work, "dropped-first.npy"), "rb").read() ==
                                    open(os.path.join(work, "dropped-second.npy"), "rb").read())
    # The baseline: the same store without its facts, every layer decoded again.
    bare = os.path.join(work, "bare.db")
    shutil.copy(os.path.join(work, "classes.db"), bare)
    db = sqlite3.connect(bare)
    db.execute("DELETE FROM tensor_facts")
    db.commit()
    db.close()
    bare_s, bare_layers = compare_json(cli, bare, "--layers")
    results["compare_layers_decoding_seconds"] = bare_s
    classes, none = results["studies"]["classes"], results["studies"]["none"]
    results["facts_same_as_tensors"] = bare_layers == classes["_json"][1]
    results["none_same_as_classes"] = classes["_json"] == none["_json"]
    results["origins_same_as_classes"] = classes["_json"] == results["studies"]["origins"]["_json"]
    for s in results["studies"].values():
        del s["_json"]
    demo = {}
    for keep in ("origins", "classes", "none"):
        folder = os.path.join(work, "demo-" + keep)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        seconds, _ = timed([cli, "study", "--no-report", "--keep-tensors", keep], cwd=folder)
        store = os.path.join(folder, "infergap-study.db")
        _, j = compare_json(cli, store)
        demo[keep] = {"seconds": seconds, "bytes": os.path.getsize(store),
                      "_json": json.dumps(j).replace(folder, "DIR")}
    results["demo"] = {k: {x: y for x, y in v.items() if x != "_json"} for k, v in demo.items()}
    results["demo_same_compare"] = (demo["classes"]["_json"] == demo["none"]["_json"] ==
                                    demo["origins"]["_json"])
    json.dump(results, open(out, "w"), indent=1)


def render(res):
    if not res or "missing" in res:
        if res:
            print(f"## Capture at scale\n\nNot measured: {res['missing']}\n")
        return
    s = res["studies"]
    base = s["outputs"]
    mb = lambda x: x["bytes"] / 1e6
    print("## Capture at scale: every layer of every run (issue [Capture at scale])\n")
    print("`scripts/bench_capture.py` (run by `scripts/bench`): torchvision ResNet-18 (seeded, "
          "224x224) in one `infergap study --inputs 8 " + " ".join(PLATFORMS) +
          " --no-self-check` (6 platforms x 8 inputs plus the fp64 oracle), four ways, in one "
          "run:\n")
    print("| | study | ratio | store | per run | `compare --layers` | `compare` |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, label in (("outputs", "`--layers outputs`"),
                        ("origins", "`--layers all` (`--keep-tensors origins`)"),
                        ("classes", "`--layers all --keep-tensors classes`"),
                        ("none", "`--layers all --keep-tensors none`")):
        x = s[name]
        print(f"| {label} | {x['study_seconds']:.1f} s | "
              f"{x['study_seconds'] / base['study_seconds']:.2f} | {mb(x):.1f} MB | "
              f"{mb(x) / x['runs']:.2f} MB | {x['compare_layers_seconds']:.2f} s | "
              f"{x['compare_seconds']:.2f} s |")
    print(f"\n`compare --layers` on the `classes` store with its tensor facts deleted (every layer "
          f"decoded again, as before facts were kept): {res['compare_layers_decoding_seconds']:.2f} s; "
          f"with them: {s['classes']['compare_layers_seconds']:.2f} s "
          f"(x{s['classes']['compare_layers_seconds'] / res['compare_layers_decoding_seconds']:.2f}). "
          f"Same JSON from facts as from tensors: {'yes' if res['facts_same_as_tensors'] else '**no**'}; "
          f"`none` and `origins` stores against the `classes` store, `compare`, `compare --layers` "
          f"and `origins`: {'identical' if res['none_same_as_classes'] else '**different**'}, "
          f"{'identical' if res.get('origins_same_as_classes') else '**different**'}.\n")
    if "dropped_read_seconds" in res:
        first, second = res["dropped_read_seconds"]
        run = res.get("dropped_read_run", {})
        print(f"Reading a layer the default store dropped (`export` of the first one, of "
              f"`{run.get('platform', '?')}`, whose run took {run.get('study_seconds', 0):.2f} s "
              f"in the study): {first:.2f} s (its run re-run on this host, every stored hash "
              f"checked, its dropped layers put back), then {second:.2f} s; the same bytes both "
              f"times: "
              f"{'yes' if res['dropped_read_same'] else '**no**'}.\n")
    d = res["demo"]
    print(f"The demo study (`infergap study`, no model): {d['origins']['bytes'] / 1e6:.1f} MB with "
          f"`origins` ({d['origins']['seconds']:.1f} s), {d['classes']['bytes'] / 1e6:.1f} MB with "
          f"`classes` ({d['classes']['seconds']:.1f} s), {d['none']['bytes'] / 1e6:.1f} MB with "
          f"`none` ({d['none']['seconds']:.1f} s); `compare --json` "
          f"{'identical' if res['demo_same_compare'] else '**different**'}.\n")


def goals(res):
    """(goal, measured, met) rows for BENCHMARKS.md's goals table (issue [Capture at scale])."""
    if not res or "missing" in res:
        return []
    s = res["studies"]
    yes = lambda ok: "yes" if ok else "no"
    ratio = s["origins"]["study_seconds"] / s["outputs"]["study_seconds"]
    per_run = {k: s[k]["bytes"] / 1e6 / s[k]["runs"] for k in ("origins", "classes", "none")}
    layers = s["origins"]["compare_layers_seconds"]
    demo = {k: v["bytes"] / 1e6 for k, v in res["demo"].items()}
    return [
        ("ResNet-18 all-layer study <= 1.5x outputs-only (issue [Capture at scale])",
         f"{ratio:.2f}", yes(ratio <= 1.5)),
        ("ResNet-18 store <= 2.5 MB per run",
         f"origins (default) {per_run['origins']:.2f} MB, classes {per_run['classes']:.2f} MB, "
         f"none {per_run['none']:.2f} MB",
         f"by default {yes(per_run['origins'] <= 2.5)}, with `--keep-tensors classes` "
         f"{yes(per_run['classes'] <= 2.5)}"),
        ("`compare --layers` on it <= 2 s", f"{layers:.2f} s", yes(layers <= 2)),
        ("demo store <= 25 MB, same `compare --json`",
         f"origins {demo['origins']:.1f} MB, classes {demo['classes']:.1f} MB, "
         f"none {demo['none']:.1f} MB",
         f"by default {yes(demo['origins'] <= 25 and res['demo_same_compare'])}, "
         f"with `--keep-tensors classes` {yes(demo['classes'] <= 25)}"),
    ]


if __name__ == "__main__":
    if sys.argv[1] == "--render":
        render(json.load(open(sys.argv[2])))
    else:
        measure(os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3])
