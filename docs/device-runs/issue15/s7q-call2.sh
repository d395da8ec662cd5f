#!/usr/bin/env bash
# issue 15, seventh session (branch kernels-wideg), call 2: after call 1 (every widetq shape slower
# than widet-1024_3x2 and deepxb): the padded-slot shapes (p) against the unpadded and the defaults
# in one call; ncu of widetq_o_1024_1x8 and widetq_o_2048_2x3 (why slower); parity of the p
# shapes and of the W = 2,048 cases that call 1's guard cut
export DIST_DIR=/tmp/parreg-dist-wideg
B=.kb-wideg/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; } > $R/s7q2-card.txt 2>&1
date -u +%T > $R/s7q2-times.txt
b() { timeout $3 $B bench --d $1 --plan-list $2 --verify --reps 20; date -u +%T >> $R/s7q2-times.txt; }
{
b 1024 widetq1x8,widetq1x8p,widetq2x4p 45
b 2048 widetq2x3,widetq2x3p 30
} > $R/s7q2-bench.txt 2>&1
M='--metrics smsp__issue_active.avg.per_cycle_active,smsp__inst_executed_pipe_fp64.sum,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum'
for k in widetq_o_1024_1x8:1024:widetq1x8 widetq_o_2048_2x3:2048:widetq2x3; do IFS=: read kn d p <<<"$k"
 timeout 45 ncu --clock-control none -k regex:"^$kn\$" --launch-skip 2 -c 1 --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis $M $B bench --d $d --plan-list $p --reps 3 > $R/s7q2-ncu-$kn.txt 2>&1
 date -u +%T >> $R/s7q2-times.txt
done
timeout 60 $B tests 'parreg.device.cuda.CudaParityTest#wideqPaddedPlansMatchTheReference(int,int,java.lang.String)' 'parreg.device.cuda.CudaParityTest#wideq2048PlansMatchTheReference(int,int,java.lang.String)' > $R/s7q2-parity.txt 2>&1
date -u +%T >> $R/s7q2-times.txt
grep -v "^#" $R/s7q2-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception" $R/s7q2-bench.txt | head -4; grep -h -E "Duration|DRAM Throughput|Memory Throughput|issue_active|bank_conflicts|wavefronts_mem_shared|Warp Cycles Per Issued|No Eligible" $R/s7q2-ncu-*.txt | head -30; grep -cE "^PASS" $R/s7q2-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s7q2-parity.txt | head -10; cat $R/s7q2-times.txt
