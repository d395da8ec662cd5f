"""numpy's float64 X.T @ X (OpenBLAS) on the shapes of parreg.bench.GramPassBench, side by side.

Usage: OPENBLAS_NUM_THREADS=2 python3 scripts/bench/bench_gram_numpy.py [--n 1000000] [--d 16,64] [--reps 9]
Prints per d the median and best wall time of one X.T @ X, rows/s, GFLOP/s counted as
n * d * (d + 1) (the flops of the symmetric product, which numpy computes with syrk), and the
process CPU time of one product (all threads).
"""
import argparse
import os
import time

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=float, default=1e6)
ap.add_argument("--d", default="16,64")
ap.add_argument("--reps", type=int, default=9)
a = ap.parse_args()
n = int(a.n)
print("numpy %s, OPENBLAS_NUM_THREADS=%s" % (np.__version__, os.environ.get("OPENBLAS_NUM_THREADS")))
for d in [int(v) for v in a.d.split(",")]:
    rng = np.random.default_rng(42)
    # binary32 values widened to binary64, as parreg's binary32 data are
    x = rng.standard_normal((n, d), dtype=np.float32).astype(np.float64)
    x.T @ x
    wall, cpu = [], []
    for _ in range(a.reps):
        c0, t0 = time.process_time(), time.perf_counter()
        g = x.T @ x
        t1, c1 = time.perf_counter(), time.process_time()
        wall.append((t1 - t0) * 1e3)
        cpu.append((c1 - c0) * 1e3)
    wall.sort()
    cpu.sort()
    med, best = wall[len(wall) // 2], wall[0]
    fl = float(n) * d * (d + 1)
    print("numpy-f64-XtX n=%d d=%d: median %.2f ms (%.1f M rows/s, %.2f GFLOP/s), best %.2f ms"
          " (%.1f M rows/s, %.2f GFLOP/s), cpu median %.1f ms best %.1f ms"
          % (n, d, med, n / med / 1e3, fl / med / 1e6, best, n / best / 1e3, fl / best / 1e6,
             cpu[len(cpu) // 2], cpu[0]))
