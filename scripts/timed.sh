#!/usr/bin/env bash
# Runs one part of `make test` and writes down how long it took, so a run ends with a table of
# its parts' times (the toolchain, the lints, the native tests, the build, each engine's tests).
#   scripts/timed.sh NAME COMMAND…   runs COMMAND, adds "NAME<TAB>seconds<TAB>exit" to the log
#   scripts/timed.sh --table         prints the log as a table and starts a new one
# The log is target/test-times.tsv.
set -uo pipefail
LOG="$(dirname "$0")/../target/test-times.tsv"
mkdir -p "$(dirname "$LOG")"
if [ "${1:-}" = "--table" ]; then
  [ -f "$LOG" ] || exit 0
  printf '\n| part of make test | time | exit |\n| --- | ---: | ---: |\n'
  awk -F'\t' '{ total += $2; printf "| %s | %d s | %s |\n", $1, $2, $3 } END { printf "| all | %d s (%.0f min) | |\n", total, total / 60 }' "$LOG"
  rm -f "$LOG"
  exit 0
fi
name="$1"
shift
echo "+ $*"
started=$(date +%s)
"$@"
code=$?
printf '%s\t%d\t%d\n' "$name" "$(($(date +%s) - started))" "$code" >>"$LOG"
# A failed part ends the run: the table so far says where the time went.
[ "$code" = 0 ] || "$0" --table
exit "$code"
