#!/usr/bin/env bash
# issue 15, sixth session (branch kernels-narrow6), call 1: specp (spec's block on the plain slice
# layout) at d = 17, 20, 24, 32, spec-24 at two blocks an SM, spec at slice width 100, each against
# the ladder's default (every bench invocation's first rows); parity of every new shape
export DIST_DIR=/tmp/parreg-dist-narrow6
B=.kb-narrow6/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; nvidia-smi -q -d CLOCK; } > $R/s6n1-card.txt 2>&1
date +%T > $R/s6n1-times.txt
b() { timeout ${3:-40} $B bench --d $1 ${2:+--plan-list $2} --verify --reps 20; }
{
b 17 specp20_6x5m2,specp20_6x5m3,specp20_6x5m4,specp24_6x6m3,specp24_6x3m3 60
b 24 specp24_6x6m2,specp24_6x6m3,specp24_4x6m3,specp24_6x3m3,spec24,spec24_m6 60
b 100 spec100,spec100_c7,spec104 40
b 20 specp20_6x5m3,specp20_6x5m4 30
b 32 specp32_6x8m2 30
b 17 specp20_6x5m3,specp20_6x5m4 30
} > $R/s6n1-bench.txt 2>&1
date +%T >> $R/s6n1-times.txt
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv >> $R/s6n1-card.txt 2>&1
timeout 100 $B tests 'parreg.device.cuda.CudaParityTest#narrow6PlansMatchTheReference(int,int,java.lang.String)' > $R/s6n1-parity.txt 2>&1
date +%T >> $R/s6n1-times.txt
grep -v "^#" $R/s6n1-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "^# card|rror|xception" $R/s6n1-bench.txt | head -5; grep -cE "^PASS" $R/s6n1-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s6n1-parity.txt | head -20; cat $R/s6n1-times.txt
