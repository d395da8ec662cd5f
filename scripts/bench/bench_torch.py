#!/usr/bin/env python3
"""PyTorch comparison for GpuGradientBench, on the same card and shapes.

Times the float32 gradient of linear regression X.t() @ (X @ w - y) with X (N x d, row-major)
and y resident on the GPU, N*d about 4e8, as bytes of X and y read per second (median of CUDA
event timings). Also measures the read ceiling (float32 sum of 4e8 values) and a device-to-device
copy. Usage: python3 scripts/bench/bench_torch.py [--values 400000000] [--d 1,16,256] [--reps 50] [--out F]
"""
import argparse
import statistics

import torch


def timed(fn, reps):
    for _ in range(5):
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
    ap.add_argument("--values", type=int, default=400_000_000)
    ap.add_argument("--d", default="1,16,256")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--out")
    a = ap.parse_args()
    dev = torch.device("cuda")
    print("# card:", torch.cuda.get_device_name(0), "torch", torch.__version__, "cuda", torch.version.cuda)
    torch.backends.cuda.matmul.allow_tf32 = False
    rows = ["what\td\tN\tbytes\tms_median\tms_min\tTB_per_s"]
    v = torch.rand(a.values, device=dev, dtype=torch.float32)
    med, mn = timed(lambda: v.sum(), a.reps)
    rows.append(f"read_ceiling_sum_f32\t-\t{a.values}\t{4*a.values}\t{med:.4f}\t{mn:.4f}\t{4*a.values/med/1e9:.3f}")
    dst = torch.empty_like(v)
    med, mn = timed(lambda: dst.copy_(v), a.reps)
    rows.append(f"d2d_copy_read+write\t-\t{a.values}\t{8*a.values}\t{med:.4f}\t{mn:.4f}\t{8*a.values/med/1e9:.3f}")
    del v, dst
    for d in [int(s) for s in a.d.split(",")]:
        n = a.values // d
        X = torch.rand(n, d, device=dev, dtype=torch.float32) * 2 - 1
        y = torch.rand(n, device=dev, dtype=torch.float32) * 2 - 1
        w = torch.rand(d, device=dev, dtype=torch.float32) - 0.5
        nbytes = 4 * n * d + 4 * n
        med, mn = timed(lambda: X.t() @ (X @ w - y), a.reps)
        rows.append(f"torch_f32_Xt(Xw-y)\t{d}\t{n}\t{nbytes}\t{med:.4f}\t{mn:.4f}\t{nbytes/med/1e9:.3f}")
        del X, y, w
        torch.cuda.empty_cache()
    for r in rows:
        print(r)
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
