#!/usr/bin/env bash
# issue 15, seventh session, lead's follow-up, call 6: the product build of branch kernels-narrow9
# (narrowp-40_u1p_w8 at 33..40, narrowp-48_u1p_w8 at 41..42 and at 43..48 where spec-48_m6 does
# not run). The new default first and narrowp48_u1p_w8 (33..40's plan before) forced after it at
# d = 36 (cold: 60 s guard), 33, 38, 40; the reverse order (--default-last) at 36 and 40; parity
# narrow9LadderMatchesTheReference. Bundle: /tmp/kb-make.sh on /work/wt-narrow9, carried as
# .kb-narrow9 (this script in .kb-narrow9/call/). Guards 60 + 5 x 17 + 45 s keep it under 240 s.
export DIST_DIR=/tmp/parreg-dist-narrow9
B=.kb-narrow9/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; nvidia-smi -q -d CLOCK; } > $R/s7n6-card.txt 2>&1
date -u +%T > $R/s7n6-times.txt
b() { timeout ${3:-17} $B bench --d $1 ${2:+--plan-list $2} $4 --verify --reps 20; }
{
b 36 narrowp48_u1p_w8 60
b 33 narrowp48_u1p_w8
b 40 narrowp48_u1p_w8
b 36 narrowp48_u1p_w8 17 --default-last
b 40 narrowp48_u1p_w8 17 --default-last
b 38 narrowp48_u1p_w8
} > $R/s7n6-bench.txt 2>&1
date -u +%T >> $R/s7n6-times.txt
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv >> $R/s7n6-card.txt 2>&1
timeout 45 $B tests 'parreg.device.cuda.CudaParityTest#narrow9LadderMatchesTheReference(int,int,java.lang.String)' > $R/s7n6-parity.txt 2>&1
date -u +%T >> $R/s7n6-times.txt
grep -v "^#" $R/s7n6-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception" $R/s7n6-bench.txt | head -5; grep -cE "^PASS" $R/s7n6-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s7n6-parity.txt | head -20; cat $R/s7n6-times.txt
