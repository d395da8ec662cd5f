#!/usr/bin/env bash
# Scaling over the cards of one machine against PyTorch DDP (BENCHMARKS.md, "Scaling"). For K = 1, 2, 4, 8 cards (as many as the machine has, or the Ks given):
#   weak    ROWS_PER_CARD rows x D per card (with bias), STEPS full-batch steps;
#   strong  STRONG_ROWS rows x D in total, split over the K cards, STEPS steps;
#   mini    the strong data, --batch-size MINI_BATCH per participant, MINI_STEPS steps;
# each as
#   1. parreg: K nodes, node p bound to card p by UUID, H2 journals on local disk,
#      --exit-when-done: time to solution (all started -> all exited with the target durable in
#      every journal), start -> first step, steps/s from the first committed step to the target;
#   2. parreg again with one kill -9 of a random node at a third of the steps and its restart: its final
#      bits must equal run 1's (bits=same);
#   3. PyTorch DDP (scripts/bench/ddp_bench.py, torchrun, one process per card, float32, NCCL): time to
#      solution of the whole torchrun command (it reads the same .prb files) and steps/s with the
#      data on the cards.
# A shape whose partition exceeds one partition's limit (2^31 - 8 values) is reported, not run.
# usage (GPU machine, repository root, with a device bundle (scripts/build/device-bundle.sh) or an unpacked distribution):
#   scripts/bench/scaling.sh OUTFILE [K...]
# Env: PARREG (default ".device-bundle/scripts/run-gpu.sh parreg"), WORK (default /tmp/scaling),
#      ROWS_PER_CARD (10000000), STRONG_ROWS (40000000), D (64), STEPS (500), MINI_BATCH (100000),
#      MINI_STEPS (2000), JOBS (default "weak strong mini"), CRASH (1; 0 skips run 2), DDP (1),
#      BACKEND (cuda; cpu for a dry run of the script without cards, then K nodes share the CPU).
set -uo pipefail
OUTF=${1:?usage: scripts/bench/scaling.sh OUTFILE [K...]}; shift
read -r -a PARREG <<< "${PARREG:-.device-bundle/scripts/run-gpu.sh parreg}"
W=${WORK:-/tmp/scaling}; mkdir -p "$W"
D=${D:-64}; STEPS=${STEPS:-500}
HERE="$(cd "$(dirname "$0")" && pwd)"
say() { echo "$*" | tee -a "$OUTF"; }
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }   # no bc on the GPU machine
ms() { awk -F'[:.]' '{print (($1*60+$2)*60+$3)*1000+$4}' <<<"$1"; }
# a node's committed step, cheaply (polled every 10 ms: a short job passes half its steps in 0.2 s)
committed() { curl -s -m 1 "http://127.0.0.1:$1/status" | grep -o '"committedStep" *: *[0-9]*' | grep -o '[0-9]*$'; }

if [ "${BACKEND:-cuda}" = cuda ]; then
  mapfile -t UUID < <(nvidia-smi --query-gpu=uuid --format=csv,noheader | tr -d ' ')
else
  UUID=()
fi
KS=("$@")
if [ ${#KS[@]} = 0 ]; then
  have=${#UUID[@]}; [ "$have" -gt 0 ] || have=2
  for k in 1 2 4 8; do [ "$k" -le "$have" ] && KS+=("$k"); done
fi
say "# bench-scaling $(date -u +%FT%TZ) cards=${#UUID[@]} Ks=${KS[*]} d=$D"

start_node() { # p log [extra...]
  local p=$1 log=$2; shift 2
  local dev=(); [ ${#UUID[@]} = 0 ] || dev=(--device "${UUID[$p]}")
  "${PARREG[@]}" node --participant "$p" --participants "$K" --port $((26000 + p)) --admin-port $((36000 + p)) \
    --seed-nodes "$SEEDS" --data "$DATA/part-$p.prb" --bias --learning-rate 1/4 $BATCH_ARG \
    --journal "$R/node-$p" --steps "$S" --backend "${BACKEND:-cuda}" "${dev[@]}" --exit-when-done "$@" \
    >> "$log" 2>&1 &
  PIDS[$p]=$!
}

parreg_run() { # run [crash]
  local run=$1 crash=${2:-}
  R=$W/$JOB-$K-$run
  rm -rf "${R:?}"; mkdir -p "$R"
  local t0 c0 p; t0=$(now); c0=$(date +%T.%3N)
  PIDS=()
  for ((p = 0; p < K; p++)); do start_node "$p" "$R/n$p.log"; done
  local v=-1 s=
  if [ -n "$crash" ]; then
    v=$(( (K * 7 + ${#JOB}) % K ))   # "random", but the same victim for the same job and K
    local third=$((S / 3))
    until s=$(committed $((36000 + v))) && [ "${s:-0}" -ge "$third" ]; do
      kill -0 "${PIDS[$v]}" 2>/dev/null || break; sleep 0.01; done
    if ! kill -9 "${PIDS[$v]}" 2>/dev/null; then s="none: it had finished"; fi
    wait "${PIDS[$v]}" 2>/dev/null
    echo "--- kill -9 at step $s, restart" >> "$R/n$v.log"
    RESTART_AT=$(date +%T.%3N)
    start_node "$v" "$R/n$v.log"
  fi
  local bad=0
  for ((p = 0; p < K; p++)); do wait "${PIDS[$p]}" || bad=$((bad + 1)); done
  local t1; t1=$(now)
  if [ $bad -ne 0 ]; then say "$JOB K=$K parreg $run: FAILED ($bad nodes exited non-zero), logs in $R"; tail -n 5 "$R"/n*.log; return 1; fi
  local first last bits nb
  first=$(grep -m1 "first step since start committed" "$R/n0.log" | cut -c1-12)
  last=$(grep -m1 "target step" "$R/n0.log" | cut -c1-12)
  bits=$(grep -h "target step" "$R"/n*.log | sed 's/.*w=\(\[[^]]*\]\).*/\1/' | sort -u)
  nb=$(echo "$bits" | wc -l)
  eval "BITS_$run=\$(echo \"\$bits\" | md5sum | cut -c1-12)"
  local rate; rate=$(calc "($S - 1) * 1000 / ($(ms "$last") - $(ms "$first"))" 1)
  say "$JOB K=$K parreg $run: time_to_solution_s=$(calc "$t1 - $t0") start_to_first_step_s=$(calc "($(ms "$first") - $(ms "$c0")) / 1000") steps_per_s=$rate nodes_agree=$([ "$nb" = 1 ] && echo yes || echo NO) bits=$(eval echo \$BITS_$run)${crash:+ (node $v killed at step $s)}"
  if [ -n "$crash" ]; then
    local back; back=$(sed -n '/--- kill -9/,$p' "$R/n$v.log" | grep -m1 "first step since start committed" | cut -c1-12)
    [ -n "$back" ] && say "$JOB K=$K parreg $run: restart -> first new step $(calc "($(ms "$back") - $(ms "$RESTART_AT")) / 1000") s"
  fi
}

for K in "${KS[@]}"; do
  SEEDS=$(for ((p = 0; p < K; p++)); do printf '127.0.0.1:%d,' $((26000 + p)); done); SEEDS=${SEEDS%,}
  for JOB in ${JOBS:-weak strong mini}; do
    case $JOB in
      weak) ROWS=$((${ROWS_PER_CARD:-10000000} * K)); S=$STEPS; BATCH_ARG=; DDP_BATCH=0; DATA=$W/data-weak-$K ;;
      strong) ROWS=${STRONG_ROWS:-40000000}; S=$STEPS; BATCH_ARG=; DDP_BATCH=0; DATA=$W/data-strong-$K ;;
      mini) ROWS=${STRONG_ROWS:-40000000}; S=${MINI_STEPS:-2000}; BATCH_ARG="--batch-size ${MINI_BATCH:-100000}"
        DDP_BATCH=${MINI_BATCH:-100000}; DATA=$W/data-strong-$K ;;
      *) say "unknown job $JOB"; continue ;;
    esac
    per=$(( (ROWS + K - 1) / K ))
    if [ $((per * D)) -gt $((2147483647 - 8)) ]; then
      say "$JOB K=$K: not run: $per rows x d=$D per partition exceed one partition's limit of 2^31 - 8 values"
      continue
    fi
    if [ ! -f "$DATA/part-$((K - 1)).prb" ]; then
      g0=$(now)
      "${PARREG[@]}" generate --rows "$ROWS" --features "$D" --partitions "$K" --noise 0.01 --seed 7 --out "$DATA" --format bin --bias > "$W/gen-$JOB-$K.log" 2>&1 \
        || { say "$JOB K=$K: generate failed"; tail -3 "$W/gen-$JOB-$K.log"; continue; }
      say "$JOB K=$K: generated $ROWS rows ($(du -sh "$DATA" | cut -f1)) in $(calc "$(now) - $g0") s"
    fi
    cat "$DATA"/part-*.prb > /dev/null   # page cache warm for both sides
    unset BITS_plain BITS_crash
    parreg_run plain
    if [ "${CRASH:-1}" = 1 ]; then
      parreg_run crash crash
      if [ -n "${BITS_plain:-}" ] && [ "${BITS_plain:-}" = "${BITS_crash:-x}" ]; then say "$JOB K=$K: kill -9 + restart bits=same"; else say "$JOB K=$K: kill -9 + restart bits=DIFFER"; fi
    fi
    [ "${DDP:-1}" = 1 ] || continue
    t0=$(now)
    torchrun --standalone --nproc_per_node="$K" "$HERE/ddp_bench.py" --data "$DATA" --steps "$S" --lr 0.25 --batch-size "$DDP_BATCH" \
      --out "$W/ddp-model-$JOB-$K.pt" > "$W/ddp-$JOB-$K.log" 2>&1
    say "$JOB K=$K ddp: $(grep '^ddp' "$W/ddp-$JOB-$K.log") wall_s=$(calc "$(now) - $t0")"
    grep -q '^ddp' "$W/ddp-$JOB-$K.log" || tail -n 5 "$W/ddp-$JOB-$K.log" | tee -a "$OUTF"
  done
  rm -rf "$W"/data-*-"$K"   # disk: the next K needs its own files
done
