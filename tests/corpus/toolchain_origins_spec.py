#!/usr/bin/python3
"""int8 ResNet-18s from the toolchains users quantize with (issue #54): ONNX Runtime's quantizer in
QDQ and in QOperator format, and NNCF. On each, as on a model of our own quantizer:
  - at least two libraries run its groups as integer kernels (oneDNN and XNNPACK by `inspect`,
    ONNX Runtime by the QLinear* kernels its executed graph shows, 20 or more of them traced);
  - where oneDNN runs without VNNI (isa=avx2) the error is born, against the oracle, at one
    integer kernel (a group of at most 5 nodes: DequantizeLinears, the head, a Relu, the
    QuantizeLinear; or one QLinearConv);
  - `explain` reproduces that output bit for bit with an emulator configuration and names the
    int8 saturation (u8 x s8 pair sums at int16, or s8 data's halved weights).

    tests/corpus/toolchain_origins_spec.py INFERGAP WORK_DIR CORPUS

The models are made by tests/corpus/toolchain_quantize.py in scripts/setup's venv: exit 77 without
it.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LAYOUTS = ("ort-qdq-pc-u8", "ort-qop-pc-u8", "nncf-qdq")
AVX2 = "onednn:fallback=ref,isa=avx2"
PLATFORMS = ["ref", "ort", AVX2, "onednn:fallback=ref", "xnnpack:fallback=ref"]
LIBRARIES = {"oneDNN": "onednn", "XNNPACK": "xnnpack"}


def run(cmd, ok=(0,)):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr[-1500:]}")
    return proc


def ort_integer_kernels(store):
    """Integer kernels ONNX Runtime ran: QDQ groups its executed graph shows as QLinearConv or
    QGemm (the notes of its trace), and the QOperator model's own such nodes."""
    db = sqlite3.connect(store)
    count = db.execute(
        "select count(distinct o.value) from node_outputs o join runs r on r.id = o.run "
        "left join node_notes n on n.run = o.run and n.value = o.value where r.platform = 'ort' "
        "and (o.op_type in ('QLinearConv', 'QGemm', 'QLinearMatMul') or n.note like "
        "'%QLinearConv%' or n.note like '%QGemm%')").fetchone()[0]
    db.close()
    return count


def check(cli, work, corpus, layout, failures):
    model = os.path.join(work, f"resnet18.{layout}.onnx")
    x = f"x={os.path.join(corpus, 'resnet18.x.npy')}"
    made = subprocess.run([os.path.join(HERE, "toolchain_quantize.py"),
                           os.path.join(corpus, "resnet18.opset13.onnx"), model, layout, x],
                          capture_output=True, text=True)
    if made.returncode == 77:
        print(made.stdout.strip())
        raise SystemExit(77)
    if made.returncode != 0:
        raise SystemExit(f"{layout}: quantizing failed:\n{made.stderr[-1500:]}")
    store = os.path.join(work, f"{layout}.db")
    cmd = [cli, "study", "--model", model, "--store", store, "--input", x, "--no-report"]
    for p in PLATFORMS:
        cmd += ["-p", p]
    run(cmd, ok=(0, 1))

    inspect = [cli, "inspect", model, "--json"]
    for lib in LIBRARIES.values():
        inspect += ["-p", lib]
    support = json.loads(run(inspect).stdout)
    kernels = {}
    for name, spec in LIBRARIES.items():
        entry = next(p for p in support["support"] if p["spec"] == spec)
        kernels[name] = entry.get("int8_groups", {}).get("integer_kernels", 0)
    kernels["ONNX Runtime"] = ort_integer_kernels(store)
    running = [name for name, n in kernels.items() if n > 0]
    line = f"{layout}: integer kernels {kernels}"
    if len(running) < 2:
        failures.append(f"{line}: fewer than 2 libraries run integer kernels")
    # ResNet-18 has 20 convolutions and a classifier (NNCF leaves one in float): ORT's trace must
    # show its executed graph's kernels, not lose them to an unmapped layout or type.
    if kernels["ONNX Runtime"] < 20:
        failures.append(f"{line}: ORT's trace shows fewer than 20 of its integer kernels")

    origins = json.loads(run([cli, "origins", "--store", store, "--oracle", "--json"]).stdout)
    born = [o for o in origins["oracle_origins"] if o["platform"] == AVX2]
    if not born:
        failures.append(f"{layout}: no origin on {AVX2}")
        print(line)
        return
    first = born[0]
    line += f"; {AVX2} born at {first['op_type']} '{first['node']}' ({len(first['covers'])} nodes)"
    if len(first["covers"]) > 5:
        failures.append(f"{line}: the group has more than 5 nodes")
    explained = json.loads(run([cli, "explain", "--store", store, "--platform", AVX2, "--node",
                                first["node"], "--json"]).stdout)
    line += f"; explain: {explained['match']} by {explained.get('emulator')}, " \
            f"cause {','.join(explained.get('cause', []))}"
    if explained["match"] != "exact" or "int8-saturation" not in explained.get("cause", []):
        failures.append(f"{line}: not reproduced exactly as int8 saturation")
    print(line)


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    cli, work, corpus = sys.argv[1:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failures = []
    for layout in LAYOUTS:
        check(cli, work, corpus, layout, failures)
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        return 1
    print(f"toolchain origins: {len(LAYOUTS)} toolchain layouts pass the three checks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
