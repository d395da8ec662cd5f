#!/usr/bin/env bash
# issue 15, ninth session, call 4: the ladder with widec at slice widths 1,280 and 1,536 (the
# default) against deepxb forced, at and inside those widths in one invocation; parity of widet
# (its PTX changed with the body's cluster parameter; call 1's parity ran out of time after its
# first widet case) and of every widec shape
export DIST_DIR=/tmp/parreg-dist-widec
B=.kb-widec/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; } > $R/s9c4-card.txt 2>&1
date -u +%T > $R/s9c4-times.txt
timeout 170 $B bench --d 1153,1200,1280,1409,1450,1536 --plan-list deepxb --verify --reps 20 > $R/s9c4-bench.txt 2>&1
date -u +%T >> $R/s9c4-times.txt
timeout 330 $B tests 'parreg.device.cuda.CudaParityTest#widetPlansMatchTheReference(int,int,java.lang.String)' 'parreg.device.cuda.CudaParityTest#widecPlansMatchTheReference(int,int,java.lang.String)' > $R/s9c4-parity.txt 2>&1
date -u +%T >> $R/s9c4-times.txt
grep -v "^#" $R/s9c4-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception" $R/s9c4-bench.txt | head -6; grep -cE "^PASS" $R/s9c4-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s9c4-parity.txt | head -10; cat $R/s9c4-times.txt
