#!/usr/bin/env bash
# issue 15, ninth session, call 6: after call 5 (ncu per instruction, widet_o_1024_3x2: its chain
# warps wait for copies 43 % of their time, and inside the fully unrolled chain (2,562
# instructions, 41 KB) 18 % for instruction fetch): the chain as a rolled loop (r4, r8), on widet's
# block (1xW at 768 / 896 / 1,024) and on clusters of 2, beside the ladder's plans in one
# invocation; parity of the rolled shapes
export DIST_DIR=/tmp/parreg-dist-widec
B=.kb-widec/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; } > $R/s9c6-card.txt 2>&1
date -u +%T > $R/s9c6-times.txt
timeout 200 $B bench --d 1024,768,896,1280,1536,2048 --plan-list widec1x1024_3x2r4,widec1x1024_3x2r8,widec1x768_2x4r4,widec1x896_3x2r4,widec2x640_3x2r4,widec2x768_2x4r4,widec2x1024_3x2,widec2x1024_3x2r4 --verify --reps 20 > $R/s9c6-bench.txt 2>&1
date -u +%T >> $R/s9c6-times.txt
timeout 120 $B tests 'parreg.device.cuda.CudaParityTest#widecRolledPlansMatchTheReference(int,int,java.lang.String)' > $R/s9c6-parity.txt 2>&1
date -u +%T >> $R/s9c6-times.txt
grep -v "^#" $R/s9c6-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception" $R/s9c6-bench.txt | head -6; grep -cE "^PASS" $R/s9c6-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s9c6-parity.txt | head -10; cat $R/s9c6-times.txt
