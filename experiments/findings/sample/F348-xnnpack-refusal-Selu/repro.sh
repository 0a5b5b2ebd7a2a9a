#!/bin/sh
# F348: xnnpack | refusal | Selu
# Exits 0 while A still fails where B computes, 1 once that has vanished,
# 77 (skipped) where A or B does not run on this host, 2 when infergap itself fails.
# infergap: $INFERGAP, else the one on PATH, else the one that wrote this script.
B='ref:acc=exact'
A='xnnpack'
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -n "${INFERGAP:-}" ]; then IG=$INFERGAP
elif command -v infergap >/dev/null 2>&1; then IG=$(command -v infergap)
else IG="/work/main/build/infergap"; fi
LIST=$("$IG" platforms -p "$A" -p "$B") || { echo "F348: $IG platforms failed" >&2; exit 2; }
MISSING=$(printf '%s\n' "$LIST" | awk 'NR > 1 && $2 == "no"')
if [ -n "$MISSING" ]; then
  echo "F348: skipped: a platform does not run on this host:"
  printf '%s\n' "$MISSING"
  exit 77
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "# $B computes the model:"
"$IG" run "$HERE/reduced.onnx" --input "/features/features.12/squeeze/Conv_output_0=$HERE/inputs/_features_features_12_squeeze_Conv_output_0.npy" -p "$B" || { echo "F348: $B fails too" >&2; exit 1; }
echo "# $A fails on it:"
"$IG" run "$HERE/reduced.onnx" --input "/features/features.12/squeeze/Conv_output_0=$HERE/inputs/_features_features_12_squeeze_Conv_output_0.npy" -p "$A"
rc=$?
if [ "$rc" = 0 ]; then
  echo "F348: $A ran the model: the failure vanished" >&2
  exit 1
fi
[ "$rc" = 1 ] || { echo "F348: infergap run exited $rc" >&2; exit 2; }
echo "F348: $A still fails"
