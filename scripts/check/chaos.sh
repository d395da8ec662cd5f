#!/usr/bin/env bash
# Chaos soak (RELIABILITY.md): N nodes on generated binary data (bias, five batches per epoch)
# through K random faults at random moments: kill -9 of one node, of several, of all at once (each
# followed by a restart), SIGSTOP of one node for 3.5-5 s (longer than the failure detector's 3 s,
# shorter than the 10 s downing) then SIGCONT. Checks that the final bits equal the uninterrupted
# run (computed by the reference simulation in the driving JVM) and that every journal holds every
# step exactly once. The driver is the JUnit test parreg.cli.ChaosSoakTest (CI runs it with 3 nodes
# and 10 faults); this script runs it with other figures and prints its fault log and summary.
# usage: scripts/check/chaos.sh [NODES=3] [FAULTS=100] [SEED]   (GRACEFUL=1: a fifth kind of fault, a
# graceful stop of one node (SIGTERM: its H2 journal closed cleanly) and its restart; LONG_STOPS=1:
# another, SIGSTOP of one node past the downing limit (until a peer logs that it downs it, then
# 1-3 s more), after which its peers have quarantined it and it must rejoin with a new
# incarnation by itself;
# DOWN_AFTER=3s sets the nodes' downing limit, parreg.downing.down-unreachable-after (default 10s),
# to keep those pauses short)
# Nodes are real processes on 127.0.0.1 with free ports, journals in a temporary directory; the
# test kills every node it started when it ends, passed or failed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
N=${1:-3}; K=${2:-100}; SEED=${3:-}
props=(-Dparreg.chaos.nodes="$N" -Dparreg.chaos.faults="$K")
[ -n "$SEED" ] && props+=(-Dparreg.chaos.seed="$SEED")
[ -n "${GRACEFUL:-}" ] && props+=(-Dparreg.chaos.graceful=true)
[ -n "${LONG_STOPS:-}" ] && props+=(-Dparreg.chaos.long-stops=true)
[ -n "${DOWN_AFTER:-}" ] && props+=(-Dparreg.chaos.down-after="$DOWN_AFTER")
rc=0
mvn -q -B test -Dtest=ChaosSoakTest -Dsurefire.failIfNoSpecifiedTests=false "${props[@]}" || rc=$?
cat target/surefire-reports/parreg.cli.ChaosSoakTest-output.txt 2>/dev/null | grep -E '^(chaos|fault)' || true
grep -h 'Tests run' target/surefire-reports/parreg.cli.ChaosSoakTest.txt 2>/dev/null || true
exit $rc
