#!/usr/bin/env python3
"""PyTorch comparison for GpuGramBench, on the same card and shapes.

Times the normal equations torch.linalg.solve(X.T @ X, X.T @ y) with X (N x d, row-major) and y
resident on the GPU, in float32 and float64 (TF32 off), median and best of CUDA event timings;
also the Gram product X.T @ X alone and the FP64 rate of its useful work (N d (d + 1) flops, the
triangle). Usage: python3 scripts/bench/bench_gram_torch.py [--shapes 20000000x64,...] [--reps 20]
"""
import argparse
import statistics

import torch


def timed(fn, reps):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b))
    return statistics.median(out), min(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", default="20000000x64,1000000x16,400000x1024,100000x4096")
    ap.add_argument("--reps", type=int, default=20)
    a = ap.parse_args()
    dev = torch.device("cuda")
    torch.backends.cuda.matmul.allow_tf32 = False
    print("# card:", torch.cuda.get_device_name(0), "torch", torch.__version__, "cuda", torch.version.cuda)
    print("what\tshape\tdtype\tms_median\tms_min\tTFLOP_s_median\tTFLOP_s_best")
    for s in a.shapes.split(","):
        n, d = (int(v) for v in s.split("x"))
        g = torch.Generator(device=dev).manual_seed(7)
        for dt in (torch.float32, torch.float64):
            X = torch.rand(n, d, device=dev, dtype=dt, generator=g) * 2 - 1
            y = torch.rand(n, device=dev, dtype=dt, generator=g) * 2 - 1
            flops = float(n) * d * (d + 1)
            name = "float32" if dt == torch.float32 else "float64"
            med, mn = timed(lambda: torch.linalg.solve(X.T @ X, X.T @ y), a.reps)
            print(f"torch_solve(XtX,Xty)\t{s}\t{name}\t{med:.3f}\t{mn:.3f}\t{flops/med/1e9:.2f}\t{flops/mn/1e9:.2f}")
            med, mn = timed(lambda: X.T @ X, a.reps)
            print(f"torch_XtX\t{s}\t{name}\t{med:.3f}\t{mn:.3f}\t{flops/med/1e9:.2f}\t{flops/mn/1e9:.2f}")
            del X, y
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
