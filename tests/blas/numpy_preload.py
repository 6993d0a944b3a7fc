#!/usr/bin/env python3
"""numpy_preload: NumPy's matmul under LD_PRELOAD of the drop-in (float32 and float64, C and Fortran order,
transposed views, a 3-D stack) against the same NumPy without it; the drop-in's log names cblas_sgemm.
Usage: numpy_preload.py LIBTILEGEMM_BLAS WORK_FOLDER. Exits 77 (a skip) where NumPy is absent or reaches no BLAS
through libblas.so.3 (pip's NumPy bundles a renamed OpenBLAS that no preload reaches)."""
import ctypes
import json
import os
import subprocess
import sys

SKIP = 77


def products(np):
    """Each case's name and operands: the same arrays in every process (a fixed seed)."""
    rng = np.random.default_rng(20261127)
    cases = []
    for dtype in (np.float32, np.float64):
        def draw(*shape):
            return rng.uniform(-1.0, 1.0, shape).astype(dtype)
        name = np.dtype(dtype).name
        cases.append((name + " C order", draw(65, 47), draw(47, 33)))
        cases.append((name + " Fortran order", np.asfortranarray(draw(61, 129)), np.asfortranarray(draw(129, 7))))
        cases.append((name + " C @ Fortran", draw(33, 70), np.asfortranarray(draw(70, 61))))
        cases.append((name + " transposed views", draw(47, 65).T, draw(33, 47).T))
        cases.append((name + " 3-D stack", draw(3, 29, 41), draw(3, 41, 17)))
    return cases


class Counts(ctypes.Structure):
    """tilegemm_blas_counts."""
    _fields_ = [("calls", ctypes.c_ulonglong), ("gpu_calls", ctypes.c_ulonglong), ("cpu_calls", ctypes.c_ulonglong),
                ("fallbacks", ctypes.c_ulonglong), ("gpu_flops", ctypes.c_double), ("cpu_flops", ctypes.c_double)]


def compute(out_file, library):
    """Runs every product and saves the results (and, under the preload, the drop-in's stats); then a @ a.T, which
    NumPy sends to cblas_ssyrk, not to the drop-in."""
    import numpy as np
    results = {name: np.matmul(a, b) for name, a, b in products(np)}
    stats = ctypes.CDLL(library).tilegemm_blas_stats if library else None  # the preloaded copy
    if stats:
        stats.restype = Counts
        counts = stats()
    a = np.random.default_rng(7).uniform(-1.0, 1.0, (70, 50)).astype(np.float32)
    results["float32 a @ a.T"] = a @ a.T
    np.savez(out_file, **{name.replace(" ", "_"): value for name, value in results.items()})
    if stats:
        after = stats()
        summary = {name: getattr(counts, name) for name, _ in Counts._fields_}
        summary["syrk_calls_counted"] = after.calls - counts.calls
        with open(out_file + ".stats.json", "w") as f:
            json.dump(summary, f)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--compute":
        compute(sys.argv[2], sys.argv[3] if sys.argv[3] != "-" else None)
        return 0
    library, folder = sys.argv[1], sys.argv[2]
    try:
        import numpy as np
    except ImportError:
        print("SKIP: no numpy for " + sys.executable + " (Debian: python3-numpy)")
        return SKIP
    np.ones((8, 8)) @ np.ones((8, 8))
    with open("/proc/self/maps") as maps:
        blas = [line.split()[-1] for line in maps if "blas" in line.split()[-1]]
    if not any(os.path.basename(path).startswith(("libblas.so", "libcblas.so")) for path in blas):
        print("SKIP: this NumPy reaches BLAS through " + (", ".join(sorted(set(blas))) or "nothing loaded") +
              ", not libblas.so.3; no preload can replace it")
        return SKIP
    os.makedirs(folder, exist_ok=True)
    plain, preloaded, log = (os.path.join(folder, n) for n in ("plain.npz", "preloaded.npz", "calls.log"))
    for f in (plain, preloaded, log):
        if os.path.exists(f):
            os.remove(f)
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("LD_PRELOAD", "TILEGEMM_BLAS_"))}
    subprocess.run([sys.executable, __file__, "--compute", plain, "-"], env=environment, check=True)
    environment.update(LD_PRELOAD=library, TILEGEMM_BLAS_OFFLOAD="always", TILEGEMM_BLAS_LOG=log)
    subprocess.run([sys.executable, __file__, "--compute", preloaded, library], env=environment, check=True)

    failed = False
    without, under = np.load(plain), np.load(preloaded)
    for name, a, b in products(np):
        key = name.replace(" ", "_")
        got, want = under[key], without[key]
        # Both rounded from the same dot products: within (k + 2) eps |A| |B| each of the exact one.
        eps = np.finfo(a.dtype).eps
        bound = 2 * 4 * (a.shape[-1] + 2) * eps * np.matmul(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
        if got.shape != want.shape or got.dtype != want.dtype or not np.all(np.abs(got - want) <= bound):
            print("FAIL %s: differs from NumPy without the preload by %s" % (name, np.max(np.abs(got - want))))
            failed = True
    with open(preloaded + ".stats.json") as f:
        counts = json.load(f)
    lines = []
    if os.path.exists(log):
        with open(log) as f:
            lines = f.read().splitlines()
    for routine in ("cblas_sgemm", "cblas_dgemm"):
        if not any(routine in line for line in lines):
            print("FAIL: the log (TILEGEMM_BLAS_LOG) names no %s call:\n%s" % (routine, "\n".join(lines[:10])))
            failed = True
    got, want = under["float32_a_@_a.T"], without["float32_a_@_a.T"]
    if not np.allclose(got, want, rtol=0, atol=1e-4) or counts["syrk_calls_counted"] != 0:
        print("FAIL: a @ a.T (cblas_ssyrk, the CPU BLAS's) differs by %s or was counted %d times" %
              (np.max(np.abs(got - want)), counts["syrk_calls_counted"]))
        failed = True
    if counts["calls"] == 0 or counts["gpu_calls"] != counts["calls"] or len(lines) != counts["calls"]:
        print("FAIL: the stats say %s; the log has %d lines (one per call, all offloaded in mode always)" %
              (counts, len(lines)))
        failed = True
    print("NumPy under LD_PRELOAD: %d ?gemm calls, %d on the GPU; %s" %
          (counts["calls"], counts["gpu_calls"], "FAILED" if failed else "equal to NumPy without it"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
