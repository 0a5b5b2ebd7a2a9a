#!/usr/bin/env python3
"""RotaryEmbedding-23 on ref against the numpy algorithm of its ONNX definition (transcribed below):
bit for bit in float32, on a 4-D input with position_ids and a partial rotary dim, and a 3-D input
with num_heads, interleaved. ONNX Runtime 1.31 and the fp64 oracle run too and must be within 1e-6.
  tests/backends/ref/rotary_embedding_spec.py INFERGAP WORK_DIR
Runs in scripts/setup's venv (onnx, numpy; onnxruntime for ORT 1.31); exits 77 without it.
"""
import sys

import spec_venv

INFERGAP = spec_venv.enter("rotary_embedding_spec")
import importlib.util  # noqa: E402

HAVE_ORT = importlib.util.find_spec("onnxruntime") is not None

import json
import subprocess

import numpy as np
import onnx
from onnx import helper, TensorProto as T, numpy_helper
def rotary_embedding(input, cos_cache, sin_cache, position_ids=None, interleaved=None, rotary_embedding_dim=None, num_heads=None):
    original_input_shape = input.shape
    if len(input.shape) == 4: input = np.transpose(input, (0, 2, 1, 3))
    batch_size = input.shape[0]; sequence_length = input.shape[1]
    if len(input.shape) == 3:
        hidden_size = input.shape[2]; head_size = int(hidden_size / num_heads)
        input = np.reshape(input, [batch_size, sequence_length, num_heads, head_size])
    head_size = input.shape[3]
    if rotary_embedding_dim is None or rotary_embedding_dim == 0: rotary_embedding_dim = head_size
    x_rotate = input[:, :, :, :rotary_embedding_dim]; x_not_rotate = input[:, :, :, rotary_embedding_dim:]
    if position_ids is not None:
        cos_cache = cos_cache[position_ids]; sin_cache = sin_cache[position_ids]
    cos_cache = np.expand_dims(cos_cache, axis=2); sin_cache = np.expand_dims(sin_cache, axis=2)
    if interleaved: x1 = x_rotate[:, :, :, 0::2]; x2 = x_rotate[:, :, :, 1::2]
    else: x1, x2 = np.split(x_rotate, 2, axis=-1)
    real = (cos_cache * x1) - (sin_cache * x2); imag = (sin_cache * x1) + (cos_cache * x2)
    if interleaved:
        real = np.expand_dims(real, axis=-1); imag = np.expand_dims(imag, axis=-1)
        x_rotate = np.reshape(np.concatenate((real, imag), axis=-1), x_rotate.shape)
    else: x_rotate = np.concatenate((real, imag), axis=-1)
    output = np.concatenate((x_rotate, x_not_rotate), axis=-1)
    return np.reshape(output, original_input_shape) if len(original_input_shape) == 3 else np.transpose(output, (0, 2, 1, 3))
rng = np.random.default_rng(0)
B, S, H, D = 2, 5, 3, 8
cases = {
  'four_d_pos_partial': dict(x=rng.normal(size=(B,H,S,D)).astype(np.float32), rd=4, inter=0, heads=0, pos=True),
  'three_d_interleaved': dict(x=rng.normal(size=(B,S,H*D)).astype(np.float32), rd=0, inter=1, heads=H, pos=False),
}
ok = True
for name, c in cases.items():
    rd = c['rd'] or D; half = rd // 2
    if c['pos']:
        cos = rng.uniform(-1,1,(16,half)).astype(np.float32); sin = rng.uniform(-1,1,(16,half)).astype(np.float32)
        pos = rng.integers(0,16,(B,S)).astype(np.int64)
    else:
        cos = rng.uniform(-1,1,(B,S,half)).astype(np.float32); sin = rng.uniform(-1,1,(B,S,half)).astype(np.float32); pos=None
    inits = [numpy_helper.from_array(cos,'cos'), numpy_helper.from_array(sin,'sin')]
    ins = ['x','cos','sin']
    if pos is not None: inits.append(numpy_helper.from_array(pos,'pos')); ins.append('pos')
    attrs = dict(interleaved=c['inter'], rotary_embedding_dim=c['rd'])
    if c['heads']: attrs['num_heads'] = c['heads']
    X = helper.make_tensor_value_info('x', T.FLOAT, list(c['x'].shape)); Y = helper.make_tensor_value_info('y', T.FLOAT, list(c['x'].shape))
    g = helper.make_graph([helper.make_node('RotaryEmbedding', ins, ['y'], name='rope', **attrs)], 'g', [X], [Y], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid('',23)], ir_version=10)
    onnx.checker.check_model(m, full_check=True); onnx.save(m, f'{name}.onnx'); np.save(f'{name}.x.npy', c['x'])
    want = rotary_embedding(c['x'], cos, sin, pos, c['inter'], c['rd'], c['heads'] or None)
    out = subprocess.run([INFERGAP, 'run', f'{name}.onnx', '--input', f'x={name}.x.npy', '-p', 'ref', '-p', 'ref:acc=exact,dtype=fp64'] + (['-p', 'ort:version=1.31'] if HAVE_ORT else []) + [ '--save-outputs', f'out_{name}', '--json'], capture_output=True, text=True)
    runs = {p['spec']: p for p in json.loads(out.stdout)['platforms']}
    for spec in runs:
        if runs[spec]['verdict'] != 'ok': print(name, spec, runs[spec]['verdict'], runs[spec].get('reason')); ok = False; continue
        got = np.load(f"out_{name}/{spec.replace(':','_').replace(',','_')}/y.npy")
        print(name, spec, 'bitwise' if np.array_equal(got, want) else f'max diff {np.abs(got-want).max():.3g}')
        if spec == 'ref' and not np.array_equal(got, want): ok = False
        if np.abs(got.astype(np.float64) - want).max() > 1e-6: ok = False
sys.exit(0 if ok else 1)
