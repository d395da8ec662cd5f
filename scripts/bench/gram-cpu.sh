#!/usr/bin/env bash
# CPU speed of the least-squares statistics pass (parreg.bench.GramPassBench, binary32 data) and
# numpy's float64 X.T @ X on the same shapes and thread count, run alternately ROUNDS times so that
# both see the same machine; prints every round (figures: the solver report, docs/SOLVER.md).
# Usage: scripts/bench/gram-cpu.sh [N] [THREADS] [ROUNDS]      (default 1e6 2 3; d = 16 and 64)
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-1e6}
T=${2:-2}
ROUNDS=${3:-3}
source scripts/bench/lib.sh
CP=$(bench_classpath)
for r in $(seq "$ROUNDS"); do
  echo "round $r, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  java --add-modules jdk.incubator.vector -Xmx4g -cp "$CP" parreg.bench.GramPassBench \
    --n "$N" --threads "$T" --reps 9 2>&1 | grep -v 'incubator modules'
  OPENBLAS_NUM_THREADS=$T python3 scripts/bench/bench_gram_numpy.py --n "$N" --reps 9
done
