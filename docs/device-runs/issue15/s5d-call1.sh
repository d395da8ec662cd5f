#!/usr/bin/env bash
# issue 15, fifth session (deep helper), call 1: deepw (whole-slice chains, one block an SM, L2
# prefetch, evict-first re-read) shapes vs deep at d = 1,025..4,096; parity; ncu of deepw at
# 2,048 (DRAM bytes, L2 hit rate); L2 size; PyTorch f32 on the same card
export DIST_DIR=/tmp/parreg-dist-deep5
B=.kb-deep5/scripts/run-gpu.sh
R=$OUT
nvidia-smi -L > $R/s5d1-card.txt 2>&1
timeout 20 python3 -c "import torch; p=torch.cuda.get_device_properties(0); print(p); print('L2', getattr(p,'L2_cache_size',None))" >> $R/s5d1-card.txt 2>&1
date +%T > $R/s5d1-times.txt
timeout 130 $B bench --d 2048,4096,1500,1025 --plan-list deepw,deepwb,deepwc,deepwd,deepwe --verify --reps 10 --out $R/s5d1-bench.tsv > $R/s5d1-bench.txt 2>&1
date +%T >> $R/s5d1-times.txt
timeout 120 $B tests 'parreg.device.cuda.CudaParityTest#deepWindowPlansMatchTheReference(int,int,java.lang.String)' > $R/s5d1-parity.txt 2>&1
date +%T >> $R/s5d1-times.txt
timeout 60 ncu --clock-control none -k regex:'deepw_o' -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct $B bench --d 2048 --values 200000000 --plan-list deepw --reps 1 > $R/s5d1-ncu.txt 2>&1
date +%T >> $R/s5d1-times.txt
PYTHONUNBUFFERED=1 timeout 45 $B torch --d 1500,2048,4096 --reps 20 --out $R/s5d1-torch.tsv > $R/s5d1-torch.txt 2>&1
date +%T >> $R/s5d1-times.txt
cat $R/s5d1-times.txt; grep -E "L2|H200" $R/s5d1-card.txt; cat $R/s5d1-bench.tsv; grep -E "tests (successful|failed)|FAIL|MISMATCH" $R/s5d1-parity.txt | head; grep -E "_o|Duration|DRAM Throughput|L2 Hit Rate|dram__bytes|lts__t_sector_hit" $R/s5d1-ncu.txt | head -40; cat $R/s5d1-torch.tsv
