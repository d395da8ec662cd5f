#!/usr/bin/env bash
# issue 15, eighth session, call 5 (prepared, not run in the session: one device call was its
# share): the product build of branch kernels-narrow8-48 (narrowp-48_u1p_w8 at 33..48 where
# spec-48_m6 does not run; narrowp-32_u1p_w12 at 25..32 as on kernels-narrow8), each default row
# first and split-4x12_u2t2p (33..42's plan before) forced after it at d = 33, 36, 40, 42, the
# reverse order at 40 (--default-last); 40_u1p_w8 and 48_u1_w10 at 40; at 48 spec-48_m6 (the
# ladder's) against the new kernel; narrowp-28_u1_w16 against the ladder's 32_u1p_w12 at 26 / 28
# in both orders (s7n4: +3 / +8 %, after the default); parity narrow8wLadderMatchesTheReference.
# Bundle: /tmp/kb-make.sh on a worktree of kernels-narrow8-48, carried as .kb-narrow8-48 (copy this
# script into .kb-narrow8-48/call/). About 110 s of command on a cold machine; guards (60 + 8 x 17 + 40 s) keep it under 240 s.
export DIST_DIR=/tmp/parreg-dist-narrow8-48
B=.kb-narrow8-48/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; nvidia-smi -q -d CLOCK; } > $R/s7n5-card.txt 2>&1
date -u +%T > $R/s7n5-times.txt
b() { timeout ${3:-17} $B bench --d $1 ${2:+--plan-list $2} $4 --verify --reps 20; }
{
b 40 split4x12_u2t2p,narrowp40_u1p_w8,narrowp48_u1_w10 60
b 33 split4x12_u2t2p
b 36 split4x12_u2t2p
b 42 split4x12_u2t2p
b 40 split4x12_u2t2p 17 --default-last
b 48 narrowp48_u1p_w8,split4x12_u2t2p
b 28 narrowp28_u1_w16
b 28 narrowp28_u1_w16 17 --default-last
b 26 narrowp28_u1_w16
} > $R/s7n5-bench.txt 2>&1
date -u +%T >> $R/s7n5-times.txt
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv >> $R/s7n5-card.txt 2>&1
timeout 40 $B tests 'parreg.device.cuda.CudaParityTest#narrow8wLadderMatchesTheReference(int,int,java.lang.String)' > $R/s7n5-parity.txt 2>&1
date -u +%T >> $R/s7n5-times.txt
grep -v "^#" $R/s7n5-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception" $R/s7n5-bench.txt | head -5; grep -cE "^PASS" $R/s7n5-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s7n5-parity.txt | head -20; cat $R/s7n5-times.txt
