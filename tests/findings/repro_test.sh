#!/bin/sh
# tests/findings/repro_test.sh INFERGAP FOLDER: a committed finding's repro.sh
# (experiments/findings/sample/) still shows its difference with this build (exit 0), and a
# tampered copy that compares B with itself does not (exit 1), so the check is not vacuous.
# Exits 77 (ctest's skip) where the finding's platforms do not run on this host.
set -u
IG=$1
DIR=$2
ID=$(basename "$DIR")
INFERGAP=$IG sh "$DIR/repro.sh"
rc=$?
[ "$rc" = 77 ] && exit 77
if [ "$rc" != 0 ]; then
  echo "$ID: repro.sh exited $rc: the finding no longer reproduces" >&2
  exit 1
fi
COPY=$(mktemp -d)
trap 'rm -rf "$COPY"' EXIT
cp -r "$DIR/." "$COPY/"
grep -q "^A='" "$COPY/repro.sh" || { echo "$ID: repro.sh names no platform A" >&2; exit 1; }
sed -i "s/^A='.*/A=\"\$B\"/" "$COPY/repro.sh"
INFERGAP=$IG sh "$COPY/repro.sh" >"$COPY/tampered.log" 2>&1
rc=$?
if [ "$rc" != 1 ]; then
  cat "$COPY/tampered.log" >&2
  echo "$ID: with A = B, repro.sh exited $rc instead of 1: it shows no real difference" >&2
  exit 1
fi
echo "$ID: reproduces; with A = B it reports the difference gone"
