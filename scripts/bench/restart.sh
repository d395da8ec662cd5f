#!/usr/bin/env bash
# Restart-latency benchmark: two nodes train; node 1 is killed with SIGKILL and started again
# (same port, same journal). Prints the time from the restart (process start) to the first step
# that the restarted node commits (its log line "first step since start committed"), and the
# start-up milestones of the restarted node relative to its process start.
# usage: scripts/bench/restart.sh WORKDIR [EXTRA node args, e.g. --config FILE]
# Nodes start through bin/parreg (its JVM options and AppCDS archive, as users run them); with
# JAR set, they start as `java $JAVA_OPTS -jar $JAR` instead (to compare builds).
# Env: JAVA_OPTS (with JAR; default -XX:+UseSerialGC), JAR, PORT0 (default 27500), KILL_AFTER (seconds of training before the kill, default 5),
#      DELAY (seconds between kill and restart, default 1), ARGS0 / ARGS1 (extra arguments of node 0 / node 1 only,
#      e.g. ARGS1="--data big.prb" ARGS0="--data small.prb": the restarted node on a large partition).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
D=$1; shift
EXTRA=("$@")
JAVA_OPTS=${JAVA_OPTS:--XX:+UseSerialGC}
P0=${PORT0:-27500}; P1=$((P0 + 1))
KILL_AFTER=${KILL_AFTER:-5}; DELAY=${DELAY:-1}
rm -rf "$D"; mkdir -p "$D"
node() { # participant
  local launch=("$HERE/bin/parreg")
  [ -n "${JAR:-}" ] && launch=(java $JAVA_OPTS -jar "$JAR")
  "${launch[@]}" node --participant $1 --port $((P0 + $1)) \
    --seed-nodes 127.0.0.1:$P0,127.0.0.1:$P1 --journal "$D/n$1" --steps 100000000 ${EXTRA[@]+"${EXTRA[@]}"} $(eval echo "\${ARGS$1:-}") >> "$D/n$1.log" 2>&1 &
  echo $!
}
pid0=$(node 0); pid1=$(node 1)
# On exit, stop both nodes and wait until they are gone, so that a following run can bind the ports.
cleanup() { kill $pid0 $pid1 2>/dev/null || true; while kill -0 $pid0 2>/dev/null || kill -0 $pid1 2>/dev/null; do sleep 0.1; done; }
trap cleanup EXIT
until grep -q "roster complete\|recovered " "$D/n1.log"; do sleep 0.2; done
sleep "$KILL_AFTER"
kill -9 "$pid1"; wait "$pid1" 2>/dev/null || true
echo "--- killed at $(date +%T.%N) ---" >> "$D/n1.log"
sleep "$DELAY"
t0=$(date +%s%N)
pid1=$(node 1)
L=$D/n1.log
until sed -n '/--- killed at/,$p' "$L" | grep -q "first step since start committed"; do
  kill -0 "$pid1" 2>/dev/null || { echo "restarted node exited before its first step; see $L" >&2; exit 1; }
  sleep 0.05
done
# CPU time (user+sys) the restarted process has used so far: less sensitive to a loaded machine than wall time.
cpu_ms=$(awk -v hz="$(getconf CLK_TCK)" '{print int(($14+$15)*1000/hz)}' "/proc/$pid1/stat" 2>/dev/null || echo "?")
ms() { awk -F'[:.]' '{print (($1*60+$2)*60+$3)*1000+$4}' <<<"$1"; }
start=$(( (t0 / 1000000) % 86400000 ))
after_kill() { sed -n '/--- killed at/,$p' "$L" > "$D/n1.restart.log"; grep -m1 "$1" "$D/n1.restart.log" | cut -c1-12 || true; }
rel() { local line; line=$(after_kill "$1"); [ -n "$line" ] && echo "$(( $(ms "$line") - start )) ms  $2" || echo "   -  $2"; }
rel "Slf4jLogger started" "logging up (JVM, CLI, journal schema check)"
rel "Started up successfully" "cluster extension started"
rel "backend auto\\|backend cpu\\|backend cuda" "GPU actor backend open"
rel "Welcome from" "joined (Welcome)"
rel "Auto-starting journal" "journal plugin start"
rel "recovered " "recovery completed"
rel "admitted at" "peer admitted"
rel "first step since start committed" "FIRST NEW STEP COMMITTED"
# With PARREG_STARTUP_TRACE=1: the restarted node's own milestones (ms after its process start),
# among them "partition rows read" and "backend ready (partition loaded)".
grep "^startup +" "$D/n1.restart.log" || true
echo "CPU of the restarted process until then: $cpu_ms ms (load average $(cut -d' ' -f1 /proc/loadavg))"
echo "restart (process start) to first new commit: $(( $(ms "$(after_kill "first step since start")") - start )) ms"
