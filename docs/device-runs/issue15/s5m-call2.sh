#!/usr/bin/env bash
# issue 15, fifth session, call 2: spec at two blocks an SM (mD), with 7 chain warps (c7), the
# best prefetch shapes of call 1 again, split 3x16 with and without prefetch, against the default
# at each width; parity of every new shape
export DIST_DIR=/tmp/parreg-dist-mid5
B=.kb-mid5/scripts/run-gpu.sh
R=$OUT; nvidia-smi -L > $R/s5m2-card.txt 2>&1
date +%T > $R/s5m2-times.txt
b() { timeout ${3:-40} $B bench --d $1 ${2:+--plan-list $2} --verify --reps 20; }
{
b 48 spec48,spec48_m6,spec48_c7,spec48_f1,split3x16_u2t5p,split3x16_u2t5pf2
b 64 spec64_m8,spec64_m4,spec64_c7,spec64_g1
b 100 spec104_c7,spec104_f1


} > $R/s5m2-bench.txt 2>&1
date +%T >> $R/s5m2-times.txt
timeout $(( SECONDS < 62 ? 68 - SECONDS : 5 )) $B tests 'parreg.device.cuda.CudaParityTest#midPlans2MatchTheReference(int,int,java.lang.String)' > $R/s5m2-parity.txt 2>&1
date +%T >> $R/s5m2-times.txt
date +%T >> $R/s5m2-times.txt
grep -v "^#" $R/s5m2-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -cE "^PASS" $R/s5m2-parity.txt; grep -E "^FAIL|tests (successful|failed)" $R/s5m2-parity.txt | head; cat $R/s5m2-times.txt
