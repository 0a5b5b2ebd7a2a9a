"""EXPERIMENTS.md from out/experiments/*/result.json, in the issue's order of findings."""
import datetime
import json
import os
import platform

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "out", "experiments")
ORDER = ["simd-width", "thread-split", "conv-algorithm", "gpu-autotune", "multiplications",
         "layers", "precision", "distributions", "label-flips", "operator-support",
         "compiled-eager", "exceptional-values"]


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


rows, details = [], []
for i, name in enumerate(ORDER, 1):
    path = os.path.join(OUT, name, "result.json")
    if not os.path.exists(path):
        rows.append(f"| {i} | {name} | | not run | | |")
        continue
    r = json.load(open(path))
    secs = ""
    if os.path.exists(os.path.join(OUT, name, "seconds")):
        secs = open(os.path.join(OUT, name, "seconds")).read().strip() + " s"
    rows.append(f"| {i} | {cell(r['finding'])} | {cell(r['paper'])} | {cell(r['ours'])} | "
                f"**{r['verdict']}** | {cell(r['why'])} |")
    commands = ""
    cpath = os.path.join(OUT, name, "commands.txt")
    if os.path.exists(cpath):
        # Paths relative to the repo: the recipe must read the same on any clone.
        commands = "".join("    " + line.replace(ROOT + "/", "")
                           for line in open(cpath) if line.strip())
    details.append(f"### {i}. {r['finding']}\n\n`experiments/{name}/run` ({secs or 'time not recorded'}); "
                   f"results in `out/experiments/{name}/`. Commands:\n\n{commands}\n")

print(f"""# Experiments: the papers' findings, reproduced on one machine

Each finding of *Numerical deviations in NN inference* and *Mind the Gap* is an experiment
(`experiments/<name>/run`) driven by infergap commands; each writes a store, a report
(`report.html`) and `result.json` under `out/experiments/<name>/`. `experiments/run-all`
runs them all and regenerates this file. Verdicts come from fixed criteria in each
experiment's `analyse.py`, stated in its code; no knob or threshold was tuned to make a finding
pass, and a finding we do not reproduce is reported as such.

Host: {platform.node()}, {os.cpu_count()} CPUs, {platform.platform()}; generated
{datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}.

| # | finding | paper | ours | verdict | why |
|---|---|---|---|---|---|
""" + "\n".join(rows) + "\n\n## How each was measured\n\n" + "\n".join(details))
