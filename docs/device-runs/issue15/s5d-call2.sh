#!/usr/bin/env bash
# issue 15, fifth session (deep helper), call 2: deepx (one chain warp an SM fed by 6 loader warps
# through a shared-memory ring) shapes vs deep and deepwb at d = 1,025..4,096; parity of deepx;
# ncu of deepx at 2,048 (DRAM bytes, L2 hit rate)
export DIST_DIR=/tmp/parreg-dist-deep5
B=.kb-deep5/scripts/run-gpu.sh
R=$OUT
nvidia-smi -L > $R/s5d2-card.txt 2>&1
date +%T > $R/s5d2-times.txt
timeout 70 $B bench --d 2048,4096,1500,1025 --plan-list deepx,deepxb,deepxc,deepxd --verify --reps 10 --out $R/s5d2-bench.tsv > $R/s5d2-bench.txt 2>&1
date +%T >> $R/s5d2-times.txt
timeout 20 ncu --clock-control none -k regex:'deepx_o' -c 1 --section SpeedOfLight --section WarpStateStats --metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct $B bench --d 2048 --values 200000000 --plan-list deepx --reps 1 > $R/s5d2-ncu.txt 2>&1
date +%T >> $R/s5d2-times.txt
timeout 70 $B tests 'parreg.device.cuda.CudaParityTest#deepRingPlansMatchTheReference(int,int,java.lang.String)' > $R/s5d2-parity.txt 2>&1
date +%T >> $R/s5d2-times.txt
cat $R/s5d2-times.txt $R/s5d2-card.txt $R/s5d2-bench.tsv; grep -E "tests (successful|failed)|FAIL|MISMATCH" $R/s5d2-parity.txt | head; grep -E "_o|Duration|DRAM Throughput|dram__bytes|lts__t_sector_hit" $R/s5d2-ncu.txt | head -20
