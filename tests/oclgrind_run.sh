#!/bin/sh
# oclgrind_run.sh OCLGRIND LOG PROGRAM: runs PROGRAM under oclgrind's race and uninitialized-value detectors; fails on
# its failure and on any diagnostic oclgrind logs (a data race, an uninitialized value, an out-of-bounds or unaligned
# access, a bad API call), printing them. -cl-opt-disable: oclgrind 21.10 cannot run LLVM's freeze and
# noalias.scope.decl, which optimised kernels contain.
set -u
oclgrind=$1 log=$2 program=$3
rm -f "$log"
"$oclgrind" --data-races --uninitialized --check-api --build-options -cl-opt-disable --log "$log" "$program" || status=$?
if [ -s "$log" ]; then
  cat "$log"
  echo "oclgrind reported the above" >&2
  exit 1
fi
exit "${status:-0}"
