#!/usr/bin/env bash
# s5w call 2: widet shapes against the ladder of the time (wide2 / widea) at 384..1,024, then parity of widet
B=.kb-wide5/scripts/r.sh; R=$OUT
{ nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv; } > $R/s5w2-card.txt 2>&1
date +%T > $R/s5w2-times.txt
timeout 170 $B bench --d 384,512,768,1024,640,896 --plan-list widet4x2,widet4x4,widet2x4,widet8x1,widet3x2,widet6x1,widet4x1,widet2x2,widet3x1 --verify --reps 20 --out $R/s5w2-bench.tsv > $R/s5w2-bench.txt 2>&1
date +%T >> $R/s5w2-times.txt
timeout 150 $B tests 'parreg.device.cuda.CudaParityTest#widetPlansMatchTheReference(int,int,java.lang.String)' > $R/s5w2-parity.txt 2>&1
date +%T >> $R/s5w2-times.txt
awk -F'\t' '$5=="ordered"' $R/s5w2-bench.tsv | cut -f1,4,6,9,10; grep -E "^#|cannot|rror" $R/s5w2-bench.txt | head -20; grep -cE "^PASS" $R/s5w2-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s5w2-parity.txt | head -20; cat $R/s5w2-times.txt
