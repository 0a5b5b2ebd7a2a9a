"""The Mind the Gap figures (Fig. 3 operator support, Fig. 4 discrepancy rate, Fig. 5 compiled vs
eager, and exceptional values) as markdown tables, from the corpus campaign that
experiments/findings/run made: reads OUT/campaign.json (`infergap campaign --json`'s analysis),
prints to stdout.

    /usr/bin/python3 experiments/findings/tables.py [OUT]   # OUT: out/experiments/findings
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "out", "experiments", "findings")
j = json.load(open(os.path.join(OUT, "campaign.json")))
a = j["analysis"]
plats = a["platforms"]


def pct(x):
    return f"{100 * x:.1f}%"


print(f"Campaign: {a['variants']} variants, {j['runs_total']} runs on {len(plats)} platforms "
      f"against {a['oracle']} (rtol {a['tolerance']['rtol']}, atol {a['tolerance']['atol']}).\n")

print("**Operator support** (Fig. 3): op types of the variants each platform runs, and the "
      "variants it refuses.\n")
print("| platform | op types supported | variants refused (any reason) | refused op types |")
print("|---|---|---|---|")
ops = a["support"]["ops"]
for p in plats:
    seen = [r for r in ops if p in r["platforms"]]
    ok = [r for r in seen if r["platforms"][p].get("unsupported", 0) == 0]
    refused = sorted(r["op"] for r in seen if r["platforms"][p].get("unsupported", 0) > 0)
    runs = a["failures"].get(p, {}).get("unsupported", 0)
    share = a["support"]["percent_supported"].get(p)
    print(f"| {p} | {len(ok)} of {len(seen)}"
          + (f" ({share:.0f}%)" if share is not None else "") +
          f" | {runs} | {', '.join(refused) or '-'} |")

print("\n**Discrepancy rate** (Fig. 4): variants whose outputs lie beyond tolerance of the oracle, "
      "of those the platform computed, with the operators at the divergence origin.\n")
print("| platform | discrepant | compared | rate | origin operators |")
print("|---|---|---|---|---|")
for p in plats:
    d = a["discrepancy"].get(p)
    if not d:
        continue
    by = ", ".join(f"{k} {v}" for k, v in sorted(d["by_origin_op"].items(), key=lambda kv: -kv[1]))
    print(f"| {p} | {d['discrepant']} | {d['compared']} | {pct(d['rate'])} | {by or '-'} |")

print("\n**Compiled vs eager** (Fig. 5): variants whose compiled and eager outputs differ bit for "
      "bit, with the operators where they first differ.\n")
print("| backend | compiled | eager | variants | differ | share | origin operators |")
print("|---|---|---|---|---|---|---|")
for c in a["compiled_vs_eager"]:
    by = ", ".join(f"{k} {v}" for k, v in sorted(c["origin_ops"].items(), key=lambda kv: -kv[1]))
    print(f"| {c['backend']} | {c['compiled']} | {c['eager']} | {c['variants']} | {c['differ']} | "
          f"{pct(c['share'])} | {by or '-'} |")

print("\n**Exceptional values**: (operator, exceptional input) cases and the platforms whose "
      "handling departs from the oracle rounded to the output type, per behaviour.\n")
rows = a["exceptional"]
# As experiments/exceptional-values/analyse.py: failures are not a handling, and these agree.
FAILED = {"unsupported", "error", "load-error", "crash", "timeout"}
AGREE = {"as-oracle", "propagate", "overflow-as-oracle"}
split = [r for r in rows if set(r["behaviours"]) - FAILED - AGREE]
print(f"{len(rows)} cases; {len(split)} with a platform departing from the oracle.\n")
print("| behaviour | cases | platforms (cases) |")
print("|---|---|---|")
per = {}
for r in rows:
    for b, ps in r["behaviours"].items():
        if b in FAILED or b in AGREE:
            continue
        e = per.setdefault(b, {"cases": 0, "platforms": {}})
        e["cases"] += 1
        for p in ps:
            e["platforms"][p] = e["platforms"].get(p, 0) + 1
for b, e in sorted(per.items(), key=lambda kv: -kv[1]["cases"]):
    ps = ", ".join(f"{p} {n}" for p, n in sorted(e["platforms"].items(), key=lambda kv: -kv[1]))
    print(f"| {b} | {e['cases']} | {ps} |")
