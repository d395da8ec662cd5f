#!/usr/bin/env bash
# Start-up of a node on a .prb partition, host side: generates ROWS x D
# (default 6,000,000 x 64: a 1.56 GB .prb, with its digest sidecar) and runs DataLoadBench phase
# by phase (read, digest on the load threads and on one, read with the sidecar's digest, layout
# conversion) in a fresh JVM, twice: with the node's JVM options (C1 only, as bin/parreg node)
# and with the default JIT (as run-gpu.sh on the GPU machine). The upload itself needs the card:
# GpuLoadBench (docs/GPU.md). Usage: scripts/bench/load-prb.sh [ROWS] [D] [WORKDIR]
# THREADS=N sets the load threads (default: all cores). Figures: BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROWS=${1:-6000000}
D=${2:-64}
WORK=${3:-$(mktemp -d)}
source scripts/bench/lib.sh
CP=$(bench_classpath)
THREADS=${THREADS:-$(nproc)}
if [ ! -f "$WORK/data/part-0.prb" ]; then
  java -XX:+UseSerialGC -cp "$CP" parreg.cli.Main generate --rows "$ROWS" --features "$D" --partitions 1 \
    --noise 0.1 --seed 1 --out "$WORK/data" --format bin | head -1
fi
ls -l "$WORK/data"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for jit in "-XX:TieredStopAtLevel=1" ""; do
  echo "== JVM: -XX:+UseSerialGC ${jit:-(default JIT)}"
  java -XX:+UseSerialGC $jit -Xmx8g -cp "$CP" parreg.bench.DataLoadBench --reps 3 --threads "$THREADS" \
    --phases read,cached,digest,digest1,layout "$WORK/data/part-0.prb" 2>&1 | grep --line-buffered -v "incubator modules"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "data left in $WORK/data"
