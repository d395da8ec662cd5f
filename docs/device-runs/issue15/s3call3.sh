#!/usr/bin/env bash
# issue 15, third session, call 3: the table at every width (final ladder) with PyTorch, forced
# alternatives, parity of the new plans
B=.kbundle/scripts/run-gpu.sh
R=$OUT/c3; mkdir -p $R
nvidia-smi -L > $R/card.txt 2>&1
date +%T > $R/times.txt
timeout 140 $B bench --d 1,2,3,8,16,17,24,32,48,64,100,128,200,256,384,512,768,1024,2048,4096 --verify --reps 20 --out $R/bench.tsv > $R/bench.txt 2>&1
date +%T >> $R/times.txt
date +%T >> $R/times.txt
date +%T >> $R/times.txt
PYTHONUNBUFFERED=1 timeout 90 $B torch --d 17,24,32,48,64,100,128,200,256,384,512,768,1024,2048,4096 --reps 20 --out $R/torch.tsv > $R/torch.txt 2>&1
date +%T >> $R/times.txt
timeout 150 $B tests 'parreg.device.cuda.CudaParityTest#moreWidthsMatchTheReference(int,int,java.lang.String)' > $R/parity.txt 2>&1
date +%T >> $R/times.txt
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
