#!/usr/bin/env bash
# issue 15, fourth session (narrow widths), call 3: the final ladder (split at 17..48) as default rows
# at every narrow width, the before-plans and call 3's candidate shapes, parity of every split shape
export DIST_DIR=/tmp/parreg-dist-narrow
B=.kb-narrow/scripts/run-gpu.sh
R=$OUT; nvidia-smi -L > $R/s4n3-card.txt 2>&1
date +%T > $R/s4n3-times.txt
b() { timeout ${3:-30} $B bench --d $1 ${2:+--plan-list $2} --verify --reps 20; }
{
b 1,2,3,8,16 "" 50
b 17 spec24,split3x6_u8t5,split2x12_u2t4p
b 24 spec24,split3x8_u8t5
b 32 narrow,split4x8_u4t2p
b 48 spec48,split6x8_u4t2p
b 64 split8x8_u8t1,split4x16_u2t3p
b 100
b 128
} > $R/s4n3-bench.txt 2>&1
date +%T >> $R/s4n3-times.txt
timeout 200 $B tests 'parreg.device.cuda.CudaParityTest#splitPlansMatchTheReference(int,int,java.lang.String)' > $R/s4n3-parity.txt 2>&1
date +%T >> $R/s4n3-times.txt
grep -v "^#" $R/s4n3-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $9, $10}'; grep -cE "^PASS" $R/s4n3-parity.txt; grep -E "^FAIL|tests (successful|failed)" $R/s4n3-parity.txt | head; cat $R/s4n3-times.txt
