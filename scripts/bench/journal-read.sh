#!/usr/bin/env bash
# Reading a long journal (BENCHMARKS.md, "Reading a long journal"): writes an H2 journal of STEPS
# steps fast (parreg.bench.LongJournal: a short real two-node run's participant 0, continued with
# its first step's contributions, each step recomputed, a snapshot every 1,000 events, the last
# two kept), then times predict, export and journal verify on it through bin/parreg.
# usage: scripts/bench/journal-read.sh WORKDIR STEPS   (the journal is kept in WORKDIR/j-STEPS)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
mkdir -p "$1"
D=$(cd "$1" && pwd); S=$2
"$HERE/bin/parreg" --version >/dev/null # builds target/ when needed
if [ ! -f "$D/src/n0/journal.mv.db" ]; then
  "$HERE/scripts/bench/journal-size.sh" "$D/src" 30 >/dev/null
fi
J="$D/j-$S"
if [ ! -f "$J/journal.mv.db" ]; then
  (cd "$HERE" && source scripts/bench/lib.sh && java -XX:+UseSerialGC -cp "$(bench_classpath)" parreg.bench.LongJournal \
    "$D/src/n0" "$J" "$S" 2>&1 | grep -v DEBUG)
fi
echo "journal $J: $(du -m "$J/journal.mv.db" | cut -f1) MB; load $(cut -d' ' -f1 /proc/loadavg)"
rm -f "$D/m.json"
for cmd in "predict --journal $J --participant 0 --x 1" \
           "export --journal $J --participant 0 --out $D/m.json" \
           "journal verify --journal $J"; do
  /usr/bin/time -f "%e s wall, %U s user + %S s sys CPU: ${cmd%% --*}" "$HERE/bin/parreg" $cmd 2>&1 \
    | grep -v DEBUG | cut -c1-160
done
