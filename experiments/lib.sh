# Shared by experiments/<finding>/run: where the CLI is, where results go, and a logged runner.
# Every experiment writes $OUT/result.json (see experiments/common.py) and, where it made a store,
# $OUT/report.html.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
IG="${INFERGAP:-$ROOT/build/infergap}"
NAME="$(basename "$(cd "$(dirname "$0")" && pwd)")"
OUT="${EXPERIMENTS_OUT:-$ROOT/out/experiments}/$NAME"
rm -rf "$OUT"
mkdir -p "$OUT"
if [[ ! -x "$IG" ]]; then
  echo "$NAME: $IG is missing; run scripts/build first" >&2
  exit 2
fi
export PYTHONPATH="$ROOT/experiments${PYTHONPATH:+:$PYTHONPATH}"

# ig ARGS...: runs the CLI, logs the command line to $OUT/commands.txt (the recipe of the numbers).
# Exit 1 (the job ran, some platform or run failed: recorded as verdicts) is a result, not an
# error; exit 2 and up stop the experiment.
ig() {
  echo "infergap $*" >>"$OUT/commands.txt"
  local rc=0
  "$IG" "$@" || rc=$?
  if ((rc == 1)); then
    echo "$NAME: infergap $1: some runs failed (recorded as verdicts)" >&2
  elif ((rc != 0)); then
    return "$rc"
  fi
}

# has COMMAND: whether this build has the subcommand.
has() { "$IG" --help | grep -q "^  $1 "; }

# report DB: the HTML report of a store, when this build has the report command.
report() {
  if has report; then
    ig report --store "$1" -o "${2:-$OUT/report.html}" >/dev/null || echo "$NAME: report failed" >&2
  fi
}

# cpu_has FLAG: whether this CPU has the /proc/cpuinfo flag (e.g. avx512f): platforms that need it
# die with SIGILL elsewhere, so experiments add them only where they run.
cpu_has() { grep -qw "$1" /proc/cpuinfo 2>/dev/null; }
