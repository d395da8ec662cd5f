#!/usr/bin/env bash
# The cost of the cluster port's framing guard (and of TLS) on an unpaced two-node seed run, and
# what the nine-byte packet does to each.
#   scripts/bench/framing-guard.sh [ROUNDS] [VARIANTS]
# VARIANTS: any of "off on tls" (default all three): plain TCP with the guard off
# (-Dparreg.cluster.framing-guard.enabled=off, Pekko's framing on the cluster port), plain TCP with
# the guard (the default), TLS with keys from `parreg keys`. The variants of a round run one after
# the other on the same machine, rounds alternate them. Each run: two nodes with fresh H2
# journals; WARMUP s after the first step, node 0's committed steps over WINDOW s (from /status),
# both processes' CPU seconds (/proc/PID/stat), their mean CPU time per step and node, and the
# CPU time per step of node 0's guard thread (0 where there is none); then PACKETS connections
# each send b'AKKA\x02' + a negative length to node 0's cluster port, and the same figures follow
# over another WINDOW s (PACKETS=0: no packets, no second window).
# Env: WARMUP (default 20), WINDOW (10), PACKETS (3), PORT0 (default: free ports, new each run),
# TASKSET (e.g. "0,1" to run both nodes on two CPUs), JAVA (java).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ROUNDS=${1:-3}; VARIANTS=${2:-off on tls}
JAR="$HERE/target/parreg.jar"
[ -f "$JAR" ] || (cd "$HERE" && mvn -q -B -Dparreg.dist.skip=true -DskipTests package)
WARMUP=${WARMUP:-20}; WINDOW=${WINDOW:-10}; PACKETS=${PACKETS:-3}
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
guard_ticks() { # CPU ticks of node 0's guard thread (parreg-cluster-port-guard), 0 without one
  local t
  for t in /proc/"$(cat "$W/pid0")"/task/*; do
    if grep -q '^parreg-cluster-' "$t/comm" 2>/dev/null; then awk '{print $14 + $15}' "$t/stat"; return; fi
  done
  echo 0
}
window() { # prints "steps cpu0 cpu1 us-per-step guard-us-per-step" over WINDOW s
  local s0 c0 c1 g0 s1 d0 d1 dg
  s0=$(status); c0=$(ticks 0); c1=$(ticks 1); g0=$(guard_ticks); sleep "$WINDOW"
  s1=$(status); d0=$(( $(ticks 0) - c0 )); d1=$(( $(ticks 1) - c1 )); dg=$(( $(guard_ticks) - g0 ))
  awk -v s=$((s1 - s0)) -v a=$d0 -v b=$d1 -v g=$dg -v hz="$HZ" 'BEGIN {
    printf "%d %.2f %.2f %.0f %.0f", s, a / hz, b / hz, s ? (a + b) / hz / s * 5e5 : 0, s ? g / hz / s * 1e6 : 0 }'
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
cols="steps/${WINDOW}s cpu0-s cpu1-s cpu-us/step/node guard-us/step"
if [ "$PACKETS" -gt 0 ]; then echo "variant round $cols | after $PACKETS packets: $cols"; else echo "variant round $cols"; fi
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
    # two consecutive free ports (the cluster ports) whose admin ports (+10000) are free too
    P0=${PORT0:-$(python3 -c 'import random, socket
while True:
    p = random.randrange(20000, 30000)
    try:
        for q in (p, p + 1, p + 10000, p + 10001):
            s = socket.socket(); s.bind(("127.0.0.1", q)); s.close()
    except OSError:
        continue
    print(p); break')}
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
    if [ "$PACKETS" -gt 0 ]; then
      packets
      sleep 2
      echo "$v $r $before | $(window)"
    else
      echo "$v $r $before"
    fi
    kill "$(cat "$W/pid0")" "$(cat "$W/pid1")"
    # a node whose framing loops does not stop on SIGTERM: it is killed below, and its job's
    # "Killed" notice is not news
    for p in 0 1; do
      for _ in $(seq 1 100); do kill -0 "$(cat "$W/pid$p")" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$(cat "$W/pid$p")" 2>/dev/null || true
      rm -f "$W/pid$p"
    done
  done
done
