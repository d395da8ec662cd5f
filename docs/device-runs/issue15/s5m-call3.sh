#!/usr/bin/env bash
# issue 15, fifth session, call 3 (prepared, NOT run: the session's device budget was spent): the
# final product build (spec-48_m6 at 43..48, spec-64_m4 at 49..64, spec-104_c7 at 65..104) as the
# default rows, the plans before at the same d, the untimed 128 shapes and the 43 threshold;
# parity of the ladder's new cases (product module). Bundle: scripts/device-bundle.sh
# /work/main/.kb-mid5 from kernels-mid5's head, lib/ cut as in s5m-call1; carry [".kb-mid5"]; ~150 s.
# (built at a529397 and left ready in /work/main/.kb-mid5, with this script: bash .kb-mid5/s5m-call3.sh)
export DIST_DIR=/tmp/parreg-dist-mid5
B=.kb-mid5/scripts/run-gpu.sh
R=$OUT; nvidia-smi -L > $R/s5m3-card.txt 2>&1
date +%T > $R/s5m3-times.txt
b() { timeout ${3:-40} $B bench --d $1 ${2:+--plan-list $2} --verify --reps 20; }
{
b 17,24,32
b 40 spec48_m6
b 43 split4x12_u2t2p
b 48 split4x12_u2t2p
b 64 spec64
b 100 spec104
b 128 spec128_m4,spec128_m8,spec128_c7
} > $R/s5m3-bench.txt 2>&1
date +%T >> $R/s5m3-times.txt
timeout 120 $B tests 'parreg.device.cuda.CudaParityTest#midPlans2MatchTheReference(int,int,java.lang.String)' > $R/s5m3-parity.txt 2>&1
date +%T >> $R/s5m3-times.txt
grep -v "^#" $R/s5m3-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -cE "^PASS" $R/s5m3-parity.txt; grep -E "^FAIL|tests (successful|failed)" $R/s5m3-parity.txt | head; cat $R/s5m3-times.txt
