#!/usr/bin/env bash
# benchmarks/blas/run.sh BUILD OUT: the drop-in's figures on a GPU machine with OpenBLAS and CUDA's NVBLAS, one line
# per measurement in OUT/blas.txt (README and docs/blas.md take their tables from it). BUILD holds a Release build
# with the drop-in and benchmarks/blas built. Environment: PY (a python3 with Debian's NumPy, optional).
set -u
build=$1
out=$2
log=$out/blas.txt
openblas=$(ls /usr/lib/x86_64-linux-gnu/libopenblas.so.0 /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0 \
  2>/dev/null | head -1)
nvblas=$(ls /usr/local/cuda*/targets/x86_64-linux/lib/libnvblas.so* 2>/dev/null | head -1)
drop_in=$(ls "$build"/libtilegemm_blas.so "$build"/*/libtilegemm_blas.so 2>/dev/null | head -1)
driver=$build/benchmarks/blas/gemm_driver
floor=$build/benchmarks/blas/floor_bench
export TILEGEMM_DEVICE=${TILEGEMM_DEVICE:-gpu}
{
  echo "== $(date -u) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) cores $(nproc)"
  echo "openblas $openblas nvblas $nvblas drop-in $drop_in"
} >>"$log"
# Each runs its command with a time limit, the named library preloaded.
ours() { timeout 200 env LD_PRELOAD="$drop_in $openblas" "$@"; }
with_nvblas() {
  cat >/tmp/nvblas.conf <<CONF
NVBLAS_LOGFILE /tmp/nvblas.log
NVBLAS_CPU_BLAS_LIB $openblas
NVBLAS_GPU_LIST ALL
NVBLAS_TILE_DIM 8192
NVBLAS_AUTOPIN_MEM_ENABLED
CONF
  timeout 200 env NVBLAS_CONFIG_FILE=/tmp/nvblas.conf LD_LIBRARY_PATH="$(dirname "$nvblas"):${LD_LIBRARY_PATH:-}" \
    LD_PRELOAD="$nvblas" "$@"
}
section() { echo "== $1" >>"$log"; }

if [ "${NVBLAS_ROUND:-1}" = 1 ]; then
  section "NVBLAS vs the drop-in vs the floor (beta 0, malloc'd host memory, median of 5)"
  for s in s d; do
    shapes=4096x4096x4096,8192x8192x8192,16384x16384x16384
    with_nvblas "$driver" $s $shapes 5 0 nvblas >>"$log" 2>&1
    TILEGEMM_BLAS_OFFLOAD=always ours "$driver" $s $shapes 5 0 tilegemm_blas >>"$log" 2>&1
    timeout 200 "$floor" $s $shapes 5 0 >>"$log" 2>&1
  done
fi
if [ "${AUTO_ROUND:-1}" = 1 ]; then
  section "auto vs CPU-only vs GPU-always (OpenBLAS on every core; beta 0; median)"
  small=64x64x64,128x128x128,256x256x256,512x512x512,768x768x768,1024x1024x1024,2048x2048x2048
  large=4096x4096x4096,8192x8192x8192,8192x8192x32,8192x32x8192,32x8192x8192
  for s in s d; do
    for mode in never always auto; do
      TILEGEMM_BLAS_OFFLOAD=$mode ours "$driver" $s $small 7 0 $mode >>"$log" 2>&1
      TILEGEMM_BLAS_OFFLOAD=$mode ours "$driver" $s $large 3 0 $mode >>"$log" 2>&1
    done
    timeout 100 "$floor" $s $small,$large 5 0 >>"$log" 2>&1
  done
fi
if [ "${BETA_ROUND:-1}" = 1 ]; then
  section "beta = 1 on the floor: C uploaded (TILEGEMM_BETA_FOLD=0) vs beta * C folded into the copy out (1)"
  for s in s d; do
    for fold in 0 1 0 1; do
      echo "fold $fold" >>"$log"
      TILEGEMM_BETA_FOLD=$fold timeout 100 "$floor" $s 1024x1024x1024,4096x4096x4096,8192x8192x8192 5 1 >>"$log" 2>&1
    done
  done
fi
if [ "${EIGEN_ROUND:-1}" = 1 ] && [ -x "$build/benchmarks/blas/eigen_product_blas" ]; then
  section "an unchanged Eigen program (EIGEN_USE_BLAS, beta 1 after zeroing C) vs gpu_gemm(A, B)"
  # Eigen's own time outside BLAS: the same program with ?gemm_ doing nothing.
  printf 'void sgemm_(void) {}\nvoid dgemm_(void) {}\n' >/tmp/nothing.c && cc -shared -fPIC /tmp/nothing.c -o /tmp/libnothing.so
  for s in s d; do
    for form in alias noalias; do
      TILEGEMM_BLAS_OFFLOAD=auto timeout 100 "$build/benchmarks/blas/eigen_product_blas" $s 4096,8192 5 $form >>"$log" 2>&1
      echo "(with a ?gemm_ that does nothing:)" >>"$log"
      LD_PRELOAD=/tmp/libnothing.so timeout 100 "$build/benchmarks/blas/eigen_product_blas" $s 4096,8192 3 $form >>"$log" 2>&1
    done
    timeout 100 "$floor" $s 4096x4096x4096,8192x8192x8192 5 0 --eigen >>"$log" 2>&1
  done
fi
if [ "${NUMPY_ROUND:-1}" = 1 ] && [ -n "${PY:-}" ]; then
  section "NumPy (Debian's, through libblas.so.3 = $(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3)) a @ b"
  for s in f d; do
    timeout 100 $PY benchmarks/blas/numpy_matmul.py 4096 $s >>"$log" 2>&1
    TILEGEMM_BLAS_LOG=/tmp/numpy-blas.log TILEGEMM_BLAS_OFFLOAD=auto LD_PRELOAD=$drop_in timeout 100 \
      $PY benchmarks/blas/numpy_matmul.py 4096 $s >>"$log" 2>&1
  done
  echo "log: $(sort /tmp/numpy-blas.log | awk '{print $1, $2}' | uniq -c | head -5)" >>"$log"
fi
echo "== done" >>"$log"
