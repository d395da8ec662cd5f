#!/usr/bin/env bash
# Writes target/parreg.jsa, an application class-data-sharing archive (AppCDS, Java 17 dynamic
# archive) of the classes a node loads, by running a short two-node training with
# -XX:ArchiveClassesAtExit. bin/parreg uses it while it is newer than target/parreg.jar; run this
# again after every build. By hand: java -XX:SharedArchiveFile=target/parreg.jsa -jar ... node ...
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
JAR="$HERE/target/parreg.jar"
[ -f "$JAR" ] || { echo "build first: mvn -q -B package -DskipTests" >&2; exit 1; }
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
# Two free neighbouring ports from PORT0 (default 27600) on: nothing may answer on either.
in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
P0=${PORT0:-27600}
while in_use "$P0" || in_use "$((P0 + 1))"; do P0=$((P0 + 2)); done
P1=$((P0 + 1))
rm -f "$HERE/target/parreg.jsa"
for p in 0 1; do
  extra=""; [ $p = 0 ] && extra="-XX:ArchiveClassesAtExit=$HERE/target/parreg.jsa"
  java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 --add-modules jdk.incubator.vector $extra -jar "$JAR" node --participant $p --port $((P0 + p)) \
    --seed-nodes 127.0.0.1:$P0,127.0.0.1:$P1 --journal "$W/n$p" --steps 300 --exit-when-done > "$W/n$p.log" 2>&1 &
done
wait
ls -la "$HERE/target/parreg.jsa"
