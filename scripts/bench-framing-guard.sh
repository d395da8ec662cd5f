#!/usr/bin/env bash
# The cost of the cluster port's framing guard (and of TLS) on an unpaced two-node seed run, and
# what the nine-byte packet does to each.
#   scripts/bench-framing-guard.sh [ROUNDS] [VARIANTS]
# VARIANTS: any of "off on tls" (default all three): plain TCP with the guard off
# (-Dparreg.cluster.framing-guard.enabled=off, Pekko's framing on the cluster port), plain TCP with
# the guard (the default), TLS with keys from `parreg keys`. The variants of a round run one after
# the other on the same machine, rounds alternate them. Each run: two nodes with fresh H2 journals,
# WARMUP s after its first step, then committed steps of node 0 over WINDOW s (from /status) and the CPU seconds of both
# processes (/proc/PID/stat), then PACKETS connections each sending b'AKKA\x02' + a negative
# length to node 0's cluster port, and the same figures again over WINDOW s.
# Env: WARMUP (default 20), WINDOW (10), PACKETS (3), PORT0 (27600), TASKSET (e.g. "0,1" to run
# both nodes on two CPUs), JAVA (java).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROUNDS=${1:-3}; VARIANTS=${2:-off on tls}
JAR="$HERE/target/parreg.jar"
[ -f "$JAR" ] || (cd "$HERE" && mvn -q -B -Dparreg.dist.skip=true -DskipTests package)
WARMUP=${WARMUP:-20}; WINDOW=${WINDOW:-10}; PACKETS=${PACKETS:-3}; P0=${PORT0:-27600}
JAVA=${JAVA:-java}
W=$(mktemp -d /tmp/parreg-guard-bench-XXXXXX)
trap 'for f in "$W"/pid*; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done; rm -rf "$W"' EXIT
"$JAVA" -jar "$JAR" keys --nodes 2 --out "$W/keys" >/dev/null
HZ=$(getconf CLK_TCK)
pin=(); [ -n "${TASKSET:-}" ] && pin=(taskset -c "$TASKSET")
status() { # node 0's committed step, -1 while it does not answer
  curl -s -m 2 "http://127.0.0.1:$((P0 + 10000))/status" 2>/dev/null \
    | python3 -c 'import json,sys
try: print(json.load(sys.stdin)["committedStep"])
except Exception: print(-1)'; }
training() { # waits until node 0 has committed a step (at most 180 s)
  for _ in $(seq 1 360); do [ "$(status)" -gt 0 ] && return 0; sleep 0.5; done
  echo "the run did not start; see $W/j/n0.log" >&2; tail -5 "$W/j/n0.log" >&2; exit 1; }
ticks() { awk '{print $14 + $15}' "/proc/$(cat "$W/pid$1")/stat"; }
window() { # prints "steps cpu0 cpu1" over WINDOW s
  local s0 c0 c1 s1
  s0=$(status); c0=$(ticks 0); c1=$(ticks 1); sleep "$WINDOW"
  s1=$(status)
  echo "$((s1 - s0)) $(awk "BEGIN{printf \"%.2f %.2f\", ($(ticks 0) - $c0) / $HZ, ($(ticks 1) - $c1) / $HZ}")"
}
packets() {
  python3 - "$((P0))" "$PACKETS" <<'EOF'
import socket, struct, sys, time
for _ in range(int(sys.argv[2])):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
    s.sendall(b"AKKA\x02" + struct.pack("<i", -16))
    time.sleep(0.2)
    s.close()
EOF
}
echo "variant round steps/${WINDOW}s cpu0-s cpu1-s | after ${PACKETS} packets: steps/${WINDOW}s cpu0-s cpu1-s"
for r in $(seq 1 "$ROUNDS"); do
  for v in $VARIANTS; do
    props=(); tls=()
    case $v in
      off) props=(-Dparreg.cluster.framing-guard.enabled=off) ;;
      on) ;;
      tls) ;;
      *) echo "unknown variant $v" >&2; exit 2 ;;
    esac
    rm -rf "$W/j"; mkdir -p "$W/j"
    for p in 0 1; do
      [ "$v" = tls ] && tls=(--tls-keystore "$W/keys/node-$p.p12" --tls-truststore "$W/keys/truststore.p12" --tls-password-file "$W/keys/password")
      "${pin[@]}" "$JAVA" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 --add-modules jdk.incubator.vector "${props[@]}" \
        -jar "$JAR" node --participant "$p" --port $((P0 + p)) --seed-nodes "127.0.0.1:$P0,127.0.0.1:$((P0 + 1))" \
        --journal "$W/j/n$p" --steps 1000000000 --backend cpu "${tls[@]}" > "$W/j/n$p.log" 2>&1 &
      echo $! > "$W/pid$p"
    done
    training
    sleep "$WARMUP"
    before=$(window)
    packets
    sleep 2
    after=$(window)
    echo "$v $r $before | $after"
    kill "$(cat "$W/pid0")" "$(cat "$W/pid1")"
    for p in 0 1; do
      for _ in $(seq 1 100); do kill -0 "$(cat "$W/pid$p")" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$(cat "$W/pid$p")" 2>/dev/null || true
      rm -f "$W/pid$p"
    done
  done
done
