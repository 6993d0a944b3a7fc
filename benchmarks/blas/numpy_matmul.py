# numpy_matmul: times a @ b in NumPy (run it with and without LD_PRELOAD of libtilegemm_blas.so to compare).
import sys
import time

import numpy

n = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
dtype = numpy.float64 if len(sys.argv) > 2 and sys.argv[2] == "d" else numpy.float32
rng = numpy.random.default_rng(1)
a = rng.random((n, n), dtype=dtype) - 0.5
b = rng.random((n, n), dtype=dtype) - 0.5
times = []
for r in range(6):
    start = time.perf_counter()
    c = a @ b
    if r > 0:
        times.append((time.perf_counter() - start) * 1e3)
times.sort()
print("numpy a@b %s %d median_ms %.3f min_ms %.3f check %.3g" %
      (numpy.dtype(dtype).name, n, times[len(times) // 2], times[0], abs(c[0, 0] - a[0, :] @ b[:, 0])))
