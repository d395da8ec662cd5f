#!/usr/bin/env bash
# Cost of the progress line and the Prometheus metrics on the seed run (BENCHMARKS.md, "Metrics").
# usage: scripts/bench/metrics.sh BASE_JAR [ROUNDS] [STEPS]   (env PORT0, default 29400; NODE_TIMEOUT, default 300 s)
#   BASE_JAR: a jar built without the metrics (e.g. of the commit before them)
# Each round runs scripts/bench/two-nodes.sh three times, in turn (so the machine's load hits all
# alike): "base" = BASE_JAR with the progress line off; "off" = this checkout's jar, progress line
# off and /metrics never scraped; "on" = this checkout's jar with the default progress line (5 s)
# and both nodes' /metrics scraped every second. Prints each run's steps/s, then each variant's median.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BASE=$1; ROUNDS=${2:-4}; STEPS=${3:-10000}
P0=${PORT0:-29400}
W=$(mktemp -d)
# all variants: a logger start-up timeout that a heavily loaded machine does not exceed
echo 'pekko.logger-startup-timeout = 60s' > "$W/common.conf"
printf 'pekko.logger-startup-timeout = 60s\nparreg.progress-interval = 0\n' > "$W/quiet.conf"
run() { # name jar [args]
  local name=$1 jar=$2; shift 2
  JAR=$jar PORT0=$P0 NODE_TIMEOUT=${NODE_TIMEOUT:-300} "$HERE/scripts/bench/two-nodes.sh" "$W/$name" "$STEPS" "$@" | tee -a "$W/$name.txt"
}
for r in $(seq 1 "$ROUNDS"); do
  echo "round $r"
  echo -n "base: "; run base "$BASE" --config "$W/quiet.conf"
  echo -n "off:  "; run off "$HERE/target/parreg.jar" --config "$W/quiet.conf"
  ( while sleep 1; do
      for a in $((P0 + 10000)) $((P0 + 10001)); do curl -s -o /dev/null -w '%{http_code}\n' --max-time 1 "http://127.0.0.1:$a/metrics" >> "$W/scrapes" || true; done
    done ) &
  scraper=$!
  echo -n "on:   "; run on "$HERE/target/parreg.jar" --config "$W/common.conf"
  kill "$scraper"; wait "$scraper" 2>/dev/null || true
done
for v in base off on; do
  echo "$v: median $(grep -o '[0-9]* steps/s' "$W/$v.txt" | awk '{print $1}' | sort -n | awk '{a[NR]=$1} END {print (NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2)}') steps/s over $ROUNDS runs"
done
echo "scrapes answered 200 during the \"on\" runs: $(grep -c '^200' "$W/scrapes" || true)"
rm -rf "$W"
