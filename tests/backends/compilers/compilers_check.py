#!/usr/bin/env python3
"""The deep-learning compiler platforms as a user meets them (ctest compilers.verdicts): through
`infergap run --json` and `infergap study` + `origins`, on small models written here.

- A model each compiler runs: outputs within 1e-6 of numpy's, eager and compiled.
- An operator a compiler refuses is an `unsupported` verdict carrying the compiler's own words
  (OpenVINO: no conversion rule for Det; onnx2torch: no converter for Det; IREE: Softsign not
  legalized), and the other platforms of the run go on.
- OpenVINO says what precision its layers ran in: bf16 by default on a CPU with AVX512-BF16 or
  AMX, f32 when held to it.
- A traced study: origins reaches back through torch.compile's whole graph and names it; on
  OpenVINO it stops at the runtime layer (Conv+Relu) whose values the plugin exposed.
- Without the venv's python, the platform is unsupported with the way to get it.

    tests/backends/compilers/compilers_check.py build/infergap WORK_DIR
                                       (exit 77: no venv, or it lacks the compilers)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ref"))
import spec_venv  # noqa: E402

CLI = spec_venv.enter("compilers check")
import json  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "corpus"))
from run_corpus import COMPILER_MODULES  # noqa: E402  (the packages the compilers need)

SKIP = 77


def need_modules():
    missing = []
    for module in COMPILER_MODULES:
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    return missing


def write_models(folder):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(7)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)

    def save(name, nodes, inputs, outputs, inits=()):
        graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        onnx.checker.check_model(model, full_check=True)
        path = os.path.join(folder, name + ".onnx")
        onnx.save(model, path)
        return path

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    conv = save("conv_relu", [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("Relu", ["c"], ["y"], name="relu")],
        [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
        [numpy_helper.from_array(w, "w")])
    chain = save("conv_relu_softsign", [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Softsign", ["r"], ["y"], name="soft")],
        [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
        [numpy_helper.from_array(w, "w")])
    det = save("det", [helper.make_node("Det", ["m"], ["d"], name="det")],
               [helper.make_tensor_value_info("m", TensorProto.FLOAT, [3, 3])],
               [helper.make_tensor_value_info("d", TensorProto.FLOAT, [])])
    return conv, chain, det, w


def conv_relu_reference(x, w):
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    y = np.zeros((1, 4, 8, 8))
    for o in range(4):
        for i in range(8):
            for j in range(8):
                y[0, o, i, j] = np.sum(xp[0, :, i:i + 3, j:j + 3] * w[o])
    return np.maximum(y, 0)


def run_json(cli, model, specs, inputs, out=None, env=None):
    cmd = [cli, "run", model, "--json"] + [a for i in inputs for a in ("--input", i)]
    if out:
        cmd += ["--save-outputs", out]
    for s in specs:
        cmd += ["-p", s]
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr}")
    return {p["spec"]: p for p in json.loads(done.stdout)["platforms"]}


def cpu_has_bf16():
    with open("/proc/cpuinfo") as f:
        flags = next((line for line in f if line.startswith("flags")), "").split()
    return "avx512_bf16" in flags or "amx_bf16" in flags


def main():
    missing = need_modules()
    if missing:
        print(f"compilers check: skipped, the venv lacks {', '.join(missing)} (scripts/setup --tests)")
        return SKIP
    failures = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory(prefix="infergap-compilers-") as tmp:
        conv, chain, det, w = write_models(tmp)
        x = np.random.default_rng(3).standard_normal((1, 3, 8, 8)).astype(np.float32)
        np.save(os.path.join(tmp, "x.npy"), x)
        want = conv_relu_reference(x, w)
        specs = ["openvino:precision=f32", "iree:opt=O0", "iree:opt=O2", "torch2:compile=off",
                 "torch2:compile=inductor"]
        out = os.path.join(tmp, "out")
        runs = run_json(CLI, conv, specs, [f"x={tmp}/x.npy"], out)
        for spec in specs:
            p = runs[spec]
            ok = p["verdict"] == "ok"
            err = float("inf")
            if ok:
                folder = "".join(c if c.isalnum() or c in "-_.=" else "_" for c in spec)
                y = np.load(os.path.join(out, folder, "y.npy"))
                err = float(np.max(np.abs(y - want)))
            check(ok and err <= 1e-5, f"{spec} runs Conv+Relu within 1e-5 of numpy ({err:.2e})")
            check(bool(p.get("library")) and bool(p.get("version")),
                  f"{spec} names its library ({p.get('library')} {p.get('version')})")

        runs = run_json(CLI, det, ["openvino", "torch2", "ref"], [])
        check(runs["ref"]["verdict"] == "ok", "ref runs Det beside the refusing compilers")
        ov, t2 = runs["openvino"], runs["torch2"]
        check(ov["verdict"] == "unsupported" and "Det" in ov["reason"] and
              "conversion rule" in ov["reason"],
              f"openvino refuses Det in its own words: {ov.get('reason', '')[:160]}")
        check(t2["verdict"] == "unsupported" and "Det" in t2["reason"] and
              "onnx2torch" in t2["reason"],
              f"torch2 refuses Det in onnx2torch's words: {t2.get('reason', '')[:160]}")

        runs = run_json(CLI, chain, ["iree", "openvino:precision=f32"], [f"x={tmp}/x.npy"])
        iree = runs["iree"]
        check(iree["verdict"] == "unsupported" and "Softsign" in iree["reason"] and
              "iree-compile" in iree["reason"],
              f"iree refuses Softsign in iree-compile's words: {iree.get('reason', '')[:160]}")
        check(runs["openvino:precision=f32"]["verdict"] == "ok", "openvino runs Softsign")

        runs = run_json(CLI, conv, ["openvino", "openvino:precision=f32"],
                        [f"x={tmp}/x.npy"])
        auto = runs["openvino"]["outputs"][0].get("note", "")
        held = runs["openvino:precision=f32"]["outputs"][0].get("note", "")
        expect = "bf16" if cpu_has_bf16() else "f32"
        check(f"in 1 {expect}" in auto or f", 1 {expect}" in auto,
              f"openvino's default names the precision it ran ({expect} on this CPU): {auto}")
        check("1 f32" in held and "bf16" not in held, f"openvino held to f32 says so: {held}")

        store = os.path.join(tmp, "study.db")
        done = subprocess.run([CLI, "study", "--model", chain, "--input", f"x={tmp}/x.npy",
                               "-p", "ref", "-p", "torch2:compile=inductor", "--oracle", "none",
                               "--store", store, "--no-report"], capture_output=True, text=True)
        check(done.returncode == 0, f"a traced study on torch2 completes ({done.stderr[-200:]})")
        done = subprocess.run([CLI, "origins", "--store", store, "--json"],
                              capture_output=True, text=True)
        pairs = json.loads(done.stdout)["pairs"] if done.returncode == 0 else []
        origins = [o for p in pairs for o in p["origins"]]
        check(len(origins) == 1 and origins[0].get("covers") == ["conv", "relu", "soft"],
              f"origins names torch2's compiled graph as one group: {origins}")

        # OpenVINO exposes the edges of its runtime layers: Conv+Relu is one layer, Softsign another.
        store = os.path.join(tmp, "study-ov.db")
        subprocess.run([CLI, "study", "--model", chain, "--input", f"x={tmp}/x.npy", "-p", "ref",
                        "-p", "openvino:precision=f32", "--oracle", "none", "--store", store,
                        "--no-report"], capture_output=True, text=True)
        done = subprocess.run([CLI, "origins", "--store", store, "--json"],
                              capture_output=True, text=True)
        pairs = json.loads(done.stdout)["pairs"] if done.returncode == 0 else []
        origins = [(o["node"], o.get("covers")) for p in pairs for o in p["origins"]]
        check(origins == [("relu", ["conv", "relu"])],
              f"openvino's traced run gives its fused Conv+Relu layer, origin there: {origins}")

        env = dict(os.environ, INFERGAP_PYTHON=os.path.join(tmp, "no-python"))
        runs = run_json(CLI, conv, ["openvino"], [f"x={tmp}/x.npy"], env=env)
        reason = runs["openvino"].get("reason", "")
        check(runs["openvino"]["verdict"] == "unsupported" and "scripts/setup --tests" in reason,
              f"without the venv, openvino says how to get it: {reason}")
    print(f"compilers check: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
