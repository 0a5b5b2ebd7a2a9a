#!/usr/bin/env python3
"""`infergap generate` on a KV-cache GPT (scripts/export-llm-models): ref decodes the tokens that
an independent decoding loop over ONNX Runtime's Python API gives (the cache fed back by name,
positions advanced), the model without a cache and the one with an attention mask decode the
same on ref (and ORT), ref:dtype=bf16 parts from
ref at the first step where its token differs, with both margins and a located node, and every
step is a case of the store. Bad input is refused by name.
  tests/llm/generate_spec.py INFERGAP WORK_DIR
Runs in scripts/setup's venv (onnx, onnxruntime); exits 77 without it.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "backends",
                                "ref"))
import spec_venv  # noqa: E402

INFERGAP = spec_venv.enter("generate_spec")

import json  # noqa: E402
import subprocess  # noqa: E402

from ort_greedy import ort_greedy  # noqa: E402

PROMPT, STEPS = [5, 17, 42, 7], 24
EXPORT = os.path.join(spec_venv.ROOT, "scripts", "export-llm-models")


def cli(*args, expect=0):
    r = subprocess.run([INFERGAP, *args], capture_output=True, text=True)
    if r.returncode != expect:
        sys.exit(f"infergap {' '.join(args)}: exit {r.returncode}, wanted {expect}\n{r.stderr}")
    return r


def main():
    subprocess.run([sys.executable, EXPORT, "."], check=True, capture_output=True)
    expected = ort_greedy("gpt_kv.onnx", PROMPT, STEPS)
    prompt = "input_ids=" + ",".join(map(str, PROMPT))
    j = json.loads(cli("generate", "gpt_kv.onnx", "--input", prompt, "--steps", str(STEPS),
                       "-p", "ref", "-p", "ort", "-p", "ref:dtype=bf16", "--store", "g.db",
                       "--json").stdout)
    by = {p["spec"]: p for p in j["platforms"]}
    assert j["kv"][0] == {"past": "past_key_values.0.key", "present": "present.0.key"}, j["kv"]
    assert j["advanced"] == ["position_ids"], j["advanced"]
    assert by["ref"]["tokens"] == expected, (by["ref"]["tokens"], expected)
    assert by["ort"]["tokens"] == expected, by["ort"]["tokens"]
    bf16 = by["ref:dtype=bf16"]["tokens"]
    assert len(bf16) == STEPS and bf16 != expected, bf16
    first = next(i for i, (x, y) in enumerate(zip(expected, bf16)) if x != y)
    d = next(d for d in j["divergences"] if d["a"] == "ref" and d["b"] == "ref:dtype=bf16")
    assert d["first_step"] == first and d["token_a"] == expected[first], d
    assert d["margin_a"] == by["ref"]["margins"][first] and d["margin_a"] > 0, d
    # The flip search: the three differences born at step 2 (the first at the token embedding)
    # fed into ref keep its token; bf16's values flip it only at the last MatMul, whose bf16
    # product ties the top two logits (margin_b 0).
    assert d["first_born"] == "wte/Gather" and d["born"] == 3, d
    assert d["node"] == "lm_head/MatMul" and d["margin_b"] == 0, d
    flip = d["flip"]
    assert flip["searched"] == "differing" and flip["prefix"] == flip["of"] > 100, flip
    assert flip["alone"] and 2 <= flip["runs"] <= 12, flip
    assert "the first 116 keep 498" in d["located"], d["located"]
    assert not any(d["a"] == "ref" and d["b"] == "ort" for d in j["divergences"])
    cases = json.loads(cli("compare", "--store", "g.db", "--json").stdout)["cases"]
    assert len(cases) == STEPS, len(cases)
    assert len(j["step_cases"]) == STEPS and all(j["step_cases"]), j["step_cases"]

    nocache = json.loads(cli("generate", "gpt_nocache.onnx", "--input", prompt, "--steps",
                             str(STEPS), "-p", "ref", "--json").stdout)
    assert nocache["kv"] == [] and nocache["platforms"][0]["tokens"] == expected, nocache

    masked = json.loads(cli("generate", "gpt_kv_mask.onnx", "--input", prompt, "--steps",
                            str(STEPS), "-p", "ref", "-p", "ort", "--json").stdout)
    assert masked["advanced"] == ["position_ids", "attention_mask"], masked["advanced"]
    for p in masked["platforms"]:  # an all-ones mask, grown each step, masks nothing
        assert p["tokens"] == expected, (p["spec"], p["tokens"])

    r = cli("generate", "gpt_kv.onnx", "--input", "input_ids=5,x", "-p", "ref", expect=2)
    assert "'x' is not a token id" in r.stderr, r.stderr
    r = cli("generate", "gpt_kv.onnx", "--input", "tokens=5", "-p", "ref", expect=2)
    assert "gpt_kv.onnx: input 'input_ids' is not tokens" in r.stderr, r.stderr
    r = cli("generate", "gpt_kv.onnx", "--input", prompt, "--kv",
            "past_key_values.0.key=nope", "-p", "ref", expect=2)
    assert "the model has no output 'nope'" in r.stderr, r.stderr
    print(f"generate_spec: ok ({STEPS} steps; ref = ORT's decoding; bf16 parts at step {first} "
          f"at {d['node']})")


main()
