#!/usr/bin/env bash
# issue 15, tenth session, call 2: after call 1 (at 1,024 the blocks' start staggered 3.51-3.53 and
# 2 x 2 3.49 where the ladder's 3 x 2 read 3.43-3.47; 4 accumulating warps 3.08-3.13: the
# accumulation is on the slots' critical path), the group tree as a reduce-scatter (now in every
# widet / widec kernel whose accumulators split in eights: 28 double shuffles a lane at 1,024
# where the butterfly took 96) against the butterfly (g) at 1,024 / 768 / 512, 16 accumulating
# warps, and the stagger with 2 x 2 and RC 2; parity of every variant
export DIST_DIR=/tmp/parreg-dist-s10
B=.kb-s10/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; } > $R/s10c2-card.txt 2>&1
date -u +%T > $R/s10c2-times.txt
P=widet3x2g,widet3x2s600,widet2x2r4,widet2x2s600,widet2x2r2s600,widet3x2r2s600,widet3x2a16,widet2x2a16,widet1x4r4,widet3x2r2
timeout 240 $B bench --d 1024,1000 --plan-list $P --verify --reps 20 > $R/s10c2-bench.txt 2>&1
date -u +%T >> $R/s10c2-times.txt
timeout 90 $B bench --d 768,512 --plan-list widet2x4g --verify --reps 20 >> $R/s10c2-bench.txt 2>&1
date -u +%T >> $R/s10c2-times.txt
timeout 200 $B tests 'parreg.device.cuda.CudaParityTest#widetVariantPlansMatchTheReference(int,int,java.lang.String)' > $R/s10c2-parity.txt 2>&1
date -u +%T >> $R/s10c2-times.txt
grep -v "^#" $R/s10c2-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception|skipped" $R/s10c2-bench.txt | head -6; grep -cE "^PASS" $R/s10c2-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s10c2-parity.txt | head -10; cat $R/s10c2-times.txt
