#!/usr/bin/env bash
# issue 15 sixth session, the lead's call on the merged main (kernels-narrow6, -wide6, -deep6):
# the table at every width with the PyTorch column (896 added: its default changed to widet 3 x 2),
# and parity of the new defaults from the merged PTX
B=.kb-final6/scripts/run-gpu.sh
R=$OUT
nvidia-smi -L > $R/s6f-card.txt 2>&1
nvidia-smi -q -d CLOCK | grep -A3 "^    Clocks$" >> $R/s6f-card.txt 2>&1
date +%T > $R/s6f-times.txt
timeout 160 $B bench --d 1,2,3,8,16,17,24,32,48,64,100,128,200,256,384,512,768,896,1024,2048,4096 --verify --reps 20 --out $R/s6f-bench.tsv > $R/s6f-bench.txt 2>&1
date +%T >> $R/s6f-times.txt
PYTHONUNBUFFERED=1 timeout 90 $B torch --d 17,24,32,48,64,100,128,200,256,384,512,768,1024,2048,4096 --reps 20 --out $R/s6f-torch.tsv > $R/s6f-torch.txt 2>&1
date +%T >> $R/s6f-times.txt
timeout 130 $B tests 'parreg.device.cuda.CudaParityTest#narrow6LadderMatchesTheReference(int,int,java.lang.String)' 'parreg.device.cuda.CudaParityTest#widetPlansMatchTheReference(int,int,java.lang.String)' > $R/s6f-parity.txt 2>&1
date +%T >> $R/s6f-times.txt
awk -F'\t' 'NR==1 || $5=="ordered"' $R/s6f-bench.tsv | cut -f1-12; cat $R/s6f-torch.tsv; grep -cE "^PASS" $R/s6f-parity.txt; grep -E "^FAIL|successful|failed" $R/s6f-parity.txt | head; cat $R/s6f-times.txt $R/s6f-card.txt
