#!/bin/sh
# benchmarks/multi_device/run.sh BUILD OUT [host|out-of-core]: one product over 1 and 2 GPUs, host memory to host
# memory (float and double, N = 16384 and 32768), and one GPU beyond its memory; one summary line per figure. Run on a
# machine with 2 GPUs. Both parts take about 4 minutes each on H200s (the third argument runs one of them); the
# out-of-core product needs host memory for three matrices larger than the GPU's: 147 GiB on an H200 of 139 GiB, 83 GiB
# on an H100 of 80 GiB.
set -eu
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 BUILD OUT [host|out-of-core]   (BUILD: a build with benchmark and multi_device_out_of_core)" >&2
  exit 2
fi
build=$1
out=$2
part=${3:-both}
mkdir -p "$out"
# Each run times gpu_gemm alone (--kernels "host to host": the peers' rows take minutes at 32768 in double).
# RUN_SIZES and RUN_DEVICES change the sizes and the TILEGEMM_DEVICES lists: RUN_DEVICES="0 0,1 0,1,2,3" on 4 GPUs
# (or a smoke run elsewhere).
sizes=${RUN_SIZES:-16384 32768}
lists=${RUN_DEVICES:-0 0,1}
if [ "$part" != out-of-core ]; then
  rm -f "$out/summaries.txt"
for precision in float double; do
  for n in $sizes; do
    for devices in $lists; do
      log="$out/host-$precision-$n-$(echo "$devices" | tr , _).txt"
      TILEGEMM_DEVICES=$devices "$build/benchmarks/benchmark" --host --precision "$precision" --sizes "$n" --repeats 3 \
        --kernels "host to host" --csv "$out/host.csv" >"$log" 2>&1 || { echo "benchmark failed: $log" >&2; exit 1; }
      grep '^summary:' "$log" >>"$out/summaries.txt" || true
      grep -E 'gpu_gemm\(A, B\), host to host' "$log" | sed "s/^/$precision $n TILEGEMM_DEVICES=$devices: /" || true
    done
  done
done
  # The balance against each tile's start: 2 GPUs with 1 and 2 tiles a device (the rule takes 3), at the smaller N.
  if [ "$lists" = "0 0,1" ]; then
    for precision in float double; do
      for per in 1 2; do
        log="$out/host-$precision-16384-0_1-$per-a-device.txt"
        TILEGEMM_TILES_PER_DEVICE=$per TILEGEMM_DEVICES=0,1 "$build/benchmarks/benchmark" --host --precision "$precision" \
          --sizes 16384 --repeats 3 --kernels "host to host" --csv "$out/host.csv" >"$log" 2>&1 || { echo "failed: $log" >&2; exit 1; }
        grep -E 'gpu_gemm\(A, B\), host to host' "$log" | sed "s/^/$precision 16384 2 GPUs, $per tiles a device: /" || true
      done
    done
  fi
# summary: host PRECISION N DEVICES devices MS ms GBPS GB/s
awk '$1 == "summary:" && $2 == "host" {
       key = $3 " N=" $4; ms[key, $5] = $7; gb[key, $5] = $9; keys[key] = 1
     }
     END {
       for (key in keys)
         for (d = 2; d <= 16; ++d)
           if ((key, 1) in ms && (key, d) in ms)
             printf "summary: %s host to host: 1 GPU %.1f ms (%.1f GB/s host memory), %d GPUs %.1f ms (%.1f GB/s), %.2fx\n",
                    key, ms[key, 1], gb[key, 1], d, ms[key, d], gb[key, d], ms[key, 1] / ms[key, d]
     }' "$out/summaries.txt" | sort
fi
[ "$part" = host ] && exit 0
TILEGEMM_DEVICES=0 "$build/benchmarks/multi_device_out_of_core" >"$out/out-of-core.txt" 2>&1 ||
  { echo "out_of_core failed: $out/out-of-core.txt" >&2; cat "$out/out-of-core.txt" >&2; exit 1; }
cat "$out/out-of-core.txt"
