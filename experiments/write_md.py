"""EXPERIMENTS.md from out/experiments/*/result.json, in the issue's order of findings. An
experiment without a result.json here (not rerun on this host) keeps its row and its section from
the previous EXPERIMENTS.md, which say where they were measured."""
import datetime
import json
import os
import re

from common import host_description

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "out", "experiments")
PREVIOUS = os.path.join(ROOT, "EXPERIMENTS.md")
ORDER = ["simd-width", "thread-split", "conv-algorithm", "gpu-autotune", "multiplications",
         "layers", "precision", "distributions", "label-flips", "operator-support",
         "compiled-eager", "exceptional-values", "matrix-units"]


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def previous():
    """Rows and sections of the previous EXPERIMENTS.md by finding number, and its host line."""
    rows, sections, host = {}, {}, ""
    if not os.path.exists(PREVIOUS):
        return rows, sections, host
    text = open(PREVIOUS).read()
    m = re.search(r"^Host: (.*?)(?:\n\n|;\s*generated)", text, re.S | re.M)
    if m:
        host = " ".join(m.group(1).split())
    for line in text.splitlines():
        m = re.match(r"\| (\d+) \|", line)
        if m:
            rows[int(m.group(1))] = line
    for m in re.finditer(r"^### (\d+)\. .*?(?=^### |\Z)", text, re.S | re.M):
        sections[int(m.group(1))] = m.group(0).rstrip() + "\n"
    return rows, sections, host


HOST = host_description()
old_rows, old_sections, old_host = previous()
rows, details, rerun, kept, elsewhere = [], [], [], [], []
for i, name in enumerate(ORDER, 1):
    path = os.path.join(OUT, name, "result.json")
    if not os.path.exists(path):
        if i in old_rows:
            kept.append(str(i))
            rows.append(old_rows[i])
            section = old_sections.get(i, f"### {i}. {name}\n")
            if "Measured on:" not in section and old_host:
                title, _, body = section.partition("\n")
                section = f"{title}\n\nMeasured on: {old_host}.\n{body}"
            details.append(section)
        else:
            rows.append(f"| {i} | {name} | | not run | | |")
        continue
    r = json.load(open(path))
    (rerun if r.get("host", HOST) == HOST else elsewhere).append(str(i))
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
    details.append(f"### {i}. {r['finding']}\n\nMeasured on: {r.get('host', HOST)}.\n\n"
                   f"`experiments/{name}/run` ({secs or 'time not recorded'}); "
                   f"results in `out/experiments/{name}/`. Commands:\n\n{commands}\n")

provenance = (f"rows {', '.join(rerun)} measured there" if rerun else "no row measured there")
if elsewhere:
    provenance += f"; rows {', '.join(elsewhere)} measured on the host each section names"
if kept:
    provenance += (f"; rows {', '.join(kept)} kept from the previous EXPERIMENTS.md, each section "
                   "naming the host it was measured on")
print(f"""# Experiments: the papers' findings, reproduced on one machine

Each finding of *Numerical deviations in NN inference* and *Mind the Gap* is an experiment
(`experiments/<name>/run`) driven by infergap commands; each writes a store, a report
(`report.html`) and `result.json` under `out/experiments/<name>/`. `experiments/run-all`
runs them all and regenerates this file. Verdicts come from fixed criteria in each
experiment's `analyse.py`, stated in its code; no knob or threshold was tuned to make a finding
pass, and a finding we do not reproduce is reported as such.

Host: {HOST}; generated
{datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}: {provenance}.

| # | finding | paper | ours | verdict | why |
|---|---|---|---|---|---|
""" + "\n".join(rows) + "\n\n## How each was measured\n\n" + "\n".join(details))
