import json
import sys

from common import OUT, write_result

FINDING = "Exceptional values are handled differently across platforms"
PAPER = ("Mind the Gap: output discrepancies stem partly from different handling of exceptional "
         "numerical values")
if len(sys.argv) > 2:
    write_result(FINDING, PAPER, "not run", "SKIPPED", "this build has no campaign command")
    sys.exit(0)
a = json.load(open(f"{OUT}/campaign.json"))["analysis"]
rows = a["exceptional"]
# A platform that cannot run the op has no behaviour to compare: only ran-and-differed counts.
FAILED = {"unsupported", "error", "load-error", "crash", "timeout"}
# Classes that agree with the oracle rounded to the output's dtype (docs/CAMPAIGNS.md "Exceptional values"):
# a correctly rounded overflow is agreement, not a difference.
AGREE = {"as-oracle", "propagate", "overflow-as-oracle"}


def kinds(r):
    """The behaviours a row's platforms showed, agreeing classes merged."""
    return {"agrees with the oracle" if b in AGREE else b
            for b in r["behaviours"] if b not in FAILED}


split = [r for r in rows if len(kinds(r)) > 1]
overflow = [r for r in rows if "overflow-as-oracle" in r["behaviours"]]
overflow_split = [r for r in overflow if len(kinds(r)) > 1]
by_kind = {}
for r in split:
    for b in kinds(r) - {"agrees with the oracle"}:
        by_kind[b] = by_kind.get(b, 0) + 1


def example(r):
    return (f"{r['op']} with {r['value']}: " +
            ", ".join(f"{b} {{{', '.join(ps)}}}" for b, ps in sorted(r["behaviours"].items())
                      if b not in FAILED))


# Examples: one per distinct disagreeing behaviour, in the order of their counts.
examples, seen = [], set()
for b, _ in sorted(by_kind.items(), key=lambda kv: -kv[1]):
    for r in split:
        if b in kinds(r) and r["op"] + r["value"] not in seen:
            examples.append(example(r))
            seen.add(r["op"] + r["value"])
            break
ours = (f"{len(rows)} (op, exceptional value) cases; platforms disagree on {len(split)} "
        f"(cases per behaviour that departs from the oracle rounded to the output dtype: "
        + ", ".join(f"{b} {n}" for b, n in sorted(by_kind.items(), key=lambda kv: -kv[1]))
        + f"); {len(overflow)} cases have platforms overflowing exactly as the rounded oracle "
        f"(overflow-as-oracle), {len(overflow_split)} of them split by another behaviour"
        + (f"; e.g. {'; '.join(examples[:5])}" if examples else ""))
why = ("IEEE maximum vs maxNum (NaN propagated or dropped) in Max/MaxPool/Relu/Clip/Softmax, "
       "denormals flushed (OpenCV) or kept, the sign of zero from Relu, Inf - Inf and "
       "intermediate overflow in reductions, and ONNX Runtime skipping the rounding of the model's "
       "fp16 casts (its Cast-Add-Cast output is the fp32 sum) "
       "differ between libraries; a platform's Inf where the oracle's value also overflows the "
       "output's dtype counts as agreement" if split else
       "every platform handled every injected value alike")
write_result(FINDING, PAPER, ours, "REPRODUCED" if split else "NOT REPRODUCED", why,
             {"exceptional": rows, "disagreeing": by_kind,
              "overflow_as_oracle_cases": len(overflow)})
