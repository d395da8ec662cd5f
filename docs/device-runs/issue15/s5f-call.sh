#!/usr/bin/env bash
# issue 15 fifth session, the lead's call on the merged main: the table at every width with the
# PyTorch column, parity of the plans new this session from the merged PTX, and the seed run's
# steps/s with and without the guarding step log (now one write per journal write)
B=.kb-final/scripts/run-gpu.sh
R=$OUT
nvidia-smi -L > $R/s5f-card.txt 2>&1
date +%T > $R/s5f-times.txt
timeout 150 $B bench --d 1,2,3,8,16,17,24,32,48,64,100,128,200,256,384,512,768,1024,2048,4096 --verify --reps 20 --out $R/s5f-bench.tsv > $R/s5f-bench.txt 2>&1
date +%T >> $R/s5f-times.txt
PYTHONUNBUFFERED=1 timeout 90 $B torch --d 17,24,32,48,64,100,128,200,256,384,512,768,1024,2048,4096 --reps 20 --out $R/s5f-torch.tsv > $R/s5f-torch.txt 2>&1
date +%T >> $R/s5f-times.txt
ms() { awk -F'[:.]' '{print (($1*60+$2)*60+$3)*1000+$4}' <<<"$1"; }
ab() {
  d=/tmp/ab/$1; rm -rf $d; mkdir -p $d
  for p in 0 1; do
    timeout 120 $B parreg $2 node --participant $p --port $((27400+p)) --seed-nodes 127.0.0.1:27400,127.0.0.1:27401 \
      --journal $d/n$p --steps 3000 --exit-when-done > $d/n$p.log 2>&1 &
  done
  wait
  a=$(grep -m1 "roster complete" $d/n0.log | cut -c1-12); b=$(grep -m1 "target step" $d/n0.log | cut -c1-12)
  echo "$1 round $3: $(( 3000 * 1000 / ($(ms "$b") - $(ms "$a") + 1) )) steps/s (load $(cut -d' ' -f1 /proc/loadavg))"
}
{ for r in 1 2 3; do ab guard "" $r; ab noguard -Dparreg.journal.step-log.in-default-mode=false $r; done; } > $R/s5f-guard.txt 2>&1
date +%T >> $R/s5f-times.txt
timeout 210 $B tests 'parreg.device.cuda.CudaParityTest#midPlans2MatchTheReference(int,int,java.lang.String)' 'parreg.device.cuda.CudaParityTest#widetPlansMatchTheReference(int,int,java.lang.String)' 'parreg.device.cuda.CudaParityTest#widetMoreShapesMatchTheReference(int,int,java.lang.String)' > $R/s5f-parity.txt 2>&1
date +%T >> $R/s5f-times.txt
awk -F'\t' 'NR==1 || $5=="ordered"' $R/s5f-bench.tsv | cut -f1-12; cat $R/s5f-torch.tsv; cat $R/s5f-guard.txt; grep -cE "^PASS" $R/s5f-parity.txt; grep -E "^FAIL|successful|failed" $R/s5f-parity.txt | head; cat $R/s5f-times.txt
