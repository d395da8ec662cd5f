#!/usr/bin/env bash
# s6w call 3: widet with 16-byte shared loads in the chains (lds128) against main's widet (old/ jar first on the class path) in one call; parity of the widet plans
B=.kb-wide6/scripts/r.sh; R=$OUT
{ nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv; } > $R/s6w3-card.txt 2>&1
date +%T > $R/s6w3-times.txt
[ -x /tmp/w6rt/runtime/bin/java ] || { mkdir -p /tmp/w6rt && tar -C /tmp/w6rt -xJf .kb-wide6/rt.tar.xz; }
date +%T >> $R/s6w3-times.txt
timeout 28 $B benchold --d 1024,896 --verify --reps 20 --out $R/s6w3-bench-old.tsv > $R/s6w3-bench-old.txt 2>&1
date +%T >> $R/s6w3-times.txt
timeout 60 $B bench --d 1024,896,768,640,512,384 --plan-list widet3x2 --verify --reps 20 --out $R/s6w3-bench-new.tsv > $R/s6w3-bench-new.txt 2>&1
date +%T >> $R/s6w3-times.txt
timeout 45 $B tests 'parreg.device.cuda.CudaParityTest#widetPlansMatchTheReference(int,int,java.lang.String)' > $R/s6w3-parity.txt 2>&1
date +%T >> $R/s6w3-times.txt
for f in old new; do echo "== $f"; awk -F'\t' '$5=="ordered"' $R/s6w3-bench-$f.tsv | cut -f1,4,6,9,10; done; grep -h -E "^# card|cannot|rror" $R/s6w3-bench-*.txt | head -4; grep -cE "^PASS" $R/s6w3-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s6w3-parity.txt | head -20; cat $R/s6w3-times.txt
