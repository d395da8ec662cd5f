#!/usr/bin/env bash
# issue 15, sixth session (deep6 helper), call 1: deept (the copy engine feeds deepxb's chain warp:
# cp.async.bulk chunks of R rows into a ring of S slots on mbarriers) against deepxb (the default)
# at d = 2,048 / 4,096 / 1,500 in one call; ncu of deept_o_64x16 and deepxb_o at 2,048 (DRAM bytes,
# L2 hit rate, duration, cycles); parity deepCopyPlans (deept every shape + deepxb's cases the
# fifth session did not reach); PyTorch f32 on the same card. Bundle: scripts/device-bundle.sh
# /work/main/.kb-deep6 from kernels-deep6, lib/ cut to parreg.jar, jcuda(-natives), slf4j,
# logback and re-packed (xz, 29 MB); carry [".kb-deep6"].
export DIST_DIR=/tmp/parreg-dist-deep6
B=.kb-deep6/scripts/run-gpu.sh
R=$OUT
nvidia-smi -L > $R/s6d1-card.txt 2>&1
date +%T > $R/s6d1-times.txt
timeout 110 $B bench --d 2048,4096,1500 --plan-list deept64x16,deept64x24,deept128x12,deept32x32 --verify --reps 10 --out $R/s6d1-bench.tsv > $R/s6d1-bench.txt 2>&1
date +%T >> $R/s6d1-times.txt
M="--metrics dram__bytes_read.sum,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg,gpc__cycles_elapsed.avg.per_second"
timeout 40 ncu --clock-control none -k regex:'deept_o_64x16' -c 1 --section SpeedOfLight --section WarpStateStats $M $B bench --d 2048 --values 200000000 --plan-list deept64x16 --reps 1 > $R/s6d1-ncu-deept.txt 2>&1
date +%T >> $R/s6d1-times.txt
timeout 30 ncu --clock-control none -k regex:'deepxb_o' -c 1 --section SpeedOfLight $M $B bench --d 2048 --values 200000000 --plan-list deepxb --reps 1 > $R/s6d1-ncu-deepxb.txt 2>&1
date +%T >> $R/s6d1-times.txt
timeout 170 $B tests 'parreg.device.cuda.CudaParityTest#deepCopyPlansMatchTheReference(int,int,java.lang.String)' > $R/s6d1-parity.txt 2>&1
date +%T >> $R/s6d1-times.txt
PYTHONUNBUFFERED=1 timeout 40 $B torch --d 2048,4096 --reps 20 --out $R/s6d1-torch.tsv > $R/s6d1-torch.txt 2>&1
date +%T >> $R/s6d1-times.txt
cat $R/s6d1-times.txt $R/s6d1-card.txt $R/s6d1-bench.tsv; grep -E "PASS|FAIL|tests (successful|failed)|MISMATCH" $R/s6d1-parity.txt | head -20; grep -E "_o|Duration|DRAM Throughput|dram__bytes|lts__t_sector_hit|cycles_elapsed|Warp Cycles|Issued" $R/s6d1-ncu-*.txt | head -40; cat $R/s6d1-torch.tsv
