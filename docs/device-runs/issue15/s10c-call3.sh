#!/usr/bin/env bash
# issue 15, tenth session, call 3: the table at every width with the PyTorch column on the new
# kernels (the group tree as a reduce-scatter in every widet / widec kernel but widel's, odd QA
# too; the ladder's 2 x 2 rolled at 1,024), then the comparisons in one invocation each: the
# butterfly (g) against the reduce-scatter at 1,024 / 896 / 640 / 384, shapes at 896, widec
# 2 x 1,024 (forced only) against deepxb at 2,048 / 1,950
export DIST_DIR=/tmp/parreg-dist-s10
B=.kb-s10/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; } > $R/s10c3-card.txt 2>&1
date -u +%T > $R/s10c3-times.txt
timeout 200 $B bench --d 1,2,3,8,16,17,18,20,21,24,25,28,32,48,64,100,128,200,256,384,512,640,768,896,1000,1024,1280,1536,2048,4096 --verify --reps 20 --out $R/s10c3-bench.tsv > $R/s10c3-bench.txt 2>&1
date -u +%T >> $R/s10c3-times.txt
PYTHONUNBUFFERED=1 timeout 75 $B torch --d 17,24,32,48,64,100,128,256,512,1024,2048,4096 --reps 20 --out $R/s10c3-torch.tsv > $R/s10c3-torch.txt 2>&1
date -u +%T >> $R/s10c3-times.txt
timeout 60 $B bench --d 1024 --plan-list widet2x2g,widet3x2,widet3x2g --verify --reps 20 > $R/s10c3-cmp.txt 2>&1
timeout 60 $B bench --d 896 --plan-list widet3x2g,widet2x2,widet2x2r4,widet2x3 --verify --reps 20 >> $R/s10c3-cmp.txt 2>&1
timeout 40 $B bench --d 640,384 --plan-list widet3x2g,widet2x4g --verify --reps 20 >> $R/s10c3-cmp.txt 2>&1
timeout 60 $B bench --d 2048,1950 --plan-list widec2x1024_3x2 --verify --reps 20 >> $R/s10c3-cmp.txt 2>&1
date -u +%T >> $R/s10c3-times.txt
awk -F'\t' '$5=="ordered"' $R/s10c3-bench.tsv | cut -f1,4,6,9,10; cat $R/s10c3-torch.tsv; grep -v "^#" $R/s10c3-cmp.txt | awk -F'\t' '$5=="ordered"{print $1, $4, $6, $9, $10}'; grep -h -E "rror|xception|skipped" $R/s10c3-bench.txt $R/s10c3-cmp.txt | head -6; cat $R/s10c3-times.txt
