#!/usr/bin/env bash
# light bundle: runtime unpacked once into /tmp/w6rt; lib/ cut to parreg + jcuda + slf4j + logback;
# old/: the sm90 kernels of main (PTX + cubin) in a jar put first on the class path (benchold)
set -euo pipefail
B="$(cd "$(dirname "$0")/.." && pwd)"
R=/tmp/w6rt
[ -x $R/runtime/bin/java ] || { mkdir -p $R && tar -C $R -xJf $B/rt.tar.xz; }
JAVA=$R/runtime/bin/java
what="$1"; shift
case "$what" in
  tests) exec $JAVA -Xmx48g -Djava.io.tmpdir=/tmp -cp "$B/lib/*:$B/test/*" parreg.device.cuda.GpuTestMain "$@" ;;
  bench) exec $JAVA -Xmx48g -cp "$B/lib/*" parreg.bench.GpuGradientBench "$@" ;;
  benchold) exec $JAVA -Xmx48g -cp "$B/old/*:$B/lib/*" parreg.bench.GpuGradientBench "$@" ;;
esac
