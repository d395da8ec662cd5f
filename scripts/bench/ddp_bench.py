#!/usr/bin/env python3
"""The same job as a parreg run, in PyTorch DDP: the comparison of scripts/bench/e2e.sh.

One process per card (torchrun --nproc_per_node=K), float32, NCCL all_reduce of the gradient
(DistributedDataParallel over nn.Linear(d, 1) with a bias), full-batch gradient descent on the
mean squared error / 2 (the gradient parreg takes: G = S / M), learning rate as given. Rank r reads
parreg's partition file part-r.prb (the .prb layout of BinaryPartitionFormat: a 64-byte header,
then x feature-major float32, then y), so both read the same bytes from disk.

With --manual, the leanest PyTorch form of the same step instead of the module: the gradient
X^T (X w + b - y) and its bias part by hand, one all_reduce of the (d+1)-vector, the update in
place (reads X twice, as autograd does, but without the module and optimizer overhead).

Prints one line per rank 0 with: load seconds (file -> card), steps, ms per step (data already on
the card, CUDA-synchronised at the end), time to solution (process start -> final model saved),
final loss. Usage:
  torchrun --standalone --nproc_per_node=2 scripts/bench/ddp_bench.py --data DIR --steps 500 --lr 0.25
"""
import argparse
import os
import struct
import time

T0 = time.time()

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402


def read_prb(path):
    with open(path, "rb") as f:
        head = f.read(64)
    if head[:8] != b"\x89PRB\r\n\x1a\n":
        raise SystemExit(f"{path}: not a .prb file")
    d, = struct.unpack_from("<I", head, 12)
    n, = struct.unpack_from("<Q", head, 16)
    mm = np.memmap(path, dtype="<f4", mode="r", offset=64, shape=((d + 1) * n,))
    x = mm[: d * n].reshape(d, n)
    y = mm[d * n: (d + 1) * n]
    return d, n, x, y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--steps", type=int, default=500)
    ap.add_argument("--lr", type=float, default=0.25)
    ap.add_argument("--manual", action="store_true", help="hand-written gradient and all_reduce instead of DDP(nn.Linear)")
    ap.add_argument("--batch-size", type=int, default=0,
                    help="samples per rank and step, consecutive, batch (k-1) mod batches-per-epoch at step k, as parreg's "
                         "--batch-size (default 0: the whole partition)")
    ap.add_argument("--out", default=None, help="where rank 0 saves the final model (default: DATA/ddp-model.pt)")
    a = ap.parse_args()

    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    local = int(os.environ.get("LOCAL_RANK", rank))
    torch.cuda.set_device(local)
    dev = torch.device("cuda", local)

    t_load = time.time()
    d, n, x, y = read_prb(os.path.join(a.data, f"part-{rank}.prb"))
    # Rows as users hold them (N x d, row-major) on the card.
    X = torch.from_numpy(np.ascontiguousarray(x)).to(dev).t().contiguous()
    Y = torch.from_numpy(np.ascontiguousarray(y)).to(dev)
    torch.cuda.synchronize()
    load_s = time.time() - t_load

    torch.manual_seed(0)
    model = torch.nn.Linear(d, 1).to(dev)
    with torch.no_grad():
        model.weight.zero_()
        model.bias.zero_()
    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local])
    opt = torch.optim.SGD(ddp.parameters(), lr=a.lr)

    w = torch.zeros(d + 1, device=dev)  # manual form: weights, bias last

    # Batches as parreg cuts them: consecutive rows, the last one possibly shorter; step k uses
    # batch (k-1) mod batches. Views of the resident rows, made once (no copy per step).
    bs = a.batch_size if 0 < a.batch_size < n else n
    batches = [(X[s:s + bs], Y[s:s + bs]) for s in range(0, n, bs)]
    k = [0]

    def next_batch():
        b = batches[k[0] % len(batches)]
        k[0] += 1
        return b

    def manual_step():
        xb, yb = next_batch()
        m = yb.shape[0]
        r = torch.addmv(w[d:].expand(m), xb, w[:d]) - yb
        g = torch.empty(d + 1, device=dev)
        torch.mv(xb.t(), r, out=g[:d])
        g[d] = r.sum()
        dist.all_reduce(g)
        w.sub_(g, alpha=a.lr / (m * world))
        return (r * r).mean() * 0.5

    def step():
        xb, yb = next_batch()
        opt.zero_grad(set_to_none=True)
        r = ddp(xb).squeeze(1) - yb
        loss = (r * r).mean() * 0.5
        loss.backward()  # DDP all-reduces (averages) the gradient over the ranks here
        opt.step()
        return loss

    if a.manual:
        step = manual_step  # noqa: F811
    loss = step()  # warm-up: cuBLAS handles, NCCL communicators
    torch.cuda.synchronize()
    dist.barrier()
    t = time.time()
    for _ in range(a.steps - 1):
        loss = step()
    torch.cuda.synchronize()
    dist.barrier()
    per_step_ms = (time.time() - t) * 1000 / max(1, a.steps - 1)
    final_loss = loss.item()
    if rank == 0:
        torch.save(w if a.manual else model.state_dict(), a.out or os.path.join(a.data, "ddp-model.pt"))
    dist.barrier()
    if rank == 0:
        print(f"{'manual' if a.manual else 'ddp'} world={world} rows/rank={n} batch={bs} d={d} steps={a.steps} load_s={load_s:.2f} "
              f"ms_per_step={per_step_ms:.3f} steps_per_s={1000 / per_step_ms:.0f} "
              f"time_to_solution_s={time.time() - T0:.2f} loss={final_loss:.6g}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
