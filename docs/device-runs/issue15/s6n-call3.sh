#!/usr/bin/env bash
# issue 15, sixth session (branch kernels-narrow6), call 3: at d = 100 and 80, the ladder's spec-100_c7
# (each invocation's first row) against spec-104 (6 chain warps) and spec-104_c7, in two orders
export DIST_DIR=/tmp/parreg-dist-narrow6
B=.kb-narrow6/scripts/run-gpu.sh
R=$OUT; nvidia-smi -L > $R/s6n3-card.txt 2>&1
date +%T > $R/s6n3-times.txt
b() { timeout ${3:-40} $B bench --d $1 ${2:+--plan-list $2} --verify --reps 20; }
{
b 100 spec104,spec104_c7,spec100 30
b 100 spec104_c7,spec104 30
b 80 spec104,spec104_c7 30
b 24 split2x12_u2t4p 30
} > $R/s6n3-bench.txt 2>&1
date +%T >> $R/s6n3-times.txt
grep -v "^#" $R/s6n3-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception" $R/s6n3-bench.txt | head -5; cat $R/s6n3-times.txt
