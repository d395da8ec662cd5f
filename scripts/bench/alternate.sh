#!/usr/bin/env bash
# Seed-run steps/s of several builds or settings side by side: each round runs every variant once,
# in turn, through scripts/bench/two-nodes.sh (two nodes, fresh H2 journals, steps/s between node
# 0's "roster complete" and "target step"), so the machine's load falls on all alike; then prints
# each variant's median and its CPU per step (user + sys of both node processes, start-up included).
# usage: scripts/bench/alternate.sh WORKDIR ROUNDS STEPS 'NAME|COMMAND|NODE ARGS' ...
#   COMMAND runs parreg (what scripts/bench/two-nodes.sh takes as PARREG), e.g.
#     'c1|bin/parreg|'   'c2|env PARREG_JAVA_OPTS=-XX:+UseSerialGC bin/parreg|'
#     'old|java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -cp /tmp/old/parreg.jar:lib/* parreg.cli.Main|'
#     'sync|bin/parreg|--sync-commit'
# Env: PORT0 (default 27480), NODE_TIMEOUT (default 300 s).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
D=$1; R=$2; S=$3; shift 3
mkdir -p "$D"
declare -A rates cpus
for r in $(seq 1 "$R"); do
  for v in "$@"; do
    IFS='|' read -r name cmd args <<< "$v"
    # shellcheck disable=SC2086 # the node arguments are words
    out=$(PARREG="$cmd" PORT0=${PORT0:-27480} NODE_TIMEOUT=${NODE_TIMEOUT:-300} \
      "$HERE/scripts/bench/two-nodes.sh" "$D/$name" "$S" $args 2>&1 || true)
    rate=$(grep -o '=> [0-9]* steps/s' <<< "$out" | grep -o '[0-9]*' || true)
    cpu=$(awk -v s="$S" '{t += $1 + $3} END {printf "%d", t * 1e6 / s}' "$D/$name/time0" "$D/$name/time1" 2>/dev/null || echo "?")
    echo "round $r $name: ${rate:-FAILED} steps/s, ${cpu} us CPU per step (both nodes) (load $(cut -d' ' -f1 /proc/loadavg))"
    [ -n "$rate" ] && rates[$name]+="$rate " && cpus[$name]+="$cpu "
  done
done
# shellcheck source=scripts/bench/lib.sh
. "$HERE/scripts/bench/lib.sh"
for v in "$@"; do
  IFS='|' read -r name _ <<< "$v"
  # shellcheck disable=SC2086
  [ -n "${rates[$name]:-}" ] && echo "$name: median $(median ${rates[$name]}) steps/s, $(median ${cpus[$name]}) us CPU per step over $R rounds"
done
