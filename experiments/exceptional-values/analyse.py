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
split = [r for r in rows if len(set(r["behaviours"]) - FAILED) > 1]
examples = "; ".join(
    f"{r['op']} with {r['value']}: " + ", ".join(f"{b} {{{', '.join(ps)}}}"
                                                 for b, ps in sorted(r["behaviours"].items())
                                                 if b not in FAILED)
    for r in split[:4])
ours = (f"{len(rows)} (op, exceptional value) cases; platforms disagree on {len(split)}"
        + (f", e.g. {examples}" if split else ""))
write_result(FINDING, PAPER, ours, "REPRODUCED" if split else "NOT REPRODUCED",
             "IEEE maximum vs maxNum (NaN propagated or dropped) in Max/MaxPool/Relu/Clip, "
             "denormals flushed or kept, and Inf - Inf in reductions differ between libraries"
             if split else "every platform handled every injected value alike",
             {"exceptional": rows})
