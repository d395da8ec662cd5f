#!/usr/bin/env bash
# issue 15, seventh session, call 3 (not run in the session: its device share was spent): the product
# build of branch kernels-narrow7-24 (narrowp-24_u1p_w16 at 21..24, narrowp-17_u4_w16 at 17,
# narrowp-20_u2p_w12 at 18..20) as each invocation's default (first) row, against specp-24_6x3m3
# forced after it (call 2 had specp first: the other order); d = 17 / 18 against split-2x9_u8t4
# (rows call 2's guard cut); d = 32 once more; parity of the ladder. Bundle: /tmp/kb-make.sh on a
# worktree of kernels-narrow7-24, carried as .kb-narrow7 (copy this script into .kb-narrow7/call/).
# About 120 s of command on a warm machine; the first invocation's guard allows for a cold one.
export DIST_DIR=/tmp/parreg-dist-narrow7
B=.kb-narrow7/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; nvidia-smi -q -d CLOCK; } > $R/s7n3-card.txt 2>&1
date -u +%T > $R/s7n3-times.txt
b() { timeout ${3:-40} $B bench --d $1 ${2:+--plan-list $2} --verify --reps 20; }
{
b 24 specp24_6x3m3,narrowp24_u2p_w12 90
b 21 specp24_6x3m3 30
b 22 specp24_6x3m3 30
b 17 split2x9_u8t4,narrowp17_u1p_w16,narrowp17_u2p_w12 40
b 18 split2x9_u8t4 30
b 32 narrowp32_u1p_w12 30
b 24 specp24_6x3m3 30
} > $R/s7n3-bench.txt 2>&1
date -u +%T >> $R/s7n3-times.txt
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv >> $R/s7n3-card.txt 2>&1
timeout 70 $B tests 'parreg.device.cuda.CudaParityTest#narrow7LadderMatchesTheReference(int,int,java.lang.String)' > $R/s7n3-parity.txt 2>&1
date -u +%T >> $R/s7n3-times.txt
grep -v "^#" $R/s7n3-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception" $R/s7n3-bench.txt | head -5; grep -cE "^PASS" $R/s7n3-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s7n3-parity.txt | head -20; cat $R/s7n3-times.txt
