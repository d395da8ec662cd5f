#!/usr/bin/env bash
# Two-node seed-run throughput benchmark.
# usage: scripts/bench/two-nodes.sh WORKDIR STEPS [EXTRA node args, e.g. --config FILE]
# Env: NODE_TIMEOUT (default 600 s per node), JAVA_OPTS (default -XX:+UseSerialGC), JAR (default target/parreg.jar of this checkout),
#      PORT0 (default 27400; the second node uses PORT0+1), PARREG (the command that runs parreg instead of
#      java $JAVA_OPTS -jar $JAR, e.g. ".device-bundle/scripts/run-gpu.sh parreg" on the GPU machine).
# Starts two nodes with fresh H2 journals under WORKDIR, waits for both to exit, and prints the
# wall time, the steps/s measured between the two log lines "roster complete" and "target step"
# of node 0 (so JVM start-up is excluded), and each process's CPU time.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
D=$1; S=$2; shift 2
JAR=${JAR:-$HERE/target/parreg.jar}
JAVA_OPTS=${JAVA_OPTS:--XX:+UseSerialGC}
P0=${PORT0:-27400}; P1=$((P0 + 1))
rm -rf "$D"; mkdir -p "$D"
t0=$(date +%s.%N)
for p in 0 1; do
  /usr/bin/time -f "%U user %S sys %e wall" -o "$D/time$p" \
    timeout ${NODE_TIMEOUT:-600} ${PARREG:-java $JAVA_OPTS -jar $JAR} node --participant $p --port $((P0 + p)) \
      --seed-nodes 127.0.0.1:$P0,127.0.0.1:$P1 --journal "$D/n$p" --steps "$S" --exit-when-done "$@" \
      > "$D/n$p.log" 2>&1 &
done
wait
t1=$(date +%s.%N)
ms() { # HH:MM:SS.mmm -> ms
  awk -F'[:.]' '{print (($1*60+$2)*60+$3)*1000+$4}' <<<"$1"; }
a=$(grep -m1 "roster complete" "$D/n0.log" | cut -c1-12 || true)
b=$(grep -m1 "target step" "$D/n0.log" | cut -c1-12 || true)
if [ -n "$a" ] && [ -n "$b" ]; then
  dt=$(( $(ms "$b") - $(ms "$a") ))
  echo "wall $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s; steps $S in ${dt} ms => $(( S * 1000 / (dt + 1) )) steps/s; cpu n0: $(cat "$D/time0"); n1: $(cat "$D/time1")"
else
  echo "run failed, see $D/n0.log $D/n1.log"; exit 1
fi
