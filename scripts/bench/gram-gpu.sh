#!/usr/bin/env bash
# The statistics pass on the card beside PyTorch's normal equations, same card, same shapes, one
# after the other. On the GPU machine, from the repository root, with the device bundle
# (SLIM=1 scripts/build/device-bundle.sh, carried as .device-bundle):
#   scripts/bench/gram-gpu.sh [SHAPES] [REPS]   (default 20000000x64,1000000x16,400000x1024,100000x4096 20)
# GpuGramBench --check compares the card's bits with the CPU pass once a shape (GramPass on the
# machine's cores: a few seconds at the largest shapes); set CHECK= to skip it.
set -euo pipefail
shapes="${1:-20000000x64,1000000x16,400000x1024,100000x4096}"
reps="${2:-20}"
B=.device-bundle/scripts/run-gpu.sh
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader || true
"$B" gram --reps "$reps" ${CHECK---check} "$shapes"
python3 scripts/bench/bench_gram_torch.py --shapes "$shapes" --reps "$reps"
