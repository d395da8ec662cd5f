#!/usr/bin/env bash
# issue 15, ninth session, call 5: where a widet chain's ~10 cycles a feature go: the SASS of
# widet_o_1024_3x2 (cuobjdump of the shipped cubin) and ncu's per-instruction stall samples
export DIST_DIR=/tmp/parreg-dist-widec
B=.kb-widec/scripts/run-gpu.sh
R=$OUT
$B bench --d 1024 --reps 1 > /dev/null 2>&1  # unpacks the distribution
H=$(ls -d $DIST_DIR/parreg-*/ | head -1)
python3 -c "import zipfile,sys; sys.stdout.buffer.write(zipfile.ZipFile('$H/lib/parreg.jar').read('parreg/kernels/local_sums_sm90.sm_90.cubin'))" > /tmp/k.cubin
{ which cuobjdump nvdisasm ncu; ls /usr/local/cuda*/bin 2>/dev/null | head -40; } > $R/s9c5-tools.txt 2>&1
CU=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
[ -n "$CU" ] && $CU -sass -fun widet_o_1024_3x2 /tmp/k.cubin > $R/s9c5-sass-widet_o_1024_3x2.txt 2>&1
timeout 120 ncu --clock-control none -k regex:"^widet_o_1024_3x2\$" --launch-skip 2 -c 1 --section SourceCounters --section WarpStateStats --page source --print-source sass --csv $B bench --d 1024 --reps 3 > $R/s9c5-ncu-source.csv 2>&1
ls -la $R; wc -l $R/*; head -c 1500 $R/s9c5-ncu-source.csv
