#!/usr/bin/env bash
# Floors under the two-node step rate (BENCHMARKS.md, "Seed run"): a plain JDBC insert+commit
# loop on an H2 file database with WRITE_DELAY=0, the product's whole persist path (typed
# EventSourcedBehavior -> pekko-persistence-jdbc -> Slick -> HikariCP -> H2, the node's own
# configuration, one persist at a time), and an Artery ping-pong between two JVMs.
# usage: scripts/bench/floors.sh [WORKDIR]   (after mvn package; ports 28600/28601)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
D=${1:-/tmp/parreg-floors}; mkdir -p "$D"
CP=$(ls "$HERE"/target/lib/*.jar | tr '\n' ':')
PCP="$HERE/target/parreg.jar:$CP"   # PersistFloor uses the project's classes and configuration
J="java -XX:+UseSerialGC -XX:TieredStopAtLevel=1"
echo "== H2, journal table as created by JournalSchema (one ordering index)"
$J -cp "$CP" "$HERE/scripts/bench/java/H2Floor.java" "$D/h2" 3000 | tail -1
echo "== H2, with the plugin's second ordering index"
$J -cp "$CP" "$HERE/scripts/bench/java/H2Floor.java" "$D/h2" 3000 "" 2idx | tail -1
for payload in schema blob varbinary; do
  echo "== persist path (PersistFloor), payload columns: $payload"
  $J -cp "$PCP" "$HERE/scripts/bench/java/PersistFloor.java" "$D/persist-$payload" 5000 $payload 2>/dev/null | grep -E "^(round|payload)"
done
for mode in default one; do
  echo "== Artery ping-pong, $mode dispatcher(s)"
  extra=""; [ $mode = one ] && extra=one
  $J -cp "$CP" "$HERE/scripts/bench/java/PingPong.java" server 28600 x x $extra > "$D/pingpong-server.log" 2>&1 &
  S=$!
  sleep 4
  $J -cp "$CP" "$HERE/scripts/bench/java/PingPong.java" client 28601 28600 5000 $extra 2>&1 | grep "round trips" || true
  kill $S 2>/dev/null || true; wait $S 2>/dev/null || true
done
