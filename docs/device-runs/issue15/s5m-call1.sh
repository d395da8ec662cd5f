#!/usr/bin/env bash
# issue 15, fifth session (widths 17 and 33..128), call 1: split and spec with an L2 prefetch of
# the group / slice PD turns ahead (f: 128-byte lines, g: 32-byte lines) against the ladder's
# default at each width (every bench invocation's first rows), parity of the new shapes
export DIST_DIR=/tmp/parreg-dist-mid5
B=.kb-mid5/scripts/run-gpu.sh
R=$OUT; nvidia-smi -L > $R/s5m1-card.txt 2>&1
date +%T > $R/s5m1-times.txt
b() { timeout ${3:-40} $B bench --d $1 ${2:+--plan-list $2} --verify --reps 20; }
{
b 17 split2x9_u8t4f1,split2x9_u8t4g1,split2x9_u8t4f2
b 24 split2x12_u2t4pf2
b 32 split2x16_u2t4pf2
b 48 spec48,spec48_f1,spec48_g1,spec48_f2,split4x12_u2t2pf2,split4x12_u2t2pg2,split3x16_u2t5pf2
b 64 spec64_f1,spec64_g1,spec64_f2,split4x16_u2t3p,split4x16_u2t3pf2
b 100 spec104_f1,spec104_g1,spec104_f2
b 128 spec128_f1,spec128_g1,spec128_f2
} > $R/s5m1-bench.txt 2>&1
date +%T >> $R/s5m1-times.txt
timeout 130 $B tests 'parreg.device.cuda.CudaParityTest#midPlansMatchTheReference(int,int,java.lang.String)' > $R/s5m1-parity.txt 2>&1
date +%T >> $R/s5m1-times.txt
grep -v "^#" $R/s5m1-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -cE "^PASS" $R/s5m1-parity.txt; grep -E "^FAIL|tests (successful|failed)" $R/s5m1-parity.txt | head; cat $R/s5m1-times.txt
