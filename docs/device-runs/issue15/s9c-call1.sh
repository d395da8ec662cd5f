#!/usr/bin/env bash
# issue 15, ninth session, call 1: the widec plans (clusters of widet blocks, x read once at
# d >= 1,024) against the ladder's plans at d = 1,024 / 1,536 / 2,048 / 4,096 in the same call; the
# cluster count (resident clusters of 4 and 8: 32 / 16 assumed); widet's default at 384 / 512 / 768
# (its PTX changed with the body's cluster parameter); parity of every widec shape and of widet
export DIST_DIR=/tmp/parreg-dist-widec
B=.kb-widec/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; } > $R/s9c1-card.txt 2>&1
date -u +%T > $R/s9c1-times.txt
b() { timeout $3 $B bench --d $1 --plan-list $2 --verify --reps 20; date -u +%T >> $R/s9c1-times.txt; }
{
b 1024 widec2x512_2x4,widec2x512_3x2 60
b 2048 widec4x512_2x4,widec2x1024_3x2,widec4x512_3x2 60
b 4096 widec8x512_2x4,widec4x1024_3x2 60
b 1536 widec2x768_2x4,widec4x384_2x4 60
JAVA_TOOL_OPTIONS=-Dparreg.cuda.clusters=33 b 2048 widec4x512_2x4 40
JAVA_TOOL_OPTIONS=-Dparreg.cuda.clusters=17 b 4096 widec8x512_2x4 40
b 384,512,768 widet 60
} > $R/s9c1-bench.txt 2>&1
timeout 150 $B tests 'parreg.device.cuda.CudaParityTest#widecPlansMatchTheReference(int,int,java.lang.String)' 'parreg.device.cuda.CudaParityTest#widetPlansMatchTheReference(int,int,java.lang.String)' > $R/s9c1-parity.txt 2>&1
date -u +%T >> $R/s9c1-times.txt
grep -v "^#" $R/s9c1-bench.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception" $R/s9c1-bench.txt | head -6; grep -cE "^PASS" $R/s9c1-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s9c1-parity.txt | head -10; cat $R/s9c1-times.txt
