#!/usr/bin/env bash
# CPU gradient throughput: parreg's fast and reference kernels and numpy, on the same shapes
# (d = 1, 16, 256; N*d = VALUES, default 1e8 values = 400 MB of X), side by side.
# Usage: scripts/bench/cpu.sh [VALUES] [REPS]      (figures: BENCHMARKS.md, "CPU")
set -euo pipefail
cd "$(dirname "$0")/../.."
VALUES=${1:-1e8}
REPS=${2:-9}
source scripts/bench/lib.sh
CP=$(bench_classpath)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
java --add-modules jdk.incubator.vector -Xmx4g -cp "$CP" parreg.bench.CpuGradientBench \
  --values "$VALUES" --reps "$REPS" --ref-reps 3 2>&1 | grep -v 'incubator modules' | tee -a "$out"
python3 scripts/bench/bench_numpy.py --values "$VALUES" --reps "$REPS" | tee -a "$out"
python3 - "$out" "$REPS" <<'PY'
import re, sys
for key, label in (("GB/s", "median"), ("best_GB/s", "best")):
  rows = {}
  for line in open(sys.argv[1]):
    m = re.match(r"(\S+)\s+d=\s*(\d+).*\s" + re.escape(key) + r"=\s*([\d.]+)", line)
    if m:
        rows.setdefault(int(m.group(2)), {})[m.group(1)] = float(m.group(3))
  print("\nside by side, GB/s of X and y read, %s of %s runs:" % (label, sys.argv[2]))
  cols = ["parreg-fast", "parreg-reference", "numpy-f32", "numpy-f64-dgemv", "numpy-f64-widened"]
  print("%5s" % "d" + "".join("%19s" % c for c in cols) + "%13s%13s" % ("fast/np-f32", "fast/np-f64"))
  for d in sorted(rows):
    r = rows[d]
    cells = "".join("%19s" % ("%.2f" % r[c] if c in r else "-") for c in cols)
    f32 = r.get("parreg-fast", 0) / r["numpy-f32"] if "numpy-f32" in r else float("nan")
    best64 = max(r.get("numpy-f64-dgemv", 0), r.get("numpy-f64-widened", 0))  # the faster numpy float64 variant
    f64 = r.get("parreg-fast", 0) / best64 if best64 else float("nan")
    print("%5d" % d + cells + "%13.2f%13.2f" % (f32, f64))
print("fast/np-f64 compares with the faster of the two numpy float64 variants.")
PY
