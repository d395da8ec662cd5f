#!/usr/bin/env bash
# issue 15, seventh session (branch kernels-wideg), call 1: lane groups of 4 (widetq / widelq, the
# quartet layout) against the defaults (widet-1024_3x2 at 1,024, deepxb at 1,500 / 2,048) in one
# call, every row --verify; parity of the new plans (wideqPlansMatchTheReference)
export DIST_DIR=/tmp/parreg-dist-wideg
B=.kb-wideg/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; } > $R/s7q1-card.txt 2>&1
date -u +%T > $R/s7q1-times.txt
b() { timeout $3 $B bench --d $1 --plan-list $2 --verify --reps 20; date -u +%T >> $R/s7q1-times.txt; }
{
b 1024 widetq1x8,widetq2x4,widetq3x2,widetq3x3,widelq2x4,widetq4x2 75
b 2048 widetq1x4,widetq2x2,widetq2x3,widelq1x4,widelq2x3,widelq1x6 75
b 1500 widetq2x2,widetq1x4,widetq2x3 40
} > $R/s7q1-bench.txt 2>&1
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv >> $R/s7q1-card.txt 2>&1
timeout 60 $B tests 'parreg.device.cuda.CudaParityTest#wideqPlansMatchTheReference(int,int,java.lang.String)' > $R/s7q1-parity.txt 2>&1
date -u +%T >> $R/s7q1-times.txt
grep -v "^#" $R/s7q1-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception|skipped" $R/s7q1-bench.txt | head -8; grep -cE "^PASS" $R/s7q1-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s7q1-parity.txt | head -20; cat $R/s7q1-times.txt
