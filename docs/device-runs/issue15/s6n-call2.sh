#!/usr/bin/env bash
# issue 15, sixth session (branch kernels-narrow6), call 2: the product build (specp-24_6x3m3 at
# 19..24, spec-100_c7 at 65..100) as each bench invocation's default row, against the plan it
# replaced (forced) and the comparison shapes added after call 1; parity of the ladder's new plans
export DIST_DIR=/tmp/parreg-dist-narrow6
B=.kb-narrow6/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; nvidia-smi -q -d CLOCK; } > $R/s6n2-card.txt 2>&1
date +%T > $R/s6n2-times.txt
b() { timeout ${3:-40} $B bench --d $1 ${2:+--plan-list $2} --verify --reps 20; }
{
b 24 split2x12_u2t4p,specp24_6x3m4,specp24_7x3m3,specp24_7x3m4 50
b 17 specp24_6x3m3,specp24_6x3m4,specp24_7x3m3,specp24_7x3m4,specp20_7x5m4,specp20_6x5m4 60
b 19 split2x12_u2t4p,specp24_7x3m3 30
b 21 split2x12_u2t4p,specp24_7x3m3 30
b 100 spec104_c7,spec104 40
b 65 spec104_c7 30
b 24 split2x12_u2t4p 30
b 100 spec104_c7 30
} > $R/s6n2-bench.txt 2>&1
date +%T >> $R/s6n2-times.txt
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv >> $R/s6n2-card.txt 2>&1
timeout 100 $B tests 'parreg.device.cuda.CudaParityTest#narrow6LadderMatchesTheReference(int,int,java.lang.String)' > $R/s6n2-parity.txt 2>&1
date +%T >> $R/s6n2-times.txt
grep -v "^#" $R/s6n2-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception" $R/s6n2-bench.txt | head -5; grep -cE "^PASS" $R/s6n2-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s6n2-parity.txt | head -20; cat $R/s6n2-times.txt
