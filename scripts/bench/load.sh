#!/usr/bin/env bash
# Partition loading: generates one CSV partition of about SIZE_MB (default 1000) at d=16, converts
# it to .prb, and loads each in a fresh JVM under /usr/bin/time -v (peak RSS = memory while
# loading). Usage: scripts/bench/load.sh [SIZE_MB] [WORKDIR]   (figures: BENCHMARKS.md, "Data loading")
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZE_MB=${1:-1000}
WORK=${2:-$(mktemp -d)}
D=16
# a generated row at d=16 is about 190 bytes of CSV text
ROWS=$(( SIZE_MB * 1000000 / 190 ))
source scripts/bench/lib.sh
CP=$(bench_classpath)
JAVA=(java --add-modules jdk.incubator.vector -XX:+UseSerialGC)
if [ ! -f "$WORK/data/part-0.csv" ]; then
  /usr/bin/time -f "generate: %e s, peak RSS %M KB" "${JAVA[@]}" -cp "$CP" parreg.cli.Main generate \
    --rows "$ROWS" --features $D --partitions 1 --noise 0.1 --seed 1 --out "$WORK/data" | tail -2
fi
[ -f "$WORK/data/part-0.prb" ] || "${JAVA[@]}" -cp "$CP" parreg.cli.Main convert --in "$WORK/data/part-0.csv" --out "$WORK/data/part-0.prb"
ls -l "$WORK/data"
for f in part-0.csv part-0.prb; do
  # heap capped at 2 GB: the CSV reader must stay near the binary32 size of the partition
  /usr/bin/time -f "  $f: wall %e s, peak RSS %M KB" "${JAVA[@]}" -Xmx2g -cp "$CP" parreg.bench.DataLoadBench --reps 2 --phases read "$WORK/data/$f" 2>&1 | grep -v 'incubator modules'
done
echo "data left in $WORK/data"
