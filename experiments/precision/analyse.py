from common import OUT, compare, write_result


def eqcs(store, select):
    case = compare(store)["cases"][0]
    return len([k for k in case["classes"] if any(select(p) for p in k)]), case


def dtype_of(p):
    return "fp16" if "dtype=fp16" in p else "fp64" if "dtype=fp64" in p else "fp32"


counts = {}
for d in ("fp16", "fp32", "fp64"):
    counts[d], _ = eqcs(f"{OUT}/precision.db", lambda p, d=d: dtype_of(p) == d)
mask = {}
for bits in (8, 12):
    mask[bits], _ = eqcs(f"{OUT}/mask{bits}.db", lambda p: True)
ours = (f"8 emulator numerics: fp16 -> {counts['fp16']} EQCs, fp32 -> {counts['fp32']}, fp64 -> "
        f"{counts['fp64']}; fp32 with 8 low mantissa bits of weights and inputs zeroed -> "
        f"{mask[8]}, with 12 zeroed -> {mask[12]}")
conjecture = min(mask.values()) < counts["fp32"]
checks = [counts["fp16"] < counts["fp32"], counts["fp64"] < counts["fp32"], conjecture]
verdict = ("REPRODUCED" if all(checks) else "PARTLY REPRODUCED" if any(checks)
           else "NOT REPRODUCED")
why = []
if counts["fp64"] < counts["fp32"]:
    why.append("fp64 sums of products of fp32-valued operands round far less, so orders agree more often")
else:
    why.append("fp64 keeps every order distinguishable here: the cast operands leave room, but the "
               "sums still round differently in the last bits")
if counts["fp16"] < counts["fp32"]:
    why.append("fp16 outputs round away some of the fp32 differences, so a few orders agree")
else:
    why.append("the emulator's fp16 rounds after every operation, so different orders still "
               "differ in the last fp16 bit")
why.append("zeroed mantissa bits " + ("reduce" if conjecture else "do not reduce") +
           " the classes (the conjecture " + ("holds" if conjecture else "does not hold") +
           " for these orders)")
write_result("fp16 and fp64 give fewer EQCs than fp32; zeroed mantissa bits act like more precision",
             "Fig 6: Cifar10-R18 cast to fp16 and fp64 gives fewer EQCs than fp32 (fp64: 4); "
             "conjecture: zeroing the last n mantissa bits has the same effect",
             ours, verdict, "; ".join(why), {"eqcs": counts, "mask": mask})
