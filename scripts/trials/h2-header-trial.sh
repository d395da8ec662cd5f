#!/usr/bin/env bash
# Does H2 keep, after kill -9, every commit its store header covered? (parreg.persistence.H2Durability,
# BENCHMARKS.md, "Journal")
# usage: scripts/trials/h2-header-trial.sh WORKDIR SECONDS [PAUSE_MS]
# Runs scripts/trials/HeaderWriter.java on WORKDIR/j with the node's URL settings (WRITE_DELAY=0,
# COMPRESS=TRUE) and its compaction, kills it with SIGKILL after SECONDS (H2 reuses file space,
# and so can lose acknowledged commits, only after ~45 s), reopens the database and prints the last
# row whose commit had returned ("acked"), the last row whose commit the header covered when the
# writer last printed ("covered") and the last row on disk ("stored"). stored < acked is a lost
# acknowledged commit (LOST); stored < covered would break the step log's rule (COVERED-LOST).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
D=$1; T=$2; PAUSE=${3:-2}
H2=$(ls "$HERE"/target/lib/h2-*.jar)
rm -rf "$D"; mkdir -p "$D"
java -cp "$H2" "$HERE/scripts/trials/HeaderWriter.java" \
  "jdbc:h2:file:$D/j;WRITE_DELAY=0;COMPRESS=TRUE;DB_CLOSE_ON_EXIT=FALSE" "$PAUSE" > "$D/out" &
pid=$!
trap 'kill -9 $pid 2>/dev/null || true' EXIT
sleep "$T"
kill -9 $pid; wait $pid 2>/dev/null || true
stored=$(java -cp "$H2" org.h2.tools.Shell -url "jdbc:h2:file:$D/j" -user sa -sql 'select max("n") from "acked"' | sed -n 2p | tr -d ' ')
acked=$(tail -1 "$D/out" | cut -d' ' -f1)
header=$(tail -1 "$D/out" | cut -d' ' -f3)
covered=$(awk -v hv="$header" '$3 != "null" && $2 <= hv {c = $1} END {print c + 0}' "$D/out")
verdict=""
[ "$stored" -lt "$acked" ] && verdict="LOST $((acked - stored))"
[ "$stored" -lt "$covered" ] && verdict="$verdict COVERED-LOST"
echo "${T} s: acked $acked covered $covered stored $stored ${verdict:-ok}"
rm -f "$D/j.mv.db"
