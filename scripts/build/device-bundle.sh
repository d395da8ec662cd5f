#!/usr/bin/env bash
# Builds what the GPU machine needs (it has no Java and no Maven): the distribution tarball that
# `mvn package` makes (scripts/build/make-dist.sh: bin/parreg, lib/, a jlink'd runtime), plus what only
# the GPU tests need, and the device command lines:
#   OUT/parreg-VERSION-linux-x64.tar.xz   the distribution, as a user gets it
#   OUT/test/                             the test classes as a jar and the JUnit platform jars
#                                         (with the comparison kernels the parity tests force)
#   OUT/bench/parreg-bench.jar            the benchmarks (mvn -Pbench; not in the distribution)
#   OUT/scripts/                          run-gpu.sh (the device command lines) and bench_torch.py
# About 40 MB, within the 64 MiB the device tool carries together with the source tree.
# Usage: [SLIM=1] scripts/build/device-bundle.sh [OUT]   (default /work/main/.device-bundle, ignored by git
# there; SLIM=1: only what the GPU tests and benchmarks need, below)
# Then, from the lead's checkout: device run with carry [".device-bundle"] and the command lines
# of docs/GPU.md. (FULL=1 of earlier versions is no longer needed: the distribution runs whole nodes.)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-/work/main/.device-bundle}"
cd "$root"
mvn -q -B -o -Pbench package -DskipTests
mvn -q -B -o test-compile
version=$(sed -n 's|^  <version>\(.*\)</version>|\1|p' pom.xml | head -1)
dist="target/parreg-$version-linux-x64.tar.xz"
[ -f "$dist" ] && [ "$dist" -nt target/parreg.jar ] || { echo "device-bundle: no fresh $dist (was -Dparreg.dist.skip set?)" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out/test" "$out/scripts" "$out/bench"
cp "$dist" "$out/"
cp target/parreg-bench.jar "$out/bench/"
(cd target/test-classes && jar --create --file "$out/test/parreg-tests.jar" .)
cp=$(mvn -q -B -o dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=/dev/stdout)
IFS=':' read -r -a jars <<< "$cp"
for j in "${jars[@]}"; do
  case "$(basename "$j")" in
    junit-jupiter-api-*|junit-jupiter-engine-*|junit-jupiter-params-*|junit-platform-commons-*|\
    junit-platform-engine-*|junit-platform-launcher-*|opentest4j-*|apiguardian-api-*)
      cp "$j" "$out/test/" ;;
  esac
done
cp scripts/bench/bench_torch.py "$out/scripts/"
if [ "${SLIM:-0}" = 1 ]; then
  # SLIM=1: what the GPU tests and benchmarks need (~25 MB instead of ~40), so that the bundle and
  # the source tree (~38 MB with the checked-in PTX and cubins) fit the device tool's 64 MiB
  # carry: lib/ cut to parreg.jar, JCuda and logging, no class-data archive, no AWT libraries,
  # xz -9. Not a distribution to hand out: bin/parreg's node commands need the rest of lib/.
  tb="$out/$(basename "$dist")"
  slim="$(mktemp -d)"
  tar -C "$slim" -xJf "$tb"
  top=$(ls "$slim")
  find "$slim/$top/lib" -type f ! -name 'parreg*.jar' ! -name 'jcuda*' ! -name 'slf4j*' ! -name 'logback*' -delete
  find "$slim/$top/runtime" -name '*.jsa' -delete
  (cd "$slim/$top/runtime/lib" && rm -f libawt*.so libmlib_image.so libfontmanager.so libjavajpeg.so \
    liblcms.so libsplashscreen.so libfreetype.so libjsound.so)
  tar -C "$slim" -cf - "$top" | xz -9 -T2 > "$tb"
  rm -rf "$slim"
fi
cat > "$out/scripts/run-gpu.sh" <<'RUN'
#!/usr/bin/env bash
# Runs on the GPU machine from the repository root: .device-bundle/scripts/run-gpu.sh WHAT [ARGS]
#   tests  [classes...]   the GPU tests (GpuTestMain; default: package parreg.device.cuda + golden)
#   bench  [args...]      GpuGradientBench (bench/parreg-bench.jar)
#   gram   [args...]      GpuGramBench (bench/parreg-bench.jar) (the exact solver's statistics pass on the card)
#   load   [args...]      GpuLoadBench (bench/parreg-bench.jar) (start-up: read, digest, open, convert + upload)
#   torch  [args...]      scripts/bench_torch.py (a copy of scripts/bench/bench_torch.py)
#   parreg [args...]      the distribution's bin/parreg (e.g. parreg demo --backend cuda)
# The distribution tarball is unpacked into $DIST_DIR (default /tmp/parreg-dist) on first use
# (again when the tarball changed); everything runs on its bundled Java runtime.
set -euo pipefail
B="$(cd "$(dirname "$0")/.." && pwd)"
D="${DIST_DIR:-/tmp/parreg-dist}"
tarball=$(ls "$B"/parreg-*-linux-x64.tar.xz | head -1)
sum=$(cksum < "$tarball")
if [ "$(cat "$D/.unpacked-from" 2>/dev/null)" != "$sum" ]; then
  rm -rf "$D" && mkdir -p "$D" && tar -C "$D" -xJf "$tarball" && echo "$sum" > "$D/.unpacked-from"
fi
H=$(ls -d "$D"/parreg-*/ | head -1); H="${H%/}"
JAVA="$H/runtime/bin/java"
CP="$H/lib/*"
what="${1:-tests}"; shift || true
case "$what" in
  tests) exec "$JAVA" -Xmx48g -Djava.io.tmpdir=/tmp -cp "$CP:$B/test/*" parreg.device.cuda.GpuTestMain "$@" ;;
  bench) exec "$JAVA" -Xmx48g -cp "$CP:$B/bench/*" parreg.bench.GpuGradientBench "$@" ;;
  gram) exec "$JAVA" -Xmx48g --add-modules jdk.incubator.vector -cp "$CP:$B/bench/*" parreg.bench.GpuGramBench "$@" ;;
  load) exec "$JAVA" -Xmx48g -XX:+UseSerialGC --add-modules jdk.incubator.vector -cp "$CP:$B/bench/*" parreg.bench.GpuLoadBench "$@" ;;
  torch) exec python3 "$B/scripts/bench_torch.py" "$@" ;;
  # The launcher's JVM options (C1 only: a node reaches its steady state within a few hundred
  # steps), unless PARREG_JAVA_OPTS says otherwise (e.g. adding -Dparreg.step-trace=PREFIX).
  parreg)
    # Once per unpacked tarball: the class-data archive of a node's classes, which Java 17 ties to
    # the folder it is written in, so it cannot travel in the tarball (bin/parreg cds-archive).
    [ -f "$H/lib/parreg.jsa" ] || "$H/bin/parreg" cds-archive >&2 || true
    exec "$H/bin/parreg" "$@" ;;
  *) echo "usage: run-gpu.sh tests|bench|gram|load|torch|parreg [args]" >&2; exit 2 ;;
esac
RUN
chmod +x "$out/scripts/run-gpu.sh"
du -sh "$out"
du -ah "$out" | sort -h | tail -6
