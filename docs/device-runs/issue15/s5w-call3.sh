#!/usr/bin/env bash
# s5w call 3: the ladder before (wide2 / widea) and widet (the default and more shapes), widel, in one call; parity of the new shapes
B=.kb-wide5/scripts/r.sh; R=$OUT
{ nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv; } > $R/s5w3-card.txt 2>&1
date +%T > $R/s5w3-times.txt
timeout 30 $B bench --d 1024 --plan-list widea,widet2x3,widet1x4,widel3x2,widel2x3 --verify --reps 20 --out $R/s5w3-bench-a.tsv > $R/s5w3-bench-a.txt 2>&1
date +%T >> $R/s5w3-times.txt
timeout 40 $B bench --d 896,768,640 --plan-list wide2,widel2x4,widel3x2,widet2x3 --verify --reps 20 --out $R/s5w3-bench-b.tsv > $R/s5w3-bench-b.txt 2>&1
date +%T >> $R/s5w3-times.txt
timeout 15 $B bench --d 384,512 --plan-list wide2 --verify --reps 20 --out $R/s5w3-bench-c.tsv > $R/s5w3-bench-c.txt 2>&1
date +%T >> $R/s5w3-times.txt
timeout 35 $B tests 'parreg.device.cuda.CudaParityTest#widetMoreShapesMatchTheReference(int,int,java.lang.String)' > $R/s5w3-parity.txt 2>&1
date +%T >> $R/s5w3-times.txt
cat $R/s5w3-bench-?.tsv | awk -F'\t' '$5=="ordered"' | cut -f1,4,6,9,10; grep -h -E "^# card|cannot|rror" $R/s5w3-bench-?.txt | head -3; grep -cE "^PASS" $R/s5w3-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s5w3-parity.txt | head -20; cat $R/s5w3-times.txt
