#!/usr/bin/env bash
# Step-rate cost of `node --validation` on a seed-like run: two nodes, generated
# data (one shared CSV file read with --split, 2,000 rows of d=4 with bias), side by side without
# and with a hold-out file (1,000 rows), ROUNDS rounds alternating, each through
# scripts/bench/two-nodes.sh (steps/s between "roster complete" and "target step" of node 0).
# usage: scripts/bench/validation.sh WORKDIR [STEPS (default 3000)] [ROUNDS (default 4)] [extra node args for
#        the runs with validation, e.g. --validation-every 10]
# Env: JAR (default target/parreg.jar of this checkout), PARREG (the command that runs parreg instead, as
#      for scripts/bench/two-nodes.sh), VAL_ROWS (default 1000), as scripts/bench/two-nodes.sh
#      (PORT0 default 27460 here, off the other benchmarks' ports).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
D=$1; S=${2:-3000}; R=${3:-4}; shift $(( $# < 3 ? $# : 3 ))
JAR=${JAR:-$HERE/target/parreg.jar}
mkdir -p "$D"
[ -e "$D/train" ] || ${PARREG:-java -jar $JAR} generate --rows 2000 --features 4 --partitions 1 --seed 3 --bias --out "$D/train" >/dev/null
[ -e "$D/val" ] || ${PARREG:-java -jar $JAR} generate --rows "${VAL_ROWS:-1000}" --features 4 --partitions 1 --seed 4 --bias --out "$D/val" >/dev/null
# On a loaded machine Pekko's logger may take longer than its default 5 s to start.
echo 'pekko.logger-startup-timeout = 60s' > "$D/slow-start.conf"
common=(--data "$D/train/part-0.csv" --split --bias --learning-rate 1/8 --config "$D/slow-start.conf")
export PORT0=${PORT0:-27460}
rate() { grep -o '=> [0-9]* steps/s' | grep -o '[0-9]*'; }
# CPU (user + sys) of both node processes per step, whole process life included, in microseconds
cpu() { awk -v s="$S" '{t += $1 + $3} END {printf "%d", t * 1e6 / s}' "$1/time0" "$1/time1"; }
off=(); on=(); coff=(); con=()
for r in $(seq 1 "$R"); do
  a=$(JAR=$JAR "$HERE/scripts/bench/two-nodes.sh" "$D/off" "$S" "${common[@]}" | rate); ca=$(cpu "$D/off")
  b=$(JAR=$JAR "$HERE/scripts/bench/two-nodes.sh" "$D/on" "$S" "${common[@]}" --validation "$D/val/part-0.csv" "$@" | rate)
  cb=$(cpu "$D/on")
  grep -q "first hold-out evaluation" "$D/on/n0.log" || { echo "round $r: the run with --validation evaluated nothing"; exit 1; }
  echo "round $r: without $a steps/s ($ca us CPU/step), with --validation $b steps/s ($cb us CPU/step) (load $(cut -d' ' -f1 /proc/loadavg))"
  off+=("$a"); on+=("$b"); coff+=("$ca"); con+=("$cb")
done
# shellcheck source=scripts/bench/lib.sh
. "$HERE/scripts/bench/lib.sh"
mo=$(median "${off[@]}"); mn=$(median "${on[@]}")
echo "median without $mo steps/s, with --validation $mn steps/s: $(awk "BEGIN { printf \"%+.1f\", ($mn - $mo) * 100 / $mo }") %"
co=$(median "${coff[@]}"); cn=$(median "${con[@]}")
echo "median CPU per step (both nodes) without $co us, with --validation $cn us: $(awk "BEGIN { printf \"%+.1f\", ($cn - $co) * 100 / $co }") %"
