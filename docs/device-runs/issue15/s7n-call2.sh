#!/usr/bin/env bash
# issue 15, seventh session (branch kernels-narrow7), call 2: the product build (narrowp-17_u4_w16
# at 17, narrowp-20_u2p_w12 at 18..20, narrowp-24_u2p_w8 at 21..24) as each bench invocation's
# default (first) row, against the plans it replaced (forced, after it: the other order than call
# 1) and the comparison shapes added after call 1; parity of the ladder's new plans
export DIST_DIR=/tmp/parreg-dist-narrow7
B=.kb-narrow7/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; nvidia-smi -q -d CLOCK; } > $R/s7n2-card.txt 2>&1
date -u +%T > $R/s7n2-times.txt
b() { timeout ${3:-40} $B bench --d $1 ${2:+--plan-list $2} --verify --reps 20; }
{
b 17 split2x9_u8t4,narrowp17_u2p_w12,narrowp17_u1p_w16 30
b 18 split2x9_u8t4,narrowp20_u1p_w16 30
b 19 specp24_6x3m3 25
b 20 specp24_6x3m3,narrowp20_u1p_w16 30
b 21 specp24_6x3m3,narrowp24_u1p_w16,narrowp24_u2p_w12 30
b 24 specp24_6x3m3,narrowp24_u2p_w12,narrowp24_u1p_w16 30
b 32 narrowp32_u1p_w12 25
} > $R/s7n2-bench.txt 2>&1
date -u +%T >> $R/s7n2-times.txt
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv >> $R/s7n2-card.txt 2>&1
timeout 60 $B tests 'parreg.device.cuda.CudaParityTest#narrow7LadderMatchesTheReference(int,int,java.lang.String)' > $R/s7n2-parity.txt 2>&1
date -u +%T >> $R/s7n2-times.txt
grep -v "^#" $R/s7n2-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception" $R/s7n2-bench.txt | head -5; grep -cE "^PASS" $R/s7n2-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s7n2-parity.txt | head -20; cat $R/s7n2-times.txt
