#!/bin/sh
# oclgrind_run.sh OCLGRIND LOG PROGRAM: runs PROGRAM under oclgrind's race detector; fails on its failure and on any
# diagnostic oclgrind logs (a data race, an out-of-bounds or unaligned access, a bad API call), printing them.
set -u
oclgrind=$1 log=$2 program=$3
rm -f "$log"
"$oclgrind" --data-races --check-api --log "$log" "$program" || status=$?
if [ -s "$log" ]; then
  cat "$log"
  echo "oclgrind reported the above" >&2
  exit 1
fi
exit "${status:-0}"
