#!/usr/bin/env bash
# Parquet read speed beside the CSV reader's, on the same numbers: generates a CSV file (as
# scripts/bench/csv.sh), writes it as Parquet (double columns, SNAPPY, row groups of
# ROW_GROUP_MB, default 64) with parreg.bench.ParquetFromCsv, then runs CsvReadBench's product
# reader (whole file) and split reader (last of 2 slices) on both, under bin/parreg's JVM options.
# MB/s is of each file's own bytes; compare rows/s across formats. The checksum column is the same
# for both files (the same binary32 rows). Usage: scripts/bench/parquet.sh [ROWS] [D] [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROWS=${1:-2000000}
D=${2:-8}
WORK=${3:-$(mktemp -d)}
source scripts/bench/lib.sh
CP=$(bench_classpath)   # the product's and the benchmark's classes (-Pbench)
CSV="$WORK/d$D/part-0.csv"
PQ="$WORK/d$D/part-0.parquet"
if [ ! -f "$CSV" ]; then
  java -cp "$CP" parreg.cli.Main generate --rows "$ROWS" --features "$D" --partitions 1 \
    --noise 0.1 --seed 1 --out "$WORK/d$D" | tail -1
fi
[ -f "$PQ" ] || java -cp "$CP" parreg.bench.ParquetFromCsv --row-group-mb "${ROW_GROUP_MB:-64}" "$CSV" "$PQ" 2>&1 | grep -v SLF4J
ls -l "$CSV" "$PQ"
for T in 1 2; do
  echo "## -XX:+UseSerialGC -XX:TieredStopAtLevel=1 (bin/parreg's options), -Dparreg.load.threads=$T"
  java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Dparreg.load.threads=$T -cp "$CP" \
    parreg.bench.CsvReadBench --reps 3 --readers product,split "$CSV" "$PQ" 2>&1 | grep -v SLF4J
done
echo "data left in $WORK"
