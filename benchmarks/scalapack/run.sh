#!/usr/bin/env bash
# benchmarks/scalapack/run: examples/scalapack_pdgemm under mpirun, one rank per GPU, with the BLAS drop-in preloaded
# (every local dgemm_ on its rank's GPU); prints the example's output and, given one GPU's DGEMM rate, the share of
# (ranks x that rate) pdgemm_ reached.
#
#   benchmarks/scalapack/run.sh BUILD N GRID [GPU_DGEMM_GFLOPS]
#
#   BUILD  a build of tilegemm with libtilegemm_blas.so (and examples/scalapack_pdgemm, else carry/bin's is used)
#   GRID   PxQ, P Q ranks (2x2 for 4 GPUs, 1x2 for 2)
#   GPU_DGEMM_GFLOPS  one GPU's device DGEMM at about N/P (e.g. the benchmark's double row), for the share
#
# Environment (optional): TILEGEMM_PILAENV (default 4096, or N if smaller; "unset" leaves ScaLAPACK's 32; at N = 32768
# on a 1x2 grid, TILEGEMM_PILAENV=32768 crashed inside PBLAS (a null pointer in OpenBLAS's dcopy: probably a workspace
# of panel x local columns past 2 GiB, not verified), so panels stay at most 4096 by default),
# NB (block size, default 256), REPEATS (default 3; the best is taken: the first call builds the kernels),
# TILEGEMM_BLAS_OFFLOAD (default always), MPIRUN_ARGS (default: shared memory without CMA, which containers forbid;
# where CMA works, "--mca btl self,vader" alone copies panels once instead of twice), TILEGEMM_BLAS_LOG.
# Where the machine has no ScaLAPACK or no mpirun, run prepare-carry.sh on a Debian 12 machine first and carry
# carry/ along: its libraries come first on LD_LIBRARY_PATH, its Open MPI only where there is no mpirun.
set -euo pipefail
[ $# -ge 3 ] || {
  sed -n '4,10p' "$0" >&2
  exit 2
}
here=$(cd "$(dirname "$0")" && pwd)
build=$1 n=$2 grid=$3 rate=${4:-}
[[ $grid =~ ^([1-9][0-9]*)x([1-9][0-9]*)$ ]] || {
  echo "run.sh: GRID=$grid is not PxQ (e.g. 2x2)" >&2
  exit 2
}
p=${BASH_REMATCH[1]} q=${BASH_REMATCH[2]}
ranks=$((p * q))
carry=$here/carry
drop_in=$(cd "$build" && pwd)/libtilegemm_blas.so
[ -f "$drop_in" ] || {
  echo "run.sh: no $drop_in (cmake --build $build --target tilegemm_blas)" >&2
  exit 1
}
example=$build/examples/scalapack_pdgemm
[ -x "$example" ] || example=$carry/bin/scalapack_pdgemm
[ -x "$example" ] || {
  echo "run.sh: no scalapack_pdgemm in $build/examples or $carry/bin (see prepare-carry.sh)" >&2
  exit 1
}

[ -d "$carry/lib" ] && export LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if command -v mpirun >/dev/null && [ "${USE_CARRIED_MPI:-0}" != 1 ]; then
  mpirun=$(command -v mpirun)
else
  [ -x "$carry/openmpi/usr/bin/mpirun" ] || {
    echo "run.sh: no mpirun here and none carried (prepare-carry.sh)" >&2
    exit 1
  }
  export OPAL_PREFIX=$carry/openmpi/usr
  mpirun=$OPAL_PREFIX/bin/mpirun
  export PATH=$OPAL_PREFIX/bin:$PATH
  export LD_LIBRARY_PATH=$OPAL_PREFIX/lib/x86_64-linux-gnu/openmpi/lib:$OPAL_PREFIX/lib/x86_64-linux-gnu:$LD_LIBRARY_PATH
fi
# The reference LAPACK and BLAS only where the machine has none (OpenBLAS, where present, stays the CPU BLAS).
if ldd "$example" | grep -q 'not found' && [ -d "$carry/fallback-lib" ]; then
  export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$carry/fallback-lib
fi
if ldd "$example" | grep 'not found'; then
  echo "run.sh: $example still lacks the libraries above" >&2
  exit 1
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export TILEGEMM_DEVICE=${TILEGEMM_DEVICE:-local-rank} TILEGEMM_BLAS_OFFLOAD=${TILEGEMM_BLAS_OFFLOAD:-always}
pilaenv=${TILEGEMM_PILAENV:-$((n < 4096 ? n : 4096))}
if [ "$pilaenv" = unset ]; then unset TILEGEMM_PILAENV; else export TILEGEMM_PILAENV=$pilaenv; fi
# The CPU's cores shared between the ranks (for what stays on the CPU BLAS).
threads=$(($(nproc) / ranks > 0 ? $(nproc) / ranks : 1))
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$threads} OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-$threads}
read -r -a mpirun_args <<<"${MPIRUN_ARGS:---mca btl self,vader --mca btl_vader_single_copy_mechanism none}"

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(hostname): pdgemm N=$n grid ${p}x$q NB=${NB:-256}, TILEGEMM_PILAENV=$pilaenv," \
  "TILEGEMM_BLAS_OFFLOAD=$TILEGEMM_BLAS_OFFLOAD, TILEGEMM_DEVICE=$TILEGEMM_DEVICE, $mpirun $($mpirun --version | head -1)"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=index,name --format=csv,noheader | sed 's/^/# GPU /'
output=$("$mpirun" -np "$ranks" --oversubscribe --bind-to none "${mpirun_args[@]}" -x LD_PRELOAD="$drop_in" \
  "$example" "$n" "$p" "$q" "${NB:-256}" "${REPEATS:-3}" | tee /dev/stderr)
best=$(sed -n 's/.*: best \([0-9.]*\) s .*/\1/p' <<<"$output")
if [ -n "$rate" ] && [ -n "$best" ]; then
  awk -v n="$n" -v t="$best" -v r="$rate" -v k="$ranks" 'BEGIN {
    g = 2 * n * n * n / t * 1e-9
    printf "pdgemm: %.1f GFLOP/s = %.1f%% of %d x %.1f GFLOP/s (one GPU'"'"'s DGEMM)\n", g, 100 * g / (k * r), k, r }'
fi
grep -q "every block right" <<<"$output"
