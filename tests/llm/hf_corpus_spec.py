#!/usr/bin/env python3
"""The Hugging Face corpus (scripts/export-hf-models): BERT and a KV-cache GPT-2 from
`transformers` configurations, as exported, as ORT's transformer optimizer fuses them and as its
MatMulNBits quantizer writes them. Each holds the operators it is meant to (EmbedLayerNormalization,
Attention, SkipLayerNormalization, BiasGelu, FastGelu, MatMulNBits), the export is the same bytes
twice, ref and ORT stay within 1e-5 of the fp64 oracle on every output of every model, and
`infergap generate` decodes on ref, ORT and ref:dtype=bf16 the tokens that an independent
decoding loop over ORT's Python API gives.
  tests/llm/hf_corpus_spec.py INFERGAP WORK_DIR
Runs in scripts/setup --tests's venv (transformers, onnxruntime); exits 77 without it.
"""
import collections
import hashlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "backends",
                                "ref"))
import spec_venv  # noqa: E402

INFERGAP = spec_venv.enter("hf_corpus_spec", needs=("transformers", "onnxruntime"), fresh=True)

import json  # noqa: E402
import subprocess  # noqa: E402

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from ort_greedy import ort_greedy  # noqa: E402

EXPORT = os.path.join(spec_venv.ROOT, "scripts", "export-hf-models")
PROMPT, STEPS, BOUND = [415, 43, 91, 121, 92, 410, 445, 298], 8, 1e-5
FUSED = {
    "hf_bert_opt": {"EmbedLayerNormalization", "Attention", "SkipLayerNormalization", "BiasGelu"},
    "hf_gpt2_kv_opt": {"SkipLayerNormalization", "FastGelu"},
}


def cli(*args):
    r = subprocess.run([INFERGAP, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"infergap {' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    return r.stdout


def contrib_ops(name):
    m = onnx.load(f"{name}.onnx")
    return collections.Counter(n.op_type for n in m.graph.node if n.domain == "com.microsoft")


def digest(names):
    return {n: hashlib.sha256(open(f"{n}.onnx", "rb").read()).hexdigest() for n in names}


def check_operators(names):
    for base, fused in FUSED.items():
        ops = contrib_ops(base)
        if not fused <= set(ops):
            sys.exit(f"{base}: fused operators {sorted(set(ops))}, wanted {sorted(fused)}")
        q4 = contrib_ops(base + "_q4")
        if q4["MatMulNBits"] < 6 or not fused <= set(q4):
            sys.exit(f"{base}_q4: {dict(q4)}: wanted MatMulNBits for every weight MatMul")
    if contrib_ops("hf_bert") or contrib_ops("hf_gpt2_kv"):
        sys.exit("the plain exports hold com.microsoft operators")
    print(f"hf_corpus: fused {dict(contrib_ops('hf_bert_opt'))}, "
          f"{dict(contrib_ops('hf_gpt2_kv_opt_q4'))}")


def check_against_oracle(models, inputs, extra, store):
    args = ["study", "--store", store, "--no-report", "-p", "ref", "-p", "ort"]
    for m in models:
        args += ["--model", f"{m}.onnx"]
    for name, path in inputs.items():
        args += ["--input", f"{name}={path}"]
    cli(*args, *extra)
    report = json.loads(cli("compare", "--store", store, "--json"))
    ranking = {r["platform"]: r for r in report["oracle_ranking"]}
    for platform in ("ref", "ort"):
        r = ranking.get(platform)
        if r is None or r["cases"] != len(models):
            sys.exit(f"{store}: {platform} was not judged on all {len(models)} models: {r}")
        if not r["max_abs_error"] <= BOUND:
            sys.exit(f"{store}: {platform} is {r['max_abs_error']} off the oracle (bound {BOUND})")
        print(f"hf_corpus: {store}: {platform} within {r['max_abs_error']:.3g} of the oracle")


def check_generate(name):
    expected = ort_greedy(f"{name}.onnx", PROMPT, STEPS)
    j = json.loads(cli("generate", f"{name}.onnx", "--input",
                       "input_ids=" + ",".join(map(str, PROMPT)), "--steps", str(STEPS),
                       "-p", "ref", "-p", "ort", "-p", "ref:dtype=bf16", "--json"))
    for p in j["platforms"]:
        if p["spec"] in ("ref", "ort") and p["tokens"] != expected:
            sys.exit(f"{name}: {p['spec']} decoded {p['tokens']}, ORT's loop {expected}")
        if len(p["tokens"]) != STEPS:
            sys.exit(f"{name}: {p['spec']} decoded {len(p['tokens'])} tokens, wanted {STEPS}")
    print(f"hf_corpus: {name}: ref and ort decode {expected}")


def main():
    names = [f"hf_{m}{s}" for m in ("bert", "gpt2_kv") for s in ("", "_opt", "_opt_q4")]
    for run in ("a", "b"):
        os.makedirs(run)
        subprocess.run([sys.executable, EXPORT, run], check=True, capture_output=True)
    os.chdir("a")
    first = digest(names)
    os.chdir("../b")
    if digest(names) != first:
        sys.exit("two exports of the same configurations differ")
    os.chdir("../a")
    check_operators(names)
    rng = np.random.default_rng(7)
    np.save("ids.npy", rng.integers(0, 512, (1, 8)).astype(np.int64))
    np.save("ones.npy", np.ones((1, 8), np.int64))
    np.save("zeros.npy", np.zeros((1, 8), np.int64))
    np.save("positions.npy", np.arange(8)[None].astype(np.int64))
    check_against_oracle(names[:3], {"input_ids": "ids.npy", "attention_mask": "ones.npy",
                                     "token_type_ids": "zeros.npy"}, [], "bert.db")
    check_against_oracle(names[3:], {"input_ids": "ids.npy", "attention_mask": "ones.npy",
                                     "position_ids": "positions.npy"}, ["--dim", "past=0"],
                         "gpt2.db")
    check_generate("hf_gpt2_kv_opt_q4")
    print("hf_corpus: ok")


if __name__ == "__main__":
    main()
