#!/usr/bin/env bash
# issue 15, sixth session (deep6 helper), call 2: deeph (half-slice chains, 16 samples a chain
# warp, fed by 64-byte bulk copies: half deept's window between the read and the re-read) against
# deepxb (the default) and deept 32 x 32 at d = 2,048 / 4,096 in one call; ncu of deeph_o_64x32 at
# 2,048 (DRAM bytes, L2 hit rate, cycles); parity deepHalfPlans. Bundle as call 1 (.kb-deep6, lib/
# cut, re-packed), built from kernels-deep6 with deeph.
export DIST_DIR=/tmp/parreg-dist-deep6
B=.kb-deep6/scripts/run-gpu.sh
R=$OUT
nvidia-smi -L > $R/s6d2-card.txt 2>&1
date +%T > $R/s6d2-times.txt
timeout 75 $B bench --d 2048,4096 --plan-list deeph64x32,deeph32x64,deeph128x24,deept32x32 --verify --reps 10 --out $R/s6d2-bench.tsv > $R/s6d2-bench.txt 2>&1
date +%T >> $R/s6d2-times.txt
M="--metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg,gpc__cycles_elapsed.avg.per_second"
timeout 35 ncu --clock-control none -k regex:'deeph_o_64x32' -c 1 --section SpeedOfLight --section WarpStateStats $M $B bench --d 2048 --values 200000000 --plan-list deeph64x32 --reps 1 > $R/s6d2-ncu-deeph.txt 2>&1
date +%T >> $R/s6d2-times.txt
timeout 110 $B tests 'parreg.device.cuda.CudaParityTest#deepHalfPlansMatchTheReference(int,int,java.lang.String)' > $R/s6d2-parity.txt 2>&1
date +%T >> $R/s6d2-times.txt
cat $R/s6d2-times.txt $R/s6d2-card.txt $R/s6d2-bench.tsv; grep -E "PASS|FAIL|tests (successful|failed)|MISMATCH" $R/s6d2-parity.txt | head -20; grep -E "_o|Duration|DRAM Throughput|L2 Cache Throughput|dram__bytes|lts__t_sector_hit|cycles_elapsed|Warp Cycles" $R/s6d2-ncu-*.txt | head -20
