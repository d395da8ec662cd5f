#!/usr/bin/env bash
# CSV parse speed: the product's reader (whole file and one --split slice) against FastCSV,
# Jackson CSV and Commons CSV on the same generated file, under the JVM options bin/parreg uses
# (C1 only) and under the JVM's defaults (C2). Usage: scripts/bench/csv.sh [ROWS] [D] [WORKDIR]
# (defaults: 2,000,000 rows, d=8: about 195 MB). Prints MB/s of CSV text and Mrows/s per reader.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROWS=${1:-2000000}
D=${2:-8}
WORK=${3:-$(mktemp -d)}
# the candidate libraries are "provided" (the bench compares against them, the product ships
# FastCSV only): bench_classpath has them
source scripts/bench/lib.sh
CP=$(bench_classpath)
FILE="$WORK/d$D/part-0.csv"
if [ ! -f "$FILE" ]; then
  java -cp "$CP" parreg.cli.Main generate --rows "$ROWS" --features "$D" --partitions 1 \
    --noise 0.1 --seed 1 --out "$WORK/d$D" | tail -1
fi
ls -l "$FILE"
echo "## -XX:+UseSerialGC -XX:TieredStopAtLevel=1 (bin/parreg's options)"
java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp "$CP" parreg.bench.CsvReadBench --reps 3 "$FILE"
echo "## -XX:+UseSerialGC (C2)"
java -XX:+UseSerialGC -cp "$CP" parreg.bench.CsvReadBench --reps 3 "$FILE"
echo "data left in $WORK"
