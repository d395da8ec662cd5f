#!/usr/bin/env bash
# issue 15, fifth session (deep helper), call 3 (prepared, not run: the helper's device time was
# spent): parity of every deepRingPlans case (deepxb up to 8,190, batches at offsets), then deepxb
# vs deep in the same call. Bundle: scripts/device-bundle.sh /work/main/.kb-deep5 from
# kernels-deep5-default (deepxb from the product's PTX and cubin, the ladder's default above 1,024;
# lib/ cut as in README), carry [".kb-deep5"]; about 150 s of command.
export DIST_DIR=/tmp/parreg-dist-deep5
B=.kb-deep5/scripts/run-gpu.sh
R=$OUT
nvidia-smi -L > $R/s5d3-card.txt 2>&1
date +%T > $R/s5d3-times.txt
timeout 150 $B tests 'parreg.device.cuda.CudaParityTest#deepRingPlansMatchTheReference(int,int,java.lang.String)' > $R/s5d3-parity.txt 2>&1
date +%T >> $R/s5d3-times.txt
timeout 60 $B bench --d 2048,4096,1500,1025 --plan-list deepxb --verify --reps 10 --out $R/s5d3-bench.tsv > $R/s5d3-bench.txt 2>&1
date +%T >> $R/s5d3-times.txt
cat $R/s5d3-times.txt $R/s5d3-card.txt $R/s5d3-bench.tsv; grep -E "tests (successful|failed)|FAIL" $R/s5d3-parity.txt | head
