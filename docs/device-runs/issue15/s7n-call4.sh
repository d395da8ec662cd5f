#!/usr/bin/env bash
# issue 15, eighth session, call 4 (branch kernels-narrow8, bundle .kb-narrow8): the product build
# whose ladder runs narrowp-32_u1p_w12 at 25..32 (split-2x16_u2t4p before), each default row first
# and split forced after it at d = 25, 28, 32, the reverse order once at 32 (--default-last); the
# comparison shapes 28_u1_w16, 32_u1_w16 at 25..32 and 40_u1_w12, 48_u1_w10, 48_u1p_w8 at 40 / 48
# (against split-4x12_u2t2p / spec-48_m6); parity narrow8LadderMatchesTheReference. Guards keep the
# whole under 240 s of command; the 40 / 48 rows run only if time is left after the parity.
export DIST_DIR=/tmp/parreg-dist-narrow8
B=.kb-narrow8/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; nvidia-smi -q -d CLOCK; } > $R/s7n4-card.txt 2>&1
T0=$(date +%s); date -u +%T > $R/s7n4-times.txt
b() { timeout ${3:-25} $B bench --d $1 ${2:+--plan-list $2} $4 --verify --reps 20; }
left() { echo $(( 230 - ($(date +%s) - T0) )); }
{
b 32 split2x16_u2t4p,narrowp32_u1_w16 80
b 25 split2x16_u2t4p,narrowp28_u1_w16 25
b 28 split2x16_u2t4p,narrowp28_u1_w16,narrowp32_u1_w16 25
b 32 split2x16_u2t4p 25 --default-last
} > $R/s7n4-bench.txt 2>&1
date -u +%T >> $R/s7n4-times.txt
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv >> $R/s7n4-card.txt 2>&1
timeout 55 $B tests 'parreg.device.cuda.CudaParityTest#narrow8LadderMatchesTheReference(int,int,java.lang.String)' > $R/s7n4-parity.txt 2>&1
date -u +%T >> $R/s7n4-times.txt
{
L=$(left); [ $L -gt 12 ] && b 40 narrowp40_u1_w12,narrowp48_u1_w10 $(( L < 25 ? L : 25 ))
L=$(left); [ $L -gt 12 ] && b 48 narrowp48_u1_w10,narrowp48_u1p_w8,split4x12_u2t2p $(( L < 25 ? L : 25 ))
} >> $R/s7n4-bench.txt 2>&1
date -u +%T >> $R/s7n4-times.txt
grep -v "^#" $R/s7n4-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception" $R/s7n4-bench.txt | head -5; grep -cE "^PASS" $R/s7n4-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s7n4-parity.txt | head -20; cat $R/s7n4-times.txt
