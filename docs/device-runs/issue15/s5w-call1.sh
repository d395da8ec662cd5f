#!/usr/bin/env bash
# s5w call 1: diagnosis of widea_o_1024 / wide2_o_512 (SASS, ncu stall reasons per SASS line)
B=.kb-wide5/scripts/r.sh; R=$OUT; K=.kb-wide5
{ nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv; } > $R/s5w1-card.txt 2>&1
date +%T > $R/s5w1-times.txt
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p /tmp/cb && (cd /tmp/cb && unzip -o -q $OLDPWD/$K/lib/parreg.jar parreg/kernels/local_sums.sm_90.cubin)
for f in widea_o_1024 wide2_o_512; do echo "=== $f"; timeout 30 cuobjdump -fun $f -sass /tmp/cb/parreg/kernels/local_sums.sm_90.cubin; done > $R/s5w1-sass.txt 2>&1
M='--metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__issue_active.avg.per_cycle_active,sm__cycles_elapsed.avg.per_second'
for k in widea_o_1024:1024:widea wide2_o_512:512:wide2; do IFS=: read kn d p <<<"$k"
 timeout 100 ncu --clock-control none -k regex:"^$kn\$" --launch-skip 2 -c 1 --section SpeedOfLight --section WarpStateStats --section SourceCounters $M -o /tmp/rep_$kn $B bench --d $d --plan-list $p --reps 3 > $R/s5w1-ncu-$kn.txt 2>&1
 timeout 60 ncu -i /tmp/rep_$kn.ncu-rep --page source --csv --print-source sass > /tmp/src_$kn.csv 2>&1
 timeout 30 ncu -i /tmp/rep_$kn.ncu-rep --page details --print-details all >> $R/s5w1-ncu-$kn.txt 2>&1
 date +%T >> $R/s5w1-times.txt
done
tar -C /tmp -czf $R/s5w1-src.tgz src_widea_o_1024.csv src_wide2_o_512.csv
ls -la /tmp/src_*.csv; head -c 600 /tmp/src_widea_o_1024.csv; grep -E "Duration|stalled|issue_active|per_second" $R/s5w1-ncu-*.txt | head -60
