import re

from common import OUT, compare, spearman, write_result

c = compare(f"{OUT}/study.db")
rows = []
for case in c["cases"]:
    m = re.search(r"conv_k(\d+)_f(\d+)_1e(\d+)", case["model"])
    k, f, e = (int(x) for x in m.groups())
    rp = case["remaining_precision"]
    rows.append({"k": k, "f": f, "exp": e, "eqcs": case["eqc_count"],
                 "rp": 23 if rp < 0 else rp})
rows.sort(key=lambda r: (r["k"], r["f"], r["exp"]))
rho = spearman([r["exp"] for r in rows], [r["rp"] for r in rows])
non_monotonic = []
for kf in sorted({(r["k"], r["f"]) for r in rows}):
    series = [r["eqcs"] for r in rows if (r["k"], r["f"]) == kf]
    if any(series[i] > series[j] for i in range(len(series)) for j in range(i + 1, len(series))):
        non_monotonic.append(f"k={kf[0]},f={kf[1]}: {series}")
table = "; ".join(
    f"k={kf[0]},f={kf[1]} RP " + "/".join(str(r["rp"]) for r in rows if (r["k"], r["f"]) == kf)
    for kf in sorted({(r["k"], r["f"]) for r in rows}))
ours = (f"RP over 10^3..10^8 multiplications: {table} (Spearman rho {rho:.2f}); EQC counts "
        + ("not monotonic for " + ", ".join(non_monotonic) if non_monotonic else
           "monotonic (never fewer classes at a larger size)"))
falls = rho <= -0.7
verdict = ("REPRODUCED" if falls and non_monotonic else
           "PARTLY REPRODUCED" if falls or non_monotonic else "NOT REPRODUCED")
write_result("Remaining precision falls with multiplications; EQC counts not monotonic",
             "Fig 4a: RP decreases from about 20 to 0 bits over 10^3..10^8 multiplications; Fig 4b: "
             "f=1 and f=3 give more EQCs at 10^6-10^7 than at 10^8",
             ours, verdict,
             "Longer sums accumulate more rounding, so the worst element loses more bits; the "
             "verdict needs Spearman rho <= -0.7 between size and RP and at least one series with "
             "fewer classes at a larger size.", {"rows": rows, "spearman": rho})
