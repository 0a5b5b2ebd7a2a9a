#!/bin/sh
# F150: ort | exceptional:ignore | Clip
# Exits 0 while A and B still differ, 1 once that has vanished,
# 77 (skipped) where A or B does not run on this host, 2 when infergap itself fails.
# infergap: $INFERGAP, else the one on PATH, else the one that wrote this script.
B='ref'
A='ort:opt=all,threads=1'
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -n "${INFERGAP:-}" ]; then IG=$INFERGAP
elif command -v infergap >/dev/null 2>&1; then IG=$(command -v infergap)
else IG="/work/main/build/infergap"; fi
LIST=$("$IG" platforms -p "$A" -p "$B") || { echo "F150: $IG platforms failed" >&2; exit 2; }
MISSING=$(printf '%s\n' "$LIST" | awk 'NR > 1 && $2 == "no"')
if [ -n "$MISSING" ]; then
  echo "F150: skipped: a platform does not run on this host:"
  printf '%s\n' "$MISSING"
  exit 77
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
saved() { printf '%s' "$1" | tr -c 'A-Za-z0-9._=-' '_'; }
"$IG" run "$HERE/reduced.onnx" --input "/features/features.17/conv/conv.1/conv.1.0/Conv_output_0=$HERE/inputs/_features_features.17_conv_conv.1_conv.1.0_Conv_output_0.npy" --input "/features/features.17/conv/conv.1/conv.1.2/Constant_1_output_0=$HERE/inputs/_features_features.17_conv_conv.1_conv.1.2_Constant_1_output_0.npy" --input "/features/features.17/conv/conv.1/conv.1.2/Constant_output_0=$HERE/inputs/_features_features.17_conv_conv.1_conv.1.2_Constant_output_0.npy" -p "$A" -p "$B" --save-outputs "$OUT" || exit 2
differs=0
"$IG" diff "$OUT/$(saved "$A")/_features_features.17_conv_conv.1_conv.1.2_Clip_output_0.npy" "$OUT/$(saved "$B")/_features_features.17_conv_conv.1_conv.1.2_Clip_output_0.npy" --expect-differ tolerance --rtol 0.001 --atol 1e-05 && differs=1
if [ "$differs" = 1 ]; then
  echo "F150: $A and $B still differ (tolerance)"
  exit 0
fi
echo "F150: the difference vanished" >&2
exit 1
