#!/usr/bin/env python3
"""Memory of an all-layer study (BENCHMARKS.md "Memory of an all-layer study", issue [Capture]).

usage: bench_memory.py CLI OUT.json WORKDIR [MODEL ...]   measures and writes OUT.json
       bench_memory.py --render OUT.json                  prints the BENCHMARKS.md section

Exports torchvision models with seeded weights at 224x224 (Debian's python3-torchvision; default:
resnet18, convnext_tiny, vit_b_16) and runs one `study --layers all` of each on three platforms
plus the fp64 oracle, with the default --trace-budget. Records the study's wall time, its store's
size and the peak resident memory (VmHWM) of the study process and of each platform's worker, as
`study --json` reports them.
"""
import json
import os
import subprocess
import sys
import time

PLATFORMS = ["ref", "onednn:fallback=ref", "ort:opt=all"]
EXPORT = """
import sys, torch, torchvision
torch.manual_seed(0)
torch.set_num_threads(1)
m = getattr(torchvision.models, sys.argv[2])(weights=None).eval()
torch.onnx.export(m, torch.randn(1, 3, 224, 224), sys.argv[1], opset_version=17,
                  input_names=["x"], output_names=["y"])
"""
# Debian's torch lives in the system Python, whatever python3 is first on PATH.
SYSTEM_PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def measure(cli, workdir, name):
    model = os.path.join(workdir, name + ".onnx")
    if not os.path.exists(model):
        subprocess.run([SYSTEM_PYTHON, "-c", EXPORT, model, name], check=True,
                       capture_output=True)
    store = os.path.join(workdir, name + ".db")
    if os.path.exists(store):
        os.remove(store)
    args = [cli, "study", "--model", model, "--layers", "all", "--store", store, "--no-report",
            "--no-self-check", "--json"]
    for p in PLATFORMS:
        args += ["-p", p]
    t0 = time.monotonic()
    r = subprocess.run(args, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if r.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)}: exit {r.returncode}\n{r.stderr[-2000:]}")
    j = json.loads(r.stdout)
    rss = j["peak_rss"]
    return {"model": name, "wall_s": round(wall, 1), "store_mb": round(os.path.getsize(store) / 1e6, 1),
            "coordinator_mb": round(rss["coordinator"] / 2**20),
            "workers_mb": {p: round(b / 2**20) for p, b in rss["workers"].items()}}


def render(rows):
    if not rows:
        return
    print("## Memory of an all-layer study (issue [Capture])\n")
    print("`python3 scripts/bench_memory.py build/infergap OUT.json WORKDIR` (scripts/bench_memory.py): "
          "torchvision models with seeded weights at 224x224, one `study --layers all` on " +
          ", ".join(f"`{p}`" for p in PLATFORMS) + " plus the fp64 oracle, default `--trace-budget` "
          "(256M). Peak resident memory (VmHWM) as `study --json` reports it.\n")
    print("| model | wall s | store MB | study process MB | largest worker MB (platform) |")
    print("|---|---:|---:|---:|---|")
    for r in rows:
        worker, mb = max(r["workers_mb"].items(), key=lambda kv: kv[1])
        print(f"| {r['model']} | {r['wall_s']} | {r['store_mb']} | {r['coordinator_mb']} | "
              f"{mb} ({worker}) |")
    print()


def goals(rows):
    if not rows:
        return []
    over = [r["model"] for r in rows
            if r["coordinator_mb"] > 500 or max(r["workers_mb"].values()) > 500]
    value = ", ".join(f"{r['model']} {r['coordinator_mb']}/{max(r['workers_mb'].values())}"
                      for r in rows)
    return [("all-layer study: study process and each worker <= 500 MB (issue [Capture]; "
             "study/worker MB)", value, "yes" if not over else f"no ({', '.join(over)})")]


def main():
    if sys.argv[1] == "--render":
        render(json.load(open(sys.argv[2])))
        return
    cli, out, workdir = sys.argv[1:4]
    names = sys.argv[4:] or ["resnet18", "convnext_tiny", "vit_b_16"]
    os.makedirs(workdir, exist_ok=True)
    rows = []
    for name in names:
        rows.append(measure(cli, workdir, name))
        print(f"bench: memory {name}: {rows[-1]}", file=sys.stderr)
    json.dump(rows, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
