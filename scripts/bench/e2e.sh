#!/usr/bin/env bash
# End to end against PyTorch DDP, on one machine with two NVIDIA cards (BENCHMARKS.md, "GPU end
# to end"). For each job: generated data with bias, two partitions (.prb) on local disk,
#   1. parreg, two nodes bound to card 0 and card 1, H2 journals, --exit-when-done: time to
#      solution (both processes started -> both exited with the target durable), start -> first
#      step, steps/s between the first committed step and the target;
#   2. parreg again, node 1 killed with SIGKILL in the middle and restarted: its final bits must
#      equal run 1's (printed as bits=same);
#   3. the same job in PyTorch DDP (scripts/bench/ddp_bench.py, torchrun, NCCL): time to solution of the
#      whole torchrun command, and ms/step with the data already on the card; then the leanest
#      hand-written PyTorch form of the step (--manual: X^T r by hand, one all_reduce).
# usage (GPU machine, repository root, after scripts/build/device-bundle.sh here):
#   scripts/bench/e2e.sh OUTFILE [JOB...]       JOB = NAME:ROWS:D:STEPS (default: big:20000000:64:500 and small:1000000:16:2000)
# Env: PARREG (default ".device-bundle/scripts/run-gpu.sh parreg"), WORK (default /tmp/e2e),
#      NODE_ARGS (extra node arguments for both runs, e.g. "--sync-commit"), BACKEND (default cuda;
#      cpu for a dry run of the script on a machine without cards), NODES (default 2; 1 runs one
#      participant on card 0 against DDP with one process: the step path without the exchange),
#      CARDS (default "0 1": the card of each node; "0 0" puts both nodes on one card), DDP (default
#      1; 0 skips the PyTorch runs, e.g. with both nodes on one card, which NCCL refuses), CRASH
#      (default 1; 0 skips the kill -9 run), PORT0 (default 26000: node p listens on PORT0+p, its
#      status on PORT0+10000+p).
set -uo pipefail
OUTF=${1:?usage: scripts/bench/e2e.sh OUTFILE [NAME:ROWS:D:STEPS...]}; shift
JOBS=("$@"); [ ${#JOBS[@]} -gt 0 ] || JOBS=(big:20000000:64:500 small:1000000:16:2000)
read -r -a PARREG <<< "${PARREG:-.device-bundle/scripts/run-gpu.sh parreg}"
W=${WORK:-/tmp/e2e}
mkdir -p "$W"
say() { echo "$*" | tee -a "$OUTF"; }
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }   # no bc on the GPU machine
ms() { awk -F'[:.]' '{print (($1*60+$2)*60+$3)*1000+$4}' <<<"$1"; }
status() { python3 -c "import json,sys,urllib.request;print(json.load(urllib.request.urlopen('http://127.0.0.1:$1/status',timeout=2))['$2'])" 2>/dev/null; }

NODES=${NODES:-2}
read -r -a CARD <<< "${CARDS:-0 1}"
P0=${PORT0:-26000}
SEEDS=127.0.0.1:$P0; [ "$NODES" = 1 ] || SEEDS=127.0.0.1:$P0,127.0.0.1:$((P0 + 1))

start_node() { # run p log [extra...]
  local run=$1 p=$2 log=$3; shift 3
  PARREG_STARTUP_TRACE=1 PARREG_JAVA_OPTS="-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:+UseTransparentHugePages -Dparreg.step-trace=$R/trace" \
  "${PARREG[@]}" node --participant "$p" --participants "$NODES" --port $((P0 + p)) --admin-port $((P0 + 10000 + p)) \
    --seed-nodes "$SEEDS" --data "$DATA/part-$p.prb" --bias --learning-rate 1/4 \
    --journal "$R/node-$p" --steps "$STEPS" --backend "${BACKEND:-cuda}" --device "${CARD[$p]}" --exit-when-done ${NODE_ARGS:-} "$@" \
    >> "$log" 2>&1 &
  PID=$!
}

parreg_run() { # run [crash]
  local run=$1 crash=${2:-}
  local R=$W/$NAME-$NODES-$run   # each job's logs apart
  rm -rf "${R:?}"; mkdir -p "$R"
  local t0 c0; t0=$(now); c0=$(date +%T.%3N)
  local p0 p1 v=$((NODES - 1))
  start_node "$run" 0 "$R/n0.log"; p0=$PID; p1=$PID
  [ "$NODES" = 1 ] || { start_node "$run" 1 "$R/n1.log"; p1=$PID; }
  if [ -n "$crash" ]; then
    local half=$((STEPS / 2))
    until s=$(status $((P0 + 10000 + v)) committedStep) && [ "${s:-0}" -ge "$half" ]; do sleep 0.05; done
    kill -9 "$p1"; wait "$p1" 2>/dev/null
    echo "--- kill -9 at step $s, restart" >> "$R/n$v.log"
    local ck; ck=$(date +%T.%3N)
    start_node "$run" $v "$R/n$v.log"; p1=$PID; [ "$v" = 1 ] || p0=$PID
    RESTART_AT=$ck
  fi
  wait "$p0"; local e0=$?; local e1=0; [ "$p1" = "$p0" ] || { wait "$p1"; e1=$?; }
  local t1; t1=$(now)
  if [ $e0 -ne 0 ] || [ $e1 -ne 0 ]; then say "$JOB $run: FAILED (exit $e0/$e1), logs in $R"; tail -n 5 "$R"/n*.log; return 1; fi
  local first last bits
  first=$(grep -m1 "first step since start committed" "$R/n0.log" | cut -c1-12)
  last=$(grep -m1 "target step" "$R/n0.log" | cut -c1-12)
  bits=$(grep -h "target step" "$R"/n*.log | sed 's/.*w=\(\[[^]]*\]\).*/\1/' | sort -u)
  local nb; nb=$(echo "$bits" | wc -l)
  eval "BITS_$run=\$(echo \"\$bits\" | md5sum | cut -c1-12)"
  local tts; tts=$(calc "$t1 - $t0")
  local rate; rate=$(calc "($STEPS - 1) * 1000 / ($(ms "$last") - $(ms "$first"))" 1)
  local startup; startup=$(calc "($(ms "$first") - $(ms "$c0")) / 1000")
  say "$JOB parreg $run: time_to_solution_s=$tts start_to_first_step_s=$startup steps_per_s=$rate ms_per_step=$(calc "1000 / $rate" 3) nodes_agree=$([ "$nb" = 1 ] && echo yes || echo NO) bits=$(eval echo \$BITS_$run)${crash:+ (node $v killed at step $s)}"
  if [ -n "$crash" ]; then
    local back; back=$(sed -n '/--- kill -9/,$p' "$R/n$v.log" | grep -m1 "first step since start committed" | cut -c1-12)
    [ -n "$back" ] && say "$JOB parreg $run: restart -> first new step $(calc "($(ms "$back") - $(ms "$RESTART_AT")) / 1000") s"
  fi
  grep -h "\] backend \|plan" "$R/n0.log" | head -2 >> "$OUTF"
  # The start-up milestones of every node (PARREG_STARTUP_TRACE, ms after each process start; after
  # a kill -9 the restarted node's follow the "--- kill -9" line).
  for f in "$R"/n*.log; do sed -n 's/^\(--- kill -9.*\|startup +.*\)/'"$NAME $run $(basename "$f" .log)"': \1/p' "$f"; done >> "$OUTF"
  # the per-step critical path over the second half of the run (JIT warm-up excluded)
  [ -z "$crash" ] && [ "$NODES" = 2 ] && python3 "$(dirname "$0")/step-trace.py" "$R/trace" $((STEPS / 2)) 2>&1 | sed "s/^/  $NAME trace: /" | tee -a "$OUTF"
}

for JOB in "${JOBS[@]}"; do
  IFS=: read -r NAME ROWS D STEPS <<< "$JOB"
  DATA=$W/data-$NAME-$NODES
  if [ ! -f "$DATA/part-$((NODES - 1)).prb" ]; then
    g0=$(now)
    "${PARREG[@]}" generate --rows "$ROWS" --features "$D" --partitions "$NODES" --noise 0.01 --seed 7 --out "$DATA" --format bin --bias > "$W/gen-$NAME.log" 2>&1 \
      || { say "$JOB: generate failed"; tail -3 "$W/gen-$NAME.log"; continue; }
    say "$JOB: generated $(du -sh "$DATA" | cut -f1) in $(calc "$(now) - $g0") s"
  fi
  cat "$DATA"/part-*.prb > /dev/null   # page cache warm for both sides
  parreg_run plain
  if [ "${CRASH:-1}" = 1 ]; then
    parreg_run crash crash
    if [ -n "${BITS_plain:-}" ] && [ "${BITS_plain:-}" = "${BITS_crash:-x}" ]; then say "$JOB: kill -9 + restart bits=same"; else say "$JOB: kill -9 + restart bits=DIFFER"; fi
  fi
  [ "${DDP:-1}" = 1 ] || continue
  t0=$(now)
  torchrun --standalone --nproc_per_node="$NODES" scripts/bench/ddp_bench.py --data "$DATA" --steps "$STEPS" --lr 0.25 > "$W/ddp-$NAME.log" 2>&1
  say "$JOB ddp: $(grep '^ddp' "$W/ddp-$NAME.log") wall_s=$(calc "$(now) - $t0")"
  grep -q '^ddp' "$W/ddp-$NAME.log" || tail -n 5 "$W/ddp-$NAME.log" | tee -a "$OUTF"
  t0=$(now)
  torchrun --standalone --nproc_per_node="$NODES" scripts/bench/ddp_bench.py --manual --data "$DATA" --steps "$STEPS" --lr 0.25 > "$W/manual-$NAME.log" 2>&1
  say "$JOB torch-manual: $(grep '^manual' "$W/manual-$NAME.log") wall_s=$(calc "$(now) - $t0")"
  grep -q '^manual' "$W/manual-$NAME.log" || tail -n 5 "$W/manual-$NAME.log" | tee -a "$OUTF"
done
