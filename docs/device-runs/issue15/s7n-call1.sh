#!/usr/bin/env bash
# issue 15, seventh session (branch kernels-narrow7), call 1: narrowp (a warp per tile, 17..24
# accumulators in registers, weights by value; comparison module) at d = 17, 18, 20, 24 against the
# ladder's default (each bench invocation's first row); d = 17 again in the reverse order with the
# default forced last; parity of every narrowp shape
export DIST_DIR=/tmp/parreg-dist-narrow7
B=.kb-narrow7/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; nvidia-smi -q -d CLOCK; } > $R/s7n1-card.txt 2>&1
date -u +%T > $R/s7n1-times.txt
b() { timeout ${3:-40} $B bench --d $1 ${2:+--plan-list $2} --verify --reps 20; }
{
b 17 narrowp17_u4_w16,narrowp17_u2p_w16,narrowp17_u4_w12,narrowp17_u2p_w12,narrowp17_u8_w8,narrowp17_u4p_w8 50
b 18 narrowp18_u4_w12,narrowp18_u2p_w12,narrowp20_u4_w12,narrowp20_u2p_w12 40
b 20 narrowp20_u4_w12,narrowp20_u2p_w12,narrowp24_u4_w8,narrowp24_u2p_w8 40
b 24 narrowp24_u4_w8,narrowp24_u2p_w8 30
b 17 narrowp17_u4p_w8,narrowp17_u8_w8,narrowp17_u2p_w12,narrowp17_u4_w12,narrowp17_u2p_w16,narrowp17_u4_w16,split2x9_u8t4 50
} > $R/s7n1-bench.txt 2>&1
date -u +%T >> $R/s7n1-times.txt
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv >> $R/s7n1-card.txt 2>&1
timeout 60 $B tests 'parreg.device.cuda.CudaParityTest#narrow7PlansMatchTheReference(int,int,java.lang.String)' > $R/s7n1-parity.txt 2>&1
date -u +%T >> $R/s7n1-times.txt
grep -v "^#" $R/s7n1-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception" $R/s7n1-bench.txt | head -5; grep -cE "^PASS" $R/s7n1-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s7n1-parity.txt | head -20; cat $R/s7n1-times.txt
