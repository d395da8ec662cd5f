#!/usr/bin/env bash
# issue 15 seventh session, the lead's call on the merged main (kernels-narrow7-24, kernels-wideg,
# kernels-narrow8): the table at every width with the PyTorch column, and parity of the new ladder
export DIST_DIR=/tmp/parreg-dist-final7
B=.kb-final7/scripts/run-gpu.sh
R=$OUT
nvidia-smi -L > $R/s7f-card.txt 2>&1
nvidia-smi -q -d CLOCK | grep -A3 "^    Clocks$" >> $R/s7f-card.txt 2>&1
date -u +%T > $R/s7f-times.txt
timeout 200 $B bench --d 1,2,3,8,16,17,18,20,21,24,25,28,32,48,64,100,128,200,256,384,512,768,896,1024,2048,4096 --verify --reps 20 --out $R/s7f-bench.tsv > $R/s7f-bench.txt 2>&1
date -u +%T >> $R/s7f-times.txt
PYTHONUNBUFFERED=1 timeout 75 $B torch --d 17,24,32,48,64,100,128,256,512,1024,2048,4096 --reps 20 --out $R/s7f-torch.tsv > $R/s7f-torch.txt 2>&1
date -u +%T >> $R/s7f-times.txt
timeout 80 $B tests 'parreg.device.cuda.CudaParityTest#narrow7LadderMatchesTheReference(int,int,java.lang.String)' 'parreg.device.cuda.CudaParityTest#narrow8LadderMatchesTheReference(int,int,java.lang.String)' 'parreg.device.cuda.CudaParityTest#narrow8wLadderMatchesTheReference(int,int,java.lang.String)' > $R/s7f-parity.txt 2>&1
date -u +%T >> $R/s7f-times.txt
awk -F'\t' 'NR==1 || $5=="ordered"' $R/s7f-bench.tsv | cut -f1-12; cat $R/s7f-torch.tsv; grep -cE "^PASS" $R/s7f-parity.txt; grep -E "^FAIL|successful|failed" $R/s7f-parity.txt | head; cat $R/s7f-times.txt $R/s7f-card.txt
