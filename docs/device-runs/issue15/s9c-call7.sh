#!/usr/bin/env bash
# issue 15, ninth session, call 7: the rolled chain (call 6: 3.40 TB/s at 1,024 where the unrolled
# widet 3 x 2 read 3.14; widec 2 x 1,024 2.36 where it read 2.10) in the product's kernels
# widet_o_1024_3x2 (the ladder's at 897..1,024) and widec_o_2x1024_3x2: the ladder's plans against
# widet 2 x 3 (unrolled) at 1,000 / 1,024 and widec 2 x 1,024 against deepxb at 1,950 / 2,048 in
# one invocation; parity of the two kernels
export DIST_DIR=/tmp/parreg-dist-widec
B=.kb-widec/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; } > $R/s9c7-card.txt 2>&1
date -u +%T > $R/s9c7-times.txt
timeout 120 $B bench --d 1024,1000,2048,1950 --plan-list widet2x3,widec2x1024_3x2 --verify --reps 20 > $R/s9c7-bench.txt 2>&1
date -u +%T >> $R/s9c7-times.txt
timeout 80 $B tests 'parreg.device.cuda.CudaParityTest#rolledChainPlansMatchTheReference(int,int,java.lang.String)' > $R/s9c7-parity.txt 2>&1
date -u +%T >> $R/s9c7-times.txt
grep -v "^#" $R/s9c7-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception" $R/s9c7-bench.txt | head -6; grep -cE "^PASS" $R/s9c7-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s9c7-parity.txt | head -10; cat $R/s9c7-times.txt
