"""Greedy decoding over ONNX Runtime's Python API, written from a KV-cache decoder's interface
alone (Hugging Face / Optimum names): the independent decoding the llm spec scripts hold
`infergap generate` to."""
import numpy as np
import onnxruntime as ort


def ort_greedy(path, prompt, steps, heads=2, head_size=64):
    s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [o.name for o in s.get_outputs()]
    wanted = {i.name for i in s.get_inputs()}
    past = {n: np.zeros((1, heads, 0, head_size), np.float32) for n in wanted
            if n.startswith("past")}
    ids, tokens = np.array([prompt]), []
    for _ in range(steps):
        start = len(prompt) + len(tokens) - ids.shape[1]
        feeds = {"input_ids": ids, "position_ids": np.arange(start, start + ids.shape[1])[None],
                 "attention_mask": np.ones((1, start + ids.shape[1]), np.int64), **past}
        out = dict(zip(names, s.run(None, {n: v for n, v in feeds.items() if n in wanted})))
        tokens.append(int(np.argmax(out["logits"][0, -1])))
        past = {n.replace("present", "past_key_values"): v for n, v in out.items()
                if n.startswith("present")}
        ids = np.array([[tokens[-1]]])
    return tokens
