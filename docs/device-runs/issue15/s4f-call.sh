#!/usr/bin/env bash
# issue 15 fourth session, the lead's call on the merged main: the table at every width with the
# PyTorch column, parity of the new plans (split, deepf) from the merged PTX, and the seed run's
# steps/s with and without the guarding step log (3 alternated rounds, 3,000 steps, H2 journals)
B=.kb-final/scripts/run-gpu.sh
R=$OUT
nvidia-smi -L > $R/s4f-card.txt 2>&1
date +%T > $R/s4f-times.txt
timeout 150 $B bench --d 1,2,3,8,16,17,24,32,48,64,100,128,200,256,384,512,768,1024,2048,4096 --verify --reps 20 --out $R/s4f-bench.tsv > $R/s4f-bench.txt 2>&1
date +%T >> $R/s4f-times.txt
PYTHONUNBUFFERED=1 timeout 90 $B torch --d 17,24,32,48,64,100,128,200,256,384,512,768,1024,2048,4096 --reps 20 --out $R/s4f-torch.tsv > $R/s4f-torch.txt 2>&1
date +%T >> $R/s4f-times.txt
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
{ for r in 1 2 3; do ab guard "" $r; ab noguard -Dparreg.journal.step-log.in-default-mode=false $r; done; } > $R/s4f-guard.txt 2>&1
ls /tmp/ab/guard/n0 >> $R/s4f-guard.txt 2>&1
date +%T >> $R/s4f-times.txt
timeout 170 $B tests 'parreg.device.cuda.CudaParityTest#splitPlansMatchTheReference(int,int,java.lang.String)' 'parreg.device.cuda.CudaParityTest#deepFusedPlansMatchTheReference(int,int,java.lang.String)' > $R/s4f-parity.txt 2>&1
date +%T >> $R/s4f-times.txt
awk -F'\t' 'NR==1 || $5=="ordered"' $R/s4f-bench.tsv | cut -f1-12; cat $R/s4f-torch.tsv; cat $R/s4f-guard.txt; grep -cE "^PASS" $R/s4f-parity.txt; grep -E "^FAIL|successful|failed" $R/s4f-parity.txt | head; cat $R/s4f-times.txt
