#!/usr/bin/env bash
# issue 15, ninth session, call 3: after calls 1-2 (widec with clusters of 2 faster than deepxb at
# 1,536, level at 2,048; clusters of 4 / 8 2-3 x slower; the chain's loads pipelined by hand no
# faster: ptxas already hoists them): the product's widec shapes (clusters of 2 at slice widths
# 1,280 / 1,536 / 1,792 / 2,048) against deepxb in the same invocations, at and inside each width;
# ncu of widec_o_2x1024_3x2 (where the chains' time goes); parity of every widec shape
export DIST_DIR=/tmp/parreg-dist-widec
B=.kb-widec/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; } > $R/s9c3-card.txt 2>&1
date -u +%T > $R/s9c3-times.txt
b() { timeout $3 $B bench --d $1 --plan-list $2 --verify --reps 20; date -u +%T >> $R/s9c3-times.txt; }
{
b 1200 widec 40
b 1280 widec 40
b 1450 widec 40
b 1536 widec 40
b 1700 widec 40
b 1792 widec 40
b 1950 widec 40
b 2048 widec,widec2x1024_2x3 45
} > $R/s9c3-bench.txt 2>&1
M='--metrics smsp__issue_active.avg.per_cycle_active,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum'
timeout 60 ncu --clock-control none -k regex:"^widec_o_2x1024_3x2\$" --launch-skip 2 -c 1 --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis $M $B bench --d 2048 --plan-list widec2x1024_3x2 --reps 3 > $R/s9c3-ncu-widec_o_2x1024_3x2.txt 2>&1
date -u +%T >> $R/s9c3-times.txt
timeout 150 $B tests 'parreg.device.cuda.CudaParityTest#widecPlansMatchTheReference(int,int,java.lang.String)' > $R/s9c3-parity.txt 2>&1
date -u +%T >> $R/s9c3-times.txt
grep -v "^#" $R/s9c3-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception" $R/s9c3-bench.txt | head -6; grep -h -E "Duration|DRAM Throughput|Memory Throughput|issue_active|bank_conflicts|wavefronts_mem_shared|Warp Cycles Per Issued|No Eligible|Active Warps Per|Eligible Warps" $R/s9c3-ncu-*.txt | head -30; grep -cE "^PASS" $R/s9c3-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s9c3-parity.txt | head -10; cat $R/s9c3-times.txt
