#!/usr/bin/env bash
# Builds what the GPU machine needs to run the GPU tests and the benchmark (it has no Java):
#   OUT/parreg.jar            the product jar (kernels' PTX inside)
#   OUT/lib/                  JCuda (driver binding; natives trimmed to libJCudaDriver) and,
#                             with FULL=1, every runtime dependency (too big for one device call:
#                             the travelling tree is limited to 64 MiB)
#   OUT/test/                 the test classes as a jar and the JUnit platform jars
#   OUT/jre.tar.xz            a jlink'd Java runtime (modules checked with jdeps)
#   OUT/scripts/              bench_torch.py and run-gpu.sh (the device command lines)
# Usage: scripts/device-bundle.sh [OUT]   (default /work/main/.device-bundle, ignored by git there)
# Then, from the lead's checkout: device run with carry [".device-bundle"] and the command lines
# of docs/GPU.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-/work/main/.device-bundle}"
m2="${M2_REPO:-$HOME/.m2/repository}"
cd "$root"
mvn -q -B -o package -DskipTests
mvn -q -B -o test-compile
rm -rf "$out"
mkdir -p "$out/lib" "$out/test" "$out/scripts"
cp target/parreg.jar "$out/"
if [ "${FULL:-0}" = "1" ]; then
  # Whole nodes (the two-node CUDA demo): every runtime jar, unpacked and packed with xz so that
  # the bundle fits the device's 64 MiB transfer (jars are already deflated; xz over the unpacked
  # classes is about 2.5x smaller). Each jar keeps its own folder: Pekko's reference.conf files
  # must not overwrite each other.
  mkdir -p "$out/tmp-libx"
  for j in target/lib/*.jar; do
    b="$(basename "$j" .jar)"
    case "$b" in jcuda-natives-*) continue ;; esac
    mkdir -p "$out/tmp-libx/$b" && (cd "$out/tmp-libx/$b" && unzip -q -o "$root/$j")
  done
  tar -C "$out/tmp-libx" -cJf "$out/libx.tar.xz" .
  rm -rf "$out/tmp-libx"
fi
cp target/lib/jcuda-12.0.0.jar "$out/lib/"
# JCuda's natives jar holds NVRTC, the runtime API and the PTX compiler too (26 MB unpacked);
# the backend needs only the driver binding.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && unzip -q "$root/target/lib/jcuda-natives-12.0.0-linux-x86_64.jar" \
  'lib/libJCudaDriver-12.0.0-linux-x86_64.so' 'META-INF/MANIFEST.MF' \
  && jar --create --file "$out/lib/jcuda-natives-12.0.0-linux-x86_64.jar" --manifest META-INF/MANIFEST.MF lib)
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
# Modules: DEVICE.md's list for the whole product, plus whatever jdeps finds in what travels.
mods="java.base,java.logging,java.management,java.naming,java.sql,jdk.unsupported,java.xml,jdk.zipfs,jdk.httpserver,java.net.http,jdk.incubator.vector,jdk.jfr"
found=$(jdeps --multi-release 17 --ignore-missing-deps --print-module-deps \
  --class-path "$out/lib/*:$out/test/*" "$out/parreg.jar" "$out"/lib/*.jar "$out"/test/*.jar 2>/dev/null \
  | grep -E '^[a-z][a-z0-9.]*(,[a-z][a-z0-9.]*)*$' | tail -1 || true)
echo "device-bundle: jdeps says: ${found:-?}"
if [ -n "$found" ]; then
  mods="$mods,$found"
fi
rm -rf "$tmp/jre"
jlink --add-modules "$mods" --strip-debug --no-header-files --no-man-pages --compress=2 --output "$tmp/jre" 2>/dev/null
tar -C "$tmp" -cJf "$out/jre.tar.xz" jre
cp scripts/bench_torch.py "$out/scripts/"
cat > "$out/scripts/run-gpu.sh" <<'RUN'
#!/usr/bin/env bash
# Runs on the GPU machine from the repository root: .device-bundle/scripts/run-gpu.sh WHAT [ARGS]
#   tests  [classes...]   the GPU tests (GpuTestMain; default: package parreg.device.cuda + golden)
#   bench  [args...]      GpuGradientBench
#   load   [args...]      GpuLoadBench (start-up: read, digest, open, convert + upload)
#   torch  [args...]      scripts/bench_torch.py
set -euo pipefail
B="$(cd "$(dirname "$0")/.." && pwd)"
JRE="${JRE_DIR:-/tmp/parreg-jre}"
if [ ! -x "$JRE/jre/bin/java" ]; then
  mkdir -p "$JRE" && tar -C "$JRE" -xJf "$B/jre.tar.xz"
fi
JAVA="$JRE/jre/bin/java"
CP="$B/parreg.jar:$B/lib/*"
what="${1:-tests}"; shift || true
case "$what" in
  tests) exec "$JAVA" -Xmx48g -Djava.io.tmpdir=/tmp -cp "$CP:$B/test/*" parreg.device.cuda.GpuTestMain "$@" ;;
  bench) exec "$JAVA" -Xmx48g -cp "$CP" parreg.bench.GpuGradientBench "$@" ;;
  load) exec "$JAVA" -Xmx48g -XX:+UseSerialGC --add-modules jdk.incubator.vector -cp "$CP" parreg.bench.GpuLoadBench "$@" ;;
  torch) exec python3 "$B/scripts/bench_torch.py" "$@" ;;
  parreg)
    # Whole parreg (needs a FULL=1 bundle): unpack the runtime classes once, then run the CLI.
    LIBX="${LIBX_DIR:-/tmp/parreg-libx}"
    if [ ! -d "$LIBX" ]; then mkdir -p "$LIBX" && tar -C "$LIBX" -xJf "$B/libx.tar.xz"; fi
    FULLCP="$B/parreg.jar:$B/lib/*"
    for d in "$LIBX"/*/; do FULLCP="$FULLCP:${d%/}"; done
    # The JVM options of bin/parreg (C1 only: a node reaches its steady state within a few hundred
    # steps; transparent huge pages for the partition's heap array), unless PARREG_JAVA_OPTS says
    # otherwise (e.g. adding -Dparreg.step-trace=PREFIX).
    exec "$JAVA" ${PARREG_JAVA_OPTS:--XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:+UseTransparentHugePages} --add-modules jdk.incubator.vector -cp "$FULLCP" parreg.cli.Main "$@" ;;
  *) echo "usage: run-gpu.sh tests|bench|load|torch|parreg [args]" >&2; exit 2 ;;
esac
RUN
chmod +x "$out/scripts/run-gpu.sh"
du -sh "$out"
du -ah "$out" | sort -h | tail -8
