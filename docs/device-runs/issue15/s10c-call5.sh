#!/usr/bin/env bash
# issue 15, tenth session, call 5: parity on the card of every widet and widec plan of the ladder
# and the forced shapes (their group tree is now a reduce-scatter; 2 x 2 rolled at 896 / 1,024)
export DIST_DIR=/tmp/parreg-dist-s10
B=.kb-s10/scripts/run-gpu.sh
R=$OUT; nvidia-smi -L > $R/s10c5-card.txt 2>&1
date -u +%T > $R/s10c5-times.txt
timeout 520 $B tests 'parreg.device.cuda.CudaParityTest#widecPlansMatchTheReference(int,int,java.lang.String)' 'parreg.device.cuda.CudaParityTest#widetPlansMatchTheReference(int,int,java.lang.String)' > $R/s10c5-parity.txt 2>&1
date -u +%T >> $R/s10c5-times.txt
grep -cE "^PASS" $R/s10c5-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s10c5-parity.txt | head -10; cat $R/s10c5-times.txt
