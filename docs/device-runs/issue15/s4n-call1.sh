#!/usr/bin/env bash
# issue 15, fourth session (narrow widths), call 1: the split-chain shapes against the ladder's
# plans at d = 17..128, their parity on the card, one profile of each kind (bundle: .kb-narrow)
export DIST_DIR=/tmp/parreg-dist-narrow
B=.kb-narrow/scripts/run-gpu.sh
R=$OUT; nvidia-smi -L > $R/s4n1-card.txt 2>&1
date +%T > $R/s4n1-times.txt
P=split2x16_u4t4,split2x16_u2t4p,split2x12_u4t4,split4x8_u4t2,split3x16_u4t2,split4x12_u4t2,split4x16_u4t2,split4x16_u2t2p,split7x16_u4t2,split8x13_u4t1,split8x16_u4t1
timeout 150 $B bench --d 17,24,32,48,64,100,128 --plan-list $P --verify --reps 20 --out $R/s4n1-bench.tsv > $R/s4n1-bench.txt 2>&1
date +%T >> $R/s4n1-times.txt
timeout 110 $B tests 'parreg.device.cuda.CudaParityTest#splitPlansMatchTheReference(int,int,java.lang.String)' > $R/s4n1-parity.txt 2>&1
date +%T >> $R/s4n1-times.txt
S="--clock-control none --section SpeedOfLight --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis --section LaunchStats"
timeout 45 ncu --target-processes all -k regex:'^split_o_2x16_u4t4$' --launch-skip 2 -c 1 $S $B bench --d 32 --values 100000000 --plan-list split2x16_u4t4 --reps 2 > $R/s4n1-ncu.txt 2>&1
timeout 40 ncu --target-processes all -k regex:'^small_o_16$' --launch-skip 2 -c 1 $S $B bench --d 16 --values 100000000 --reps 2 >> $R/s4n1-ncu.txt 2>&1
date +%T >> $R/s4n1-times.txt
tail -n 60 $R/s4n1-bench.txt; grep -E "PASS|FAIL|passed|failed" $R/s4n1-parity.txt | tail -5; cat $R/s4n1-times.txt
