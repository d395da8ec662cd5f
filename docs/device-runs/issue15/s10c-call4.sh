#!/usr/bin/env bash
# issue 15, tenth session, call 4: the ladder's 2 x 2 (rolled) at 896 as well (s10c3: 3.43 TB/s
# where 3 x 2 read 3.24): the widths 769..1,024 against the shapes before in one invocation; widec
# against deepxb at 1,700 / 1,792 / 1,950 / 2,048 with 2 * 10^9 values (~15 tiles a cluster, where
# the 4 * 10^8 of the other calls leave 3-4 and so up to a quarter of the clusters idle at the
# end); parity of the group-tree and rolled-chain cases (call 5: every widet / widec plan)
export DIST_DIR=/tmp/parreg-dist-s10
B=.kb-s10/scripts/run-gpu.sh
R=$OUT; { nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version --format=csv; } > $R/s10c4-card.txt 2>&1
date -u +%T > $R/s10c4-times.txt
timeout 80 $B bench --d 896,800,1024,1000 --plan-list widet3x2,widet2x3 --verify --reps 20 > $R/s10c4-bench.txt 2>&1
date -u +%T >> $R/s10c4-times.txt
timeout 170 $B bench --d 1950,2048 --values 2000000000 --plan-list widec2x1024_3x2 --verify --reps 10 > $R/s10c4-large.txt 2>&1
timeout 100 $B bench --d 1700,1792 --values 2000000000 --plan-list widec2x896_3x2 --verify --reps 10 >> $R/s10c4-large.txt 2>&1
date -u +%T >> $R/s10c4-times.txt
timeout 150 $B tests 'parreg.device.cuda.CudaParityTest#groupTreePlansMatchTheReference(int,int,java.lang.String)' 'parreg.device.cuda.CudaParityTest#rolledChainPlansMatchTheReference(int,int,java.lang.String)' > $R/s10c4-parity.txt 2>&1
date -u +%T >> $R/s10c4-times.txt
grep -v "^#" $R/s10c4-bench.txt $R/s10c4-large.txt | awk -F'\t' '$5=="ordered"{print $1, $2, $4, $6, $9, $10}'; grep -h -E "rror|xception|skipped" $R/s10c4-bench.txt $R/s10c4-large.txt | head -6; grep -cE "^PASS" $R/s10c4-parity.txt; grep -E "^FAIL|successful|failed|rror" $R/s10c4-parity.txt | head -10; cat $R/s10c4-times.txt
