#!/usr/bin/env bash
# issue 15, tenth session, call 1: d = 1,024 (the ladder's widet-1024_3x2, rolled chain, 3.40-3.50
# TB/s) against the comparison variants of WIDETV_KERNEL / WIDETP_KERNEL in one invocation: the
# chain rolled at RC 2; 4 accumulating warps; other shapes rolled (2 x 3, 2 x 2, 3 x 1, 4 x 1); the
# blocks' start staggered (600 / 1,500 ns steps); widel rolled (7 slots); chain warps on schedulers
# of their own (p); parity of every variant; the SASS of the ladder's kernel (its chain loop)
export DIST_DIR=/tmp/parreg-dist-s10
B=.kb-s10/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; } > $R/s10c1-card.txt 2>&1
date -u +%T > $R/s10c1-times.txt
P=widet3x2r2,widet3x2a4,widet2x3r4,widet2x2r4,widet3x1r4,widet4x1r4,widet3x2s600,widet3x2s1500,widel3x2r4,widel2x3r4,widet3x2a4p,widet2x3a4p,widet3x2p
timeout 300 $B bench --d 1024,1000 --plan-list $P --verify --reps 20 > $R/s10c1-bench.txt 2>&1
date -u +%T >> $R/s10c1-times.txt
timeout 200 $B tests 'parreg.device.cuda.CudaParityTest#widetVariantPlansMatchTheReference(int,int,java.lang.String)' > $R/s10c1-parity.txt 2>&1
date -u +%T >> $R/s10c1-times.txt
cuobjdump -sass -fun widet_o_1024_3x2 device/src/main/resources/parreg/kernels/local_sums_sm90.sm_90.cubin 2>&1 | xz -9 > $R/s10c1-sass-widet_o_1024_3x2.txt.xz
grep -v "^#" $R/s10c1-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception" $R/s10c1-bench.txt | head -6; grep -cE "^PASS" $R/s10c1-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s10c1-parity.txt | head -10; cat $R/s10c1-times.txt
