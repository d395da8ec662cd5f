#!/usr/bin/env bash
# NOT RUN (sixth session: the device share went to s6w-call3); kept for the next session
# s6w call 2: where the cycles go in widet_o_1024_3x2 (3.26-3.44 TB/s) against widet_o_768_2x4 (3.79): ncu stall reasons per SASS line, SASS
B=.kb-wide6/scripts/r.sh; R=$OUT; K=.kb-wide6
date +%T > $R/s6w2-times.txt
export PATH=/usr/local/cuda/bin:$PATH
[ -x /tmp/w6rt/runtime/bin/java ] || { mkdir -p /tmp/w6rt && tar -C /tmp/w6rt -xJf $K/rt.tar.xz; }
mkdir -p /tmp/cb && python3 -c "import zipfile;zipfile.ZipFile('$K/lib/parreg.jar').extract('parreg/kernels/local_sums_sm90.sm_90.cubin','/tmp/cb')"
for f in widet_o_1024_3x2 widet_o_768_2x4; do echo "=== $f"; timeout 20 cuobjdump -fun $f -sass /tmp/cb/parreg/kernels/local_sums_sm90.sm_90.cubin; done > $R/s6w2-sass.txt 2>&1
M='--metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__issue_active.avg.per_cycle_active,sm__cycles_elapsed.avg.per_second,smsp__inst_executed_pipe_fp64.sum,smsp__inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum'
for k in widet_o_1024_3x2:1024:widet3x2 widet_o_768_2x4:768:widet2x4; do IFS=: read kn d p <<<"$k"
 timeout 60 ncu --clock-control none -k regex:"^$kn\$" --launch-skip 2 -c 1 --section SpeedOfLight --section WarpStateStats --section SourceCounters --section MemoryWorkloadAnalysis $M -o /tmp/rep_$kn $B bench --d $d --plan-list $p --reps 3 > $R/s6w2-ncu-$kn.txt 2>&1
 timeout 40 ncu -i /tmp/rep_$kn.ncu-rep --page source --csv --print-source sass > /tmp/src_$kn.csv 2>&1
 timeout 20 ncu -i /tmp/rep_$kn.ncu-rep --page details --print-details all >> $R/s6w2-ncu-$kn.txt 2>&1
 date +%T >> $R/s6w2-times.txt
done
tar -C /tmp -czf $R/s6w2-src.tgz src_widet_o_1024_3x2.csv src_widet_o_768_2x4.csv
grep -E "Duration|issue_active|per_second|Throughput" $R/s6w2-ncu-*.txt | head -40; cat $R/s6w2-times.txt
