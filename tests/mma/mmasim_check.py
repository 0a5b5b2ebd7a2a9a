"""ref:mma presets against MMA-Sim's instruction models, bit for bit (scripts/check-mma)."""
import subprocess
import sys

import numpy as np
import torch
from mmasim.amd import MFMA
from mmasim.nv_ptx import MMA, TCGen05MMA, WGMMA

# preset -> (MMA-Sim instruction, K per dot product: two instructions' worth, so chains count)
PRESETS = {
    "v100-fp16": (lambda: MMA("Volta", "m8n8k4.f32.f16.f16.f32"), 8),
    "a100-fp16": (lambda: MMA("Ampere", "m16n8k16.f32.f16.f16.f32"), 32),
    "a100-fp16-acc16": (lambda: MMA("Ampere", "m16n8k16.f16.f16.f16.f16"), 32),
    "a100-bf16": (lambda: MMA("Ampere", "m16n8k16.f32.bf16.bf16.f32"), 32),
    "a100-tf32": (lambda: MMA("Ampere", "m16n8k8.f32.tf32.tf32.f32"), 16),
    "h100-fp16": (lambda: WGMMA("Hopper", "m64n8k16.f32.f16.f16"), 32),
    "h100-fp16-acc16": (lambda: WGMMA("Hopper", "m64n8k16.f16.f16.f16"), 32),
    "h100-bf16": (lambda: WGMMA("Hopper", "m64n8k16.f32.bf16.bf16"), 32),
    "h100-tf32": (lambda: WGMMA("Hopper", "m64n8k8.f32.tf32.tf32"), 16),
    "h100-fp8": (lambda: WGMMA("Hopper", "m64n8k32.f32.e4m3.e4m3"), 64),
    "b200-fp16": (lambda: TCGen05MMA("Blackwell", "m64n8k16.kind::f16.f32.f16.f16"), 32),
    "b200-bf16": (lambda: TCGen05MMA("Blackwell", "m64n8k16.kind::f16.f32.bf16.bf16"), 32),
    "b200-tf32": (lambda: TCGen05MMA("Blackwell", "m64n8k8.kind::tf32.f32.tf32.tf32"), 16),
    "b200-fp8": (lambda: TCGen05MMA("Blackwell", "m64n8k32.kind::f8f6f4.f32.e4m3.e4m3"), 64),
    "mi250-fp16": (lambda: MFMA("CDNA2", "f32_32x32x8f16"), 16),
    "mi250-bf16": (lambda: MFMA("CDNA2", "f32_32x32x8bf16_1k"), 16),
    "mi300-fp16": (lambda: MFMA("CDNA3", "f32_32x32x8_f16"), 16),
    "mi300-bf16": (lambda: MFMA("CDNA3", "f32_32x32x8_bf16"), 16),
    "mi300-tf32": (lambda: MFMA("CDNA3", "f32_32x32x4_xf32"), 8),
    "mi300-fp8": (lambda: MFMA("CDNA3", "f32_32x32x16_fp8_fp8"), 32),
}


def operands(op, n, k, rng):
    """n dot products of length k in the instruction's types: random of several kinds, then the
    discriminating cases."""
    in_type, c_type = op.a_type, op.c_type
    kind = rng.integers(0, 6, n)
    sign = rng.choice([-1.0, 1.0], (n, k))
    mant = rng.uniform(1, 2, (n, k))
    # 0: normal(0, 1); 1: exponents over +-20; 2: over the type's whole range; 3: cancellation
    # (a pair that cancels and small rest); 4: subnormals and zeros; 5: many equal terms (ties).
    fin = torch.finfo(in_type)
    lo = int(np.log2(fin.smallest_normal)) - (3 if in_type != torch.float32 else 10)
    hi = int(np.log2(float(fin.max))) - 1
    e = np.select(
        [kind[:, None] == 1, kind[:, None] == 2, kind[:, None] == 4],
        [rng.integers(-20, 21, (n, k)), rng.integers(lo, hi, (n, k)), rng.integers(lo - 4, lo + 2, (n, k))],
        rng.integers(-3, 3, (n, k)),
    )
    a = np.where(kind[:, None] == 0, rng.normal(0, 1, (n, k)), sign * mant * np.exp2(e.astype(float)))
    b = np.where(kind[:, None] == 0, rng.normal(0, 1, (n, k)), rng.choice([-1.0, 1.0], (n, k)) *
                 rng.uniform(1, 2, (n, k)) * np.exp2(rng.integers(-3, 3, (n, k)).astype(float)))
    canc = kind == 3
    a[canc, 1] = -a[canc, 0]
    b[canc, 1] = b[canc, 0]
    a[canc, 2:] *= 2.0 ** -rng.integers(10, 40, (int(canc.sum()), 1))
    ties = kind == 5
    a[ties] = np.exp2(rng.integers(-2, 3, (int(ties.sum()), 1)).astype(float)) * (1 + 2.0 ** -8)
    b[ties] = rng.choice([-1.0, 1.0], (int(ties.sum()), k))
    zero = rng.random((n, k)) < 0.05
    a[zero] = rng.choice([0.0, -0.0], int(zero.sum()))
    c = np.where(rng.random(n) < 0.2, rng.choice([0.0, -0.0], n),
                 rng.normal(0, 1, n) * np.exp2(rng.integers(-30, 30, n).astype(float)))
    c[kind == 4] *= 2.0 ** -100
    # Infinities and NaN in a few products and accumulators (fp8 e4m3 has no infinity).
    special = rng.random(n) < 0.01
    a[special, 0] = rng.choice([np.inf, -np.inf, np.nan], int(special.sum()))
    c[rng.random(n) < 0.005] = np.inf
    sat = float(fin.max)
    if in_type in (torch.float8_e4m3fn, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz):
        a[special, 0] = sat
    A = torch.from_numpy(np.where(np.isfinite(a), np.clip(a, -sat, sat), a)).to(torch.float32).to(in_type)
    B = torch.from_numpy(np.clip(b, -sat, sat)).to(torch.float32).to(in_type)
    if in_type == torch.float32:  # tf32 operands: what the unit reads
        A = (A.view(torch.int32) >> 13 << 13).view(torch.float32)
        B = (B.view(torch.int32) >> 13 << 13).view(torch.float32)
    C = torch.from_numpy(c).to(torch.float32).to(c_type)
    return A, B, C


def main():
    infergap, work, dots = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = np.random.default_rng(2026)
    failed = 0
    for preset, (make, k) in PRESETS.items():
        op = make()
        A, B, C = operands(op, dots, k, rng)
        want = op.dpa(A, B, C).to(torch.float32)
        rec = torch.cat([A.to(torch.float32), B.to(torch.float32), C.to(torch.float32)[:, None]], 1)
        path_in, path_out = f"{work}/{preset}.in", f"{work}/{preset}.out"
        rec.numpy().astype("<f4").tofile(path_in)
        subprocess.run([infergap, "mma", "batch", "--unit", preset, "--k", str(k), path_in,
                        "-o", path_out], check=True, stdout=subprocess.DEVNULL)
        got = np.fromfile(path_out, dtype="<u4")
        ref = want.numpy().view("<u4")
        bad = np.nonzero(got != ref)[0]
        print(f"{preset}: {len(ref)} dot products (K={k}), {len(bad)} differ from MMA-Sim")
        for i in bad[:3]:
            print(f"  #{i}: a={A[i].tolist()} b={B[i].tolist()} c={C[i].item()} "
                  f"infergap={got[i]:#010x} mmasim={ref[i]:#010x}")
        failed += len(bad) > 0
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
