#!/usr/bin/env bash
# issue 15, fourth session (narrow widths), call 2: the ladder with split at 17..32 (default rows)
# at every narrow width, the before-plans and call 2's candidate shapes per width, parity
export DIST_DIR=/tmp/parreg-dist-narrow
B=.kb-narrow/scripts/run-gpu.sh
R=$OUT; nvidia-smi -L > $R/s4n2-card.txt 2>&1
date +%T > $R/s4n2-times.txt
b() { timeout ${3:-30} $B bench --d $1 ${2:+--plan-list $2} --verify --reps 20; }
{
b 1,2,3,8,16 "" 50
b 17 spec24,split2x9_u4t4p,split2x9_u8t4,split2x12_u2t4p
b 24 spec24,split2x12_u2t4p,split2x16_u2t4p
b 32 narrow,split2x16_u4t4,split2x16_u2t3p
b 48 split3x16_u2t5p,split4x12_u2t2p,spec48_r12
b 64 split4x16_u2t3p,spec64_r16
b 100 spec104_c3
b 128 spec128_c3
} > $R/s4n2-bench.txt 2>&1
date +%T >> $R/s4n2-times.txt
timeout 200 $B tests 'parreg.device.cuda.CudaParityTest#splitPlansMatchTheReference(int,int,java.lang.String)' > $R/s4n2-parity.txt 2>&1
date +%T >> $R/s4n2-times.txt
grep -v "^#" $R/s4n2-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $9, $10}'; grep -cE "^PASS" $R/s4n2-parity.txt; grep -E "^FAIL|tests (successful|failed)" $R/s4n2-parity.txt | head; cat $R/s4n2-times.txt
