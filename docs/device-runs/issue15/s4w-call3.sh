#!/usr/bin/env bash
# issue 15, fourth session (wide/deep helper), call 3: the final build (deepf in the comparison
# module, JIT-compiled PTX): parity of the deepf cases, the deep rows beside it
B=.kb-wide/scripts/run-gpu.sh
R=$OUT
nvidia-smi -L > $R/s4w3-card.txt 2>&1
date +%T > $R/s4w3-times.txt
timeout 150 $B tests 'parreg.device.cuda.CudaParityTest#deepFusedPlansMatchTheReference(int,int,java.lang.String)' > $R/s4w3-parity.txt 2>&1
date +%T >> $R/s4w3-times.txt
timeout 90 $B bench --d 2048,4096 --plan-list deepf --verify --reps 10 --out $R/s4w3-bench.tsv > $R/s4w3-bench.txt 2>&1
date +%T >> $R/s4w3-times.txt
cat $R/s4w3-bench.tsv; grep -E "tests (successful|failed)|FAIL" $R/s4w3-parity.txt
