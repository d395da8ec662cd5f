#!/usr/bin/env bash
# s6w call 1: widet in pieces (P FULL barriers a sub-slice) against the ladder at 1,024 / 896 / 768 / 640, then parity of the piece plans
B=.kb-wide6/scripts/r.sh; R=$OUT
{ nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv; } > $R/s6w1-card.txt 2>&1
date +%T > $R/s6w1-times.txt
mkdir -p /tmp/w6rt && tar -C /tmp/w6rt -xJf .kb-wide6/rt.tar.xz
date +%T >> $R/s6w1-times.txt
timeout 60 $B bench --d 1024 --plan-list widet3x2,widet3x2p2,widet3x2p4,widet3x2p8,widet2x3p4,widet2x4p4,widel3x2p4,widel7x1p4 --verify --reps 20 --out $R/s6w1-bench-a.tsv > $R/s6w1-bench-a.txt 2>&1
date +%T >> $R/s6w1-times.txt
timeout 55 $B tests 'parreg.device.cuda.CudaParityTest#widetPiecePlansMatchTheReference(int,int,java.lang.String)' > $R/s6w1-parity.txt 2>&1
date +%T >> $R/s6w1-times.txt
timeout 45 $B bench --d 896,768,640 --plan-list widel2x4,widel2x4p4,widet2x3p4,widet2x4p4,widet2x4,widet3x2,widet3x2p4 --verify --reps 20 --out $R/s6w1-bench-b.tsv > $R/s6w1-bench-b.txt 2>&1
date +%T >> $R/s6w1-times.txt
cat $R/s6w1-bench-?.tsv | awk -F'\t' '$5=="ordered"' | cut -f1,4,6,9,10; grep -h -E "^# card|cannot|rror" $R/s6w1-bench-?.txt | head -8; grep -cE "^PASS" $R/s6w1-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s6w1-parity.txt | head -20; cat $R/s6w1-times.txt
