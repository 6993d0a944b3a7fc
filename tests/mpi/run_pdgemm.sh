#!/usr/bin/env bash
# tests/mpi/run_pdgemm: examples/scalapack_pdgemm on 4 MPI ranks with the drop-in preloaded and every dgemm_ offloaded,
# then each rank's log: every local dgemm_ ran on tilegemm's OpenCL device, with panels of the expected width.
#
#   run_pdgemm.sh MPIEXEC EXAMPLE DROP_IN OUT_DIR PILAENV WIDTH N NB
#
# PILAENV: TILEGEMM_PILAENV's value, or "unset"; WIDTH: the k of the widest local dgemm_ expected (32 where ScaLAPACK's
# own pilaenv_ answers). A value of TILEGEMM_PILAENV that is not a plain positive number must be refused on stderr,
# once per rank.
# Inside mpirun the script runs itself as each rank's wrapper (--rank), to give each rank its own TILEGEMM_BLAS_LOG.
set -euo pipefail

if [ "${1:-}" = --rank ]; then
  out=$2 drop_in=$3
  shift 3
  export TILEGEMM_BLAS_LOG="$out/rank-${OMPI_COMM_WORLD_RANK:?not started by Open MPI}.log"
  export LD_PRELOAD="$drop_in${LD_PRELOAD:+:$LD_PRELOAD}"
  exec "$@"
fi

mpiexec=$1 example=$2 drop_in=$3 out=$4 pilaenv=$5 width=$6 n=$7 nb=$8
ranks=4
rm -rf "$out"
mkdir -p "$out"
# Open MPI as root (CI's containers), 4 ranks on however few cores, shared memory without CMA (containers forbid it).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TILEGEMM_BLAS_OFFLOAD=always TILEGEMM_DEVICE=local-rank
if [ "$pilaenv" = unset ]; then unset TILEGEMM_PILAENV; else export TILEGEMM_PILAENV=$pilaenv; fi
# One OpenBLAS or PoCL thread pool per rank would oversubscribe the cores many times over.
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1

status=0
"$mpiexec" -np $ranks --oversubscribe --mca btl self,vader --mca btl_vader_single_copy_mechanism none \
  "$0" --rank "$out" "$drop_in" "$example" "$n" 2 2 "$nb" 2> >(tee "$out/stderr.txt" >&2) | tee "$out/output.txt" ||
  status=$?
fail() {
  echo "run_pdgemm: $*" >&2
  exit 1
}
[ "$status" = 0 ] || fail "mpirun or the example failed (exit status $status)"
grep -q "every block right" "$out/output.txt" || fail "the example did not say every block was right"
if [ "$pilaenv" != unset ] && [[ ! $pilaenv =~ ^[1-9][0-9]{0,5}$ ]]; then
  said=$(grep -c "^tilegemm-blas: TILEGEMM_PILAENV=$pilaenv is not a positive integer" "$out/stderr.txt" || true)
  [ "$said" = $ranks ] || fail "$said ranks, not $ranks, said that TILEGEMM_PILAENV=$pilaenv is refused"
fi

for ((rank = 0; rank < ranks; ++rank)); do
  log="$out/rank-$rank.log"
  [ -s "$log" ] || fail "rank $rank wrote no TILEGEMM_BLAS_LOG lines ($log): the drop-in did not take its dgemm_"
  # tilegemm-blas: dgemm_ col NN m=128 n=128 k=128 gpu forced 1.234 ms
  calls=$(grep -c '^tilegemm-blas: dgemm_ ' "$log" || true)
  on_gpu=$(grep -c '^tilegemm-blas: dgemm_ .* gpu forced ' "$log" || true)
  [ "$calls" -gt 0 ] || fail "rank $rank made no dgemm_ call"
  [ "$on_gpu" = "$calls" ] || fail "rank $rank ran $on_gpu of its $calls dgemm_ calls on the device:
$(grep -v ' gpu forced ' "$log" | head -5)"
  ks=$(sed -n 's/^tilegemm-blas: dgemm_ .* k=\([0-9]*\) .*/\1/p' "$log" | sort -n | uniq -c | tr -s ' ' | tr '\n' ';')
  largest=$(sed -n 's/^tilegemm-blas: dgemm_ .* k=\([0-9]*\) .*/\1/p' "$log" | sort -n | tail -1)
  [ "$largest" = "$width" ] || fail "rank $rank: the widest local product had k=$largest, not $width (count k:$ks)"
  grep -q "^rank $rank .* 0 wrong.*; tilegemm-blas: $calls dgemm calls, $calls on the GPU" "$out/output.txt" ||
    fail "rank $rank's own counts do not say $calls dgemm calls, all on the GPU"
  echo "rank $rank: $calls dgemm_ calls, all on tilegemm's device; count k:$ks"
done
