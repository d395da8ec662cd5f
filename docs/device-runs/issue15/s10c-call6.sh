#!/usr/bin/env bash
# issue 15, tenth session, call 6 (review): the widec launch with its cluster count set at load
# instead of per launch; parity of every widec plan and two rows against call 3
export DIST_DIR=/tmp/parreg-dist-s10
B=.kb-s10/scripts/run-gpu.sh
R=$OUT
timeout 200 $B tests 'parreg.device.cuda.CudaParityTest#widecPlansMatchTheReference(int,int,java.lang.String)' > $R/s10c6-parity.txt 2>&1
timeout 60 $B bench --d 1280,2048 --plan-list widec2x1024_3x2 --verify --reps 10 > $R/s10c6-bench.txt 2>&1
grep -cE "^PASS" $R/s10c6-parity.txt; grep -E "successful|failed" $R/s10c6-parity.txt; grep -v "^#" $R/s10c6-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $9, $10}'
