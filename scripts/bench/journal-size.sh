#!/usr/bin/env bash
# How large a node's H2 journal grows during a run and after a kill -9 (BENCHMARKS.md, "Journal size").
# usage: scripts/bench/journal-size.sh WORKDIR STEPS [EXTRA node args, e.g. --sync-commit or --config FILE]
# Env: JAVA_OPTS (default -XX:+UseSerialGC), JAR (default target/parreg.jar of this checkout),
#      PORT0 (default 27500; the second node uses PORT0+1).
# Starts the two-node seed run with fresh H2 journals under WORKDIR, samples the size of node 0's
# journal file plus its step log (DIR/journal.steplog, --sync-commit) every 0.2 s while it trains, kills both nodes with SIGKILL once node 0 reports the
# target step (so nothing closes or compacts the file), and prints the largest size seen, the
# size after the kill, and scripts/bench/java/JournalSize.java's figures for each journal: the bytes of
# its live rows and the size of the same database compacted.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
D=$1; S=$2; shift 2
JAR=${JAR:-$HERE/target/parreg.jar}
JAVA_OPTS=${JAVA_OPTS:--XX:+UseSerialGC}
P0=${PORT0:-27500}; P1=$((P0 + 1))
rm -rf "$D"; mkdir -p "$D"
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
for p in 0 1; do
  java $JAVA_OPTS -jar "$JAR" node --participant $p --port $((P0 + p)) \
    --seed-nodes 127.0.0.1:$P0,127.0.0.1:$P1 --journal "$D/n$p" --steps "$S" "$@" > "$D/n$p.log" 2>&1 &
  pids+=($!)
done
status() { curl -s --max-time 2 "http://127.0.0.1:$((P0 + 10000))/status" || true; }
max=0; t0=$(date +%s)
while :; do
  sz=$(stat -c %s "$D/n0/journal.mv.db" 2>/dev/null || echo 0)
  lg=$( (cat "$D"/n0/journal.steplog/*.steplog 2>/dev/null || true) | wc -c)
  [ $((sz + lg)) -gt "$max" ] && max=$((sz + lg))
  [ "$lg" -gt "${maxlog:-0}" ] && maxlog=$lg
  st=$(status)
  if grep -q '"state" *: *"done"' <<<"$st"; then break; fi
  for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || { echo "a node exited early, see $D/n*.log"; exit 1; }; done
  if [ $(( $(date +%s) - t0 )) -gt ${NODE_TIMEOUT:-1800} ]; then echo "timed out"; exit 1; fi
  sleep 0.2
done
cleanup; sleep 0.5
echo "steps $S $*: node 0 journal + step log largest while training $max B ($(( max / 1024 / 1024 )) MB; step log at most ${maxlog:-0} B), $(( $(date +%s) - t0 )) s"
H2=$(ls "$HERE"/target/lib/h2-*.jar)
for p in 0 1; do
  echo "node $p after kill -9: $(java -cp "$H2" "$HERE/scripts/bench/java/JournalSize.java" "$D/n$p")"
done
