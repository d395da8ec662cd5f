#!/usr/bin/env bash
# issue 15, ninth session, call 2: after call 1 (widec correct, but clusters of 4 and 8 slow: a
# slot of block 0 is held for the chain through all blocks, ~20 cycles a feature): the chain's
# loads software-pipelined PF quads ahead (f4 / f8), on widet's block (1xW) and on the clusters,
# beside the ladder's plans and call 1's shapes in the same invocations; parity of the f shapes
export DIST_DIR=/tmp/parreg-dist-widec
B=.kb-widec/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; } > $R/s9c2-card.txt 2>&1
date -u +%T > $R/s9c2-times.txt
b() { timeout $3 $B bench --d $1 --plan-list $2 --verify --reps 20; date -u +%T >> $R/s9c2-times.txt; }
{
b 512 widec1x512_2x4f8 40
b 1024 widec1x1024_3x2f8,widec1x1024_3x2f4,widec2x512_3x2,widec2x512_3x2f8 60
b 2048 widec2x1024_3x2,widec2x1024_3x2f8,widec2x1024_3x2f4,widec4x512_2x4f8 60
b 1536 widec2x768_2x4,widec2x768_2x4f8 45
b 4096 widec8x512_2x4f8 45
} > $R/s9c2-bench.txt 2>&1
timeout 120 $B tests 'parreg.device.cuda.CudaParityTest#widecPrefetchPlansMatchTheReference(int,int,java.lang.String)' > $R/s9c2-parity.txt 2>&1
date -u +%T >> $R/s9c2-times.txt
grep -v "^#" $R/s9c2-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception" $R/s9c2-bench.txt | head -6; grep -cE "^PASS" $R/s9c2-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s9c2-parity.txt | head -10; cat $R/s9c2-times.txt
