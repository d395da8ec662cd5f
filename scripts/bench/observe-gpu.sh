#!/usr/bin/env bash
# Step-rate cost of watching a GPU run: the progress line, both nodes' /metrics scraped
# every second and a hold-out file evaluated every VAL_EVERY committed steps ("on"), against the same
# job with the progress line off, nothing scraped and no hold-out ("off"); ROUNDS alternated pairs
# per job, each a plain run of scripts/bench/e2e.sh (CRASH=0 DDP=0: steps/s between node 0's first
# committed step and its target step, so start-up is excluded).
# usage (GPU machine, repository root, after scripts/build/device-bundle.sh here):
#   scripts/bench/observe-gpu.sh OUTFILE [ROUNDS (default 3)] [JOB...]
#   JOB = NAME:ROWS:D:STEPS as for scripts/bench/e2e.sh (default small:1000000:16:10000 big:20000000:64:2000)
# Env: as scripts/bench/e2e.sh (PARREG, WORK, BACKEND, CARDS); VAL_EVERY (default 100, the node's default);
#      VAL_ROWS (default 100000).
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUTF=${1:?usage: scripts/bench/observe-gpu.sh OUTFILE [ROUNDS] [JOB...]}
ROUNDS=${2:-3}
shift $(($# < 2 ? $# : 2))
JOBS=("$@"); [ ${#JOBS[@]} -gt 0 ] || JOBS=(small:1000000:16:10000 big:20000000:64:2000)
read -r -a PARREG_CMD <<< "${PARREG:-.device-bundle/scripts/run-gpu.sh parreg}"
W=${WORK:-/tmp/e2e}
mkdir -p "$W"
say() { echo "$*" | tee -a "$OUTF"; }
printf 'parreg.progress-interval = 0\n' > "$W/quiet.conf"
# shellcheck source=scripts/bench/lib.sh
. "$HERE/scripts/bench/lib.sh"
rate() { grep -o 'steps_per_s=[0-9.]*' "$1" | tail -1 | cut -d= -f2; }

for JOB in "${JOBS[@]}"; do
  IFS=: read -r NAME ROWS D STEPS <<< "$JOB"
  VAL=$W/val-$D
  [ -f "$VAL/part-0.prb" ] || "${PARREG_CMD[@]}" generate --rows "${VAL_ROWS:-100000}" --features "$D" --partitions 1 \
    --noise 0.01 --seed 11 --out "$VAL" --format bin --bias > "$W/gen-val-$D.log" 2>&1 \
    || { say "$JOB: hold-out generate failed"; tail -3 "$W/gen-val-$D.log"; continue; }
  off=(); on=()
  for r in $(seq 1 "$ROUNDS"); do
    CRASH=0 DDP=0 NODE_ARGS="--config $W/quiet.conf" "$HERE/scripts/bench/e2e.sh" "$W/off.txt" "$JOB" > "$W/off.out" 2>&1
    a=$(rate "$W/off.out")
    ( while sleep 1; do
        for port in $((${PORT0:-26000} + 10000)) $((${PORT0:-26000} + 10001)); do
          curl -s -o /dev/null -w '%{http_code}\n' --max-time 1 "http://127.0.0.1:$port/metrics" >> "$W/scrapes-$NAME" || true
        done
      done ) &
    scraper=$!
    CRASH=0 DDP=0 NODE_ARGS="--validation $VAL/part-0.prb --validation-every ${VAL_EVERY:-100}" \
      "$HERE/scripts/bench/e2e.sh" "$W/on.txt" "$JOB" > "$W/on.out" 2>&1
    kill "$scraper"; wait "$scraper" 2>/dev/null
    b=$(rate "$W/on.out")
    evals=$(grep -c "hold-out" "$W/$NAME-2-plain/n0.log" 2>/dev/null || echo 0)
    say "$JOB round $r: off ${a:-FAILED} steps/s, on ${b:-FAILED} steps/s (node 0 log lines naming the hold-out: $evals)"
    [ -n "$a" ] && off+=("$a"); [ -n "$b" ] && on+=("$b")
  done
  if [ ${#off[@]} -gt 0 ] && [ ${#on[@]} -gt 0 ]; then
    mo=$(median "${off[@]}"); mn=$(median "${on[@]}")
    say "$JOB: median off $mo, on $mn steps/s: $(awk "BEGIN { printf \"%+.1f\", ($mn - $mo) * 100 / $mo }") %; /metrics answers 200: $(grep -c '^200' "$W/scrapes-$NAME" 2>/dev/null || echo 0)"
  fi
done
