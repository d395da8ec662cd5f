#!/usr/bin/env bash
# Durable steps per second of an N-node run on this machine.
#   scripts/bench/cluster.sh NODES STEPS h2|postgres
# 2 nodes train the seed run; more nodes train generated data (1,000 rows of d = 4 per node, whole
# partition per step), which costs the same per step. Journals: an embedded H2 database per node
# (under a temporary directory), or one fresh PostgreSQL database on 127.0.0.1:5432 shared by all
# nodes (created and dropped here). JVM options as bin/parreg uses them for nodes. Reports
# committed steps per second of participant 0 between "roster complete" and "target step ...
# committed" (JVM start and cluster formation excluded).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
N=${1:?nodes}; S=${2:?steps}; J=${3:-h2}
JAR="$HERE/target/parreg.jar"
[ -f "$JAR" ] || (cd "$HERE" && mvn -q -B package -DskipTests)
JAVA_OPTS=${JAVA_OPTS:--XX:+UseSerialGC -XX:TieredStopAtLevel=1 --add-modules jdk.incubator.vector}
W=$(mktemp -d /tmp/parreg-bench-XXXXXX)
P0=${PORT0:-27800}
seeds=""; for p in $(seq 0 $((N - 1))); do seeds="$seeds${seeds:+,}127.0.0.1:$((P0 + p))"; done
data=()
if [ "$N" != 2 ]; then
  java -jar "$JAR" generate --rows $((N * 1000)) --features 4 --partitions "$N" --noise 0.01 --seed 1 --out "$W/data" >/dev/null
fi
db=""
if [ "$J" = postgres ]; then
  db="parreg_bench_$$"
  psql -q -h 127.0.0.1 -U postgres -c "CREATE DATABASE $db" >/dev/null
  trap 'psql -q -h 127.0.0.1 -U postgres -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null; rm -rf "$W"' EXIT
else
  trap 'rm -rf "$W"' EXIT
fi
for p in $(seq 0 $((N - 1))); do
  if [ "$N" = 2 ]; then d="seed"; else d="$W/data/part-$p.csv"; fi
  if [ "$J" = postgres ]; then j="jdbc:postgresql://127.0.0.1:5432/$db?user=postgres"; else j="$W/n$p"; fi
  /usr/bin/time -f "%U user %S sys" -o "$W/time$p" java $JAVA_OPTS -jar "$JAR" node --participant "$p" --participants "$N" \
    --port $((P0 + p)) --seed-nodes "$seeds" --data "$d" --journal "$j" --steps "$S" --exit-when-done --backend cpu \
    > "$W/n$p.log" 2>&1 &
done
wait
ms() { awk -F'[:.]' '{print (($1*60+$2)*60+$3)*1000+$4}' <<<"$1"; }
a=$(grep -m1 "roster complete" "$W/n0.log" | cut -c1-12 || true)
b=$(grep -m1 "target step" "$W/n0.log" | cut -c1-12 || true)
if [ -z "$a" ] || [ -z "$b" ]; then echo "run failed:"; tail -5 "$W/n0.log"; exit 1; fi
dt=$(( $(ms "$b") - $(ms "$a") ))
echo "$N nodes, $J journal: $S steps in $dt ms => $(( S * 1000 / (dt + 1) )) durable steps/s; cpu per node: $(cat "$W"/time* | tr '\n' ';')"
