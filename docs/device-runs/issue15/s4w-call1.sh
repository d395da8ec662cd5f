#!/usr/bin/env bash
# issue 15, fourth session (wide/deep helper), call 1: deepf (fused deep) shapes vs deep, ncu, parity
B=.kb-wide/scripts/run-gpu.sh
R=$OUT
{ nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv; } > $R/s4w1-card.txt 2>&1
timeout 20 python3 -c "import torch;p=torch.cuda.get_device_properties(0);print('L2 bytes',p.L2_cache_size,'SMs',p.multi_processor_count)" >> $R/s4w1-card.txt 2>&1
date +%T > $R/s4w1-times.txt
timeout 170 $B bench --d 2048,4096 --plan-list deepf,deepfb,deepfc,deepfd --verify --reps 10 --out $R/s4w1-bench.tsv > $R/s4w1-bench.txt 2>&1
date +%T >> $R/s4w1-times.txt
timeout 100 ncu --clock-control none -k regex:deepf_o -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats $B bench --d 2048 --values 200000000 --plan-list deepf --reps 1 > $R/s4w1-ncu-deepf.txt 2>&1
date +%T >> $R/s4w1-times.txt
timeout 150 $B tests 'parreg.device.cuda.CudaParityTest#deepFusedPlansMatchTheReference(int,int,java.lang.String)' > $R/s4w1-parity.txt 2>&1
date +%T >> $R/s4w1-times.txt
cat $R/s4w1-bench.tsv; tail -5 $R/s4w1-parity.txt; grep -E "Duration|DRAM Throughput|L2 Hit Rate|Registers Per" $R/s4w1-ncu-deepf.txt
