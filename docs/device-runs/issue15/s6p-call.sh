#!/usr/bin/env bash
# issue 15 sixth session, the lead's profile for the next session: where the cycles go in
# widet_o_1024_3x2 (3.26-3.49 TB/s) against widet_o_768_2x4 (3.79-3.88), both with the 16-byte
# shared loads of kernels-wide6 (s6w-call2.sh adapted to the merged main's bundle; no cuobjdump:
# the source page carries the SASS)
B=.kb-final6/scripts/run-gpu.sh; R=$OUT
date +%T > $R/s6p-times.txt
export PATH=/usr/local/cuda/bin:$PATH
M='--metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__issue_active.avg.per_cycle_active,sm__cycles_elapsed.avg.per_second,smsp__inst_executed_pipe_fp64.sum,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum'
for k in widet_o_1024_3x2:1024:widet3x2 widet_o_768_2x4:768:widet2x4; do IFS=: read kn d p <<<"$k"
 timeout 70 ncu --target-processes all --clock-control none -k regex:"^$kn\$" --launch-skip 2 -c 1 --section SpeedOfLight --section WarpStateStats --section SourceCounters --section MemoryWorkloadAnalysis $M -o /tmp/rep_$kn $B bench --d $d --plan-list $p --reps 3 > $R/s6p-ncu-$kn.txt 2>&1
 timeout 40 ncu -i /tmp/rep_$kn.ncu-rep --page source --csv --print-source sass > /tmp/src_$kn.csv 2>&1
 timeout 20 ncu -i /tmp/rep_$kn.ncu-rep --page details --print-details all >> $R/s6p-ncu-$kn.txt 2>&1
 date +%T >> $R/s6p-times.txt
done
tar -C /tmp -czf $R/s6p-src.tgz src_widet_o_1024_3x2.csv src_widet_o_768_2x4.csv
grep -E "Duration|issue_active|per_second|Throughput|stalled" $R/s6p-ncu-*.txt | head -60; cat $R/s6p-times.txt
