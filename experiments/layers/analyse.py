from collections import Counter

from common import OUT, compare, write_result

c = compare(f"{OUT}/study.db", layers=True)
summary = {}
for case in c["cases"]:
    act = "sigmoid" if "sigmoid" in case["model"] else "relu"
    layers = case["layers"]
    born = Counter(l["op_type"] for l in layers if l["split"])
    raises = Counter()
    lowers = Counter()
    share_before, share_after = [], []
    for prev, l in zip(layers, layers[1:]):
        if l["op_type"] in ("Relu", "Sigmoid", "MaxPool", "AveragePool"):
            a, b = prev["remaining_precision"], l["remaining_precision"]
            if a >= 0 and b >= 0:
                (raises if b > a else lowers if b < a else Counter())[l["op_type"]] += 1
        if l["op_type"] in ("Relu", "Sigmoid"):
            share_before.append(prev["deviating_share"])
            share_after.append(l["deviating_share"])
    mean = lambda v: sum(v) / len(v) if v else 0.0
    summary[act] = {"born_at": dict(born), "rp_raised": dict(raises), "rp_lowered": dict(lowers),
                    "share_before": mean(share_before), "share_after": mean(share_after),
                    "final_eqcs": case["eqc_count"], "layers": len(layers)}
r, s = summary["relu"], summary["sigmoid"]
born_ops = set(r["born_at"]) | set(s["born_at"])
ours = (f"relu model: new EQCs born at {r['born_at']}; RP raised by {r['rp_raised']}, lowered by "
        f"{r['rp_lowered']}; deviating share {r['share_before']:.1%} before activations, "
        f"{r['share_after']:.1%} after. sigmoid model: born at {s['born_at']}; deviating share "
        f"{s['share_before']:.1%} before, {s['share_after']:.1%} after")
born_ok = born_ops <= {"Conv", "BatchNormalization"}
relu_raises = r["rp_raised"].get("Relu", 0) > r["rp_lowered"].get("Relu", 0)
relu_share = r["share_after"] < r["share_before"]
sigmoid_keeps = s["share_after"] >= 0.9 * s["share_before"]
checks = [born_ok, relu_raises, relu_share, sigmoid_keeps]
verdict = ("REPRODUCED" if all(checks) else "PARTLY REPRODUCED" if any(checks)
           else "NOT REPRODUCED")
why = []
if not born_ok:
    why.append("classes are also born at " + ", ".join(sorted(born_ops - {"Conv", "BatchNormalization"}))
               + " (operators whose own arithmetic differs between our platforms)")
if not relu_raises:
    why.append("ReLU does not raise RP more often than it lowers it")
if not relu_share:
    why.append("ReLU does not lower the share of deviating values")
if not sigmoid_keeps:
    why.append("sigmoid lowers the share of deviating values")
write_result("New EQCs at convolution and batch norm; ReLU and pooling raise remaining precision",
             "Fig 5: new EQCs only at conv and batch-norm layers; ReLU activations raise RP "
             "(peaks); Table SUP-8: fewer deviating values after ReLU",
             ours, verdict, "; ".join(why) or "as in the paper: ReLU zeroes negative values, "
             "which erases their deviations; sigmoid maps them on", summary)
