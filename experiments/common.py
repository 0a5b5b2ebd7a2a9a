"""Helpers for the experiments' analysis: read infergap's JSON, write result.json."""
import json
import os
import platform
import re
import subprocess
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else "."
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IG = os.environ.get("INFERGAP", os.path.join(ROOT, "build", "infergap"))


def ig_json(*args):
    """Runs an infergap command with --json and returns the parsed output."""
    with open(os.path.join(OUT, "commands.txt"), "a") as log:
        log.write("infergap " + " ".join(args) + " --json\n")
    out = subprocess.run([IG, *args, "--json"], check=False, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        raise SystemExit(f"infergap {' '.join(args)} failed ({out.returncode}): {out.stderr}")
    return json.loads(out.stdout)


def compare(store, layers=False):
    # Every node: the experiments count layers and compare neighbours, data movement included.
    return ig_json("compare", "--store", store, *(["--layers", "--all-nodes"] if layers else []))


def case_classes(case):
    """The partition of one compare case, as a set of frozensets (order-free)."""
    return frozenset(frozenset(c) for c in case["classes"])


def spearman(xs, ys):
    """Rank correlation (average ranks for ties)."""
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2.0
            i = j + 1
        return r
    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx) ** 0.5
    vy = sum((b - my) ** 2 for b in ry) ** 0.5
    return cov / (vx * vy) if vx and vy else 0.0


def read_npy(path):
    """(shape, bit patterns) of a little-endian float32/float64 .npy file, without numpy: equal
    bits are the EQC's equality (NaN payloads and the sign of zero count)."""
    import ast
    import struct
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY", path
    if data[6] == 1:
        (hlen,), start = struct.unpack("<H", data[8:10]), 10
    else:
        (hlen,), start = struct.unpack("<I", data[8:12]), 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    code = {"<f4": "I", "<f8": "Q"}[header["descr"]]
    body = data[start + hlen:]
    n = len(body) // struct.calcsize(code)
    return tuple(header["shape"]), struct.unpack(f"<{n}{code}", body)


def export(store, run, value, path):
    """A stored tensor as (shape, bit patterns), through infergap export."""
    ig_json("export", "--store", store, "--run", str(run), "--node", value, "-o", path)
    return read_npy(path)


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def has_avx512():
    try:
        return any(re.search(r"\bavx512f\b", line) for line in open("/proc/cpuinfo")
                   if line.startswith("flags"))
    except OSError:
        return False


def host_description():
    """The machine a result was measured on, as EXPERIMENTS.md names it."""
    gpu = ""
    try:
        names = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                               capture_output=True, text=True, timeout=20).stdout.split("\n")
        gpu = "".join(f", {n.strip()}" for n in names if n.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return (f"{platform.node()}, {cpu_model()} ({'with' if has_avx512() else 'no'} AVX-512), "
            f"{os.cpu_count()} CPUs{gpu}, {platform.platform()}")


def write_result(finding, paper, ours, verdict, why, data=None):
    """result.json: one row of EXPERIMENTS.md. verdict: REPRODUCED, PARTLY REPRODUCED,
    NOT REPRODUCED or SKIPPED. `host` says where it was measured: a result brought from another
    machine keeps its host."""
    result = {"finding": finding, "paper": paper, "ours": ours, "verdict": verdict, "why": why,
              "host": host_description(), "data": data or {}}
    with open(os.path.join(OUT, "result.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(f"{verdict}: {finding}\n  ours: {ours}")
