#!/usr/bin/env python3
"""numpy baselines for the CPU gradient benchmark (scripts/bench/cpu.sh runs it; figures: BENCHMARKS.md, "CPU").

For each d, builds X (N x d, float32, C order) and y with N*d ~= VALUES, then times
  float32      : g = X.T @ (X @ w - y)                      (BLAS sgemv twice)
  f64-dgemv    : X and y widened to float64 block by block, then X.T @ (X @ w - y) in float64
                 (BLAS dgemv: the cheapest way to get float64 sums out of numpy)
  f64-widened  : SPEC section 2's operations in numpy: r = X @ w - y in float32, per-sample
                 products g = X * r[:, None] in float32, widened to float64 and summed over the
                 samples (numpy's own summation order, so not parreg's bits; same work)
and prints one line per (d, variant): bytes of X and y, median and best ms, GB/s at each.
Usage: bench_numpy.py [--values 1e8] [--reps 7] [--d 1,16,256]
"""
import argparse
import os
import time

import numpy as np


def times_ms(fn, reps):
    fn()  # warm-up
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    ts.sort()
    return ts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--values", type=float, default=1e8)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--d", default="1,16,256")
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    print(f"numpy {np.__version__}, threads={os.environ.get('OMP_NUM_THREADS', 'default')}")
    for d in [int(v) for v in a.d.split(",")]:
        n = int(a.values) // d
        X = rng.standard_normal((n, d), dtype=np.float32)
        y = rng.standard_normal(n, dtype=np.float32)
        w = (np.arange(d, dtype=np.float32) * np.float32(0.1))
        nbytes = X.nbytes + y.nbytes

        def f32():
            return X.T @ (X @ w - y)

        def widened():
            r = X @ w - y
            g = np.zeros(d)
            step = max(1, (1 << 24) // d)  # blocks of 16M values bound the temporaries
            for s in range(0, n, step):
                g += (X[s:s + step] * r[s:s + step, None]).astype(np.float64).sum(axis=0)
            return g

        w64 = w.astype(np.float64)

        def dgemv():
            g = np.zeros(d)
            step = max(1, (1 << 24) // d)
            for s in range(0, n, step):
                Xb = X[s:s + step].astype(np.float64)
                g += Xb.T @ (Xb @ w64 - y[s:s + step].astype(np.float64))
            return g

        for name, fn in (("numpy-f32", f32), ("numpy-f64-dgemv", dgemv), ("numpy-f64-widened", widened)):
            ts = times_ms(fn, a.reps)
            med, best = ts[len(ts) // 2], ts[0]
            print(f"{name:20s} d={d:4d} N={n:10d} bytes={nbytes:11d} median_ms={med:9.2f} best_ms={best:9.2f} "
                  f"GB/s={nbytes / med / 1e6:6.2f} best_GB/s={nbytes / best / 1e6:6.2f}")
        del X, y


if __name__ == "__main__":
    main()
