#!/usr/bin/env bash
# Does an H2 file database lose acknowledged commits on kill -9? (BENCHMARKS.md, "Journal")
# usage: scripts/trials/h2-kill-trial.sh WORKDIR SECONDS none|compact [URL_SETTINGS, e.g. ";COMPRESS=TRUE"]
# Runs scripts/trials/AckedWriter.java on WORKDIR/j with WRITE_DELAY=0 plus URL_SETTINGS, kills it
# with SIGKILL after SECONDS, reopens the database and prints the last row whose commit had
# returned ("acked") and the rows on disk ("stored"); stored < acked is a lost acknowledged commit.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
D=$1; T=$2; MODE=$3; EXTRA=${4:-}
H2=$(ls "$HERE"/target/lib/h2-*.jar)
rm -rf "$D"; mkdir -p "$D"
java -cp "$H2" "$HERE/scripts/trials/AckedWriter.java" "jdbc:h2:file:$D/j;WRITE_DELAY=0$EXTRA" "$MODE" > "$D/out" &
pid=$!
trap 'kill -9 $pid 2>/dev/null || true' EXIT
sleep "$T"
kill -9 $pid; wait $pid 2>/dev/null || true
acked=$(tail -1 "$D/out")
stored=$(java -cp "$H2" org.h2.tools.Shell -url "jdbc:h2:file:$D/j" -user sa -sql 'select count(*) from "acked"' | sed -n 2p)
echo "WRITE_DELAY=0$EXTRA $MODE, ${T} s: acked $acked stored $stored"
