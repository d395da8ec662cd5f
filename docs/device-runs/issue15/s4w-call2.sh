#!/usr/bin/env bash
# issue 15, fourth session (wide/deep helper), call 2: deepf with the chain warps of a block in
# step on one slice (full 128-byte rows), its shapes vs deep, ncu, parity
B=.kb-wide/scripts/run-gpu.sh
R=$OUT
nvidia-smi -L > $R/s4w2-card.txt 2>&1
date +%T > $R/s4w2-times.txt
timeout 150 $B bench --d 2048,4096,1500 --plan-list deepf,deepfb,deepfc,deepfd --verify --reps 10 --out $R/s4w2-bench.tsv > $R/s4w2-bench.txt 2>&1
date +%T >> $R/s4w2-times.txt
timeout 80 ncu --clock-control none -k regex:deepf_o -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section SchedulerStats --metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct $B bench --d 2048 --values 200000000 --plan-list deepf --reps 1 > $R/s4w2-ncu-deepf.txt 2>&1
date +%T >> $R/s4w2-times.txt
timeout 150 $B tests 'parreg.device.cuda.CudaParityTest#deepFusedPlansMatchTheReference(int,int,java.lang.String)' > $R/s4w2-parity.txt 2>&1
date +%T >> $R/s4w2-times.txt
cat $R/s4w2-bench.tsv; tail -5 $R/s4w2-parity.txt; grep -E "deep.*_o|Duration|DRAM Throughput|L2 Hit Rate|L2 Cache Throughput|dram__bytes|lts__t_sector_hit" $R/s4w2-ncu-deepf.txt
