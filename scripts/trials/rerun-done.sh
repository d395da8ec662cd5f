#!/usr/bin/env bash
# Reruns a completed two-node seed run on its own journals with --exit-when-done, N times, and
# reports every node still running 60 s after its start (a node left waiting for a peer that had
# already exited). usage: scripts/trials/rerun-done.sh [N] [STEPS]   (defaults 10, 300)
# Env: PARREG (default: this checkout's bin/parreg), PORT0 (default 28700), WORK (default a temp dir).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
N=${1:-10}; STEPS=${2:-300}; P=${PARREG:-$HERE/bin/parreg}; P0=${PORT0:-28700}
D=${WORK:-$(mktemp -d)}; mkdir -p "$D"
"$P" --version >/dev/null # builds first when needed
run() {
  local pids=()
  for p in 0 1; do
    $P node --participant $p --port $((P0 + p)) --seed-nodes 127.0.0.1:$P0,127.0.0.1:$((P0 + 1)) \
      --data seed --journal "$D/n$p" --steps "$STEPS" --exit-when-done > "$D/$1-n$p.log" 2>&1 &
    pids+=($!)
  done
  for _ in $(seq 1 60); do
    sleep 1
    kill -0 "${pids[0]}" 2>/dev/null || kill -0 "${pids[1]}" 2>/dev/null || break
  done
  for p in 0 1; do
    if kill -0 "${pids[$p]}" 2>/dev/null; then echo "$1: node $p still running after 60 s"; kill -9 "${pids[$p]}"; fi
    wait "${pids[$p]}" 2>/dev/null; echo "$1: node $p exit $?"
  done
}
run first
for k in $(seq 1 "$N"); do run "rerun$k"; done
echo "logs in $D"
