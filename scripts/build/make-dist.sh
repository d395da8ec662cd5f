#!/usr/bin/env bash
# Builds target/parreg-VERSION-linux-x64.tar.xz from a packaged build (target/parreg.jar and
# target/lib): bin/parreg (dist/bin/parreg: never builds), lib/ (the jars) and runtime/ (a Java
# runtime made by jlink from this JDK, so the machine it is unpacked on needs no JDK).
# Run by `mvn package` (pom.xml; -Dparreg.dist.skip=true leaves it out), or by hand after it.
#
# Size (README, "A distribution"): xz, not gzip. The jars are stored uncompressed inside the
# tarball and the runtime is linked without compression, so that xz compresses across all of
# it: 54 MB, where gzip gets the same files to about 70 MB (87 MB as it was before: deflated
# jars, all of JCuda's natives), too big for the GPU machine's 64 MiB transfer.
#
# Time: xz over ~220 MB costs a few minutes of CPU, so the part that changes only with the
# dependencies, the JDK or this script (runtime/ and the third-party jars) is compressed once and
# kept in target/dist-cache/; each build appends only bin/, lib/parreg.jar and README.md as a
# second xz stream (a tar split in two: the first part without its end-of-archive blocks, so the
# two streams decompress to one archive).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VERSION="${1:?usage: make-dist.sh VERSION}"
T="$HERE/target"
NAME="parreg-$VERSION"
OUT="$T/$NAME-linux-x64.tar.xz"
[ -f "$T/parreg.jar" ] && [ -d "$T/lib" ] || { echo "make-dist: run mvn package first" >&2; exit 1; }
command -v xz >/dev/null || { echo "make-dist: xz is needed (apt-get install xz-utils)" >&2; exit 1; }
JAVA_HOME="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
# The modules jdeps finds in parreg and its jars (jdeps --multi-release 17 --ignore-missing-deps
# --print-module-deps over target/parreg.jar and target/lib/*.jar, 27 s, so not run on every
# build), plus providers jdeps cannot see: jdk.crypto.ec (EC keys: TLS between nodes,
# bin/parreg keys) and jdk.charsets.
MODULES=java.base,java.compiler,java.desktop,java.instrument,java.scripting,java.security.jgss,java.sql.rowset
MODULES=$MODULES,jdk.httpserver,jdk.incubator.vector,jdk.jfr,jdk.management,jdk.net,jdk.unsupported
MODULES=$MODULES,jdk.crypto.ec,jdk.charsets
XZ=(xz -6 -T0)

# Part 1 (cached): runtime/ and lib/ less parreg.jar.
mapfile -t JARS < <(ls "$T"/lib/*.jar | LC_ALL=C sort)
KEY=$( { echo "$NAME $MODULES"; cat "$JAVA_HOME/release" 2>/dev/null; "$JAVA_HOME/bin/java" -version 2>&1;
         cat "${BASH_SOURCE[0]}" "$HERE/scripts/build/StoreJars.java"; sha256sum "${JARS[@]}" | sed 's| .*/| |'; } \
       | sha256sum | cut -c1-16)
CACHE="$T/dist-cache/$KEY.tar.xz"
if [ ! -f "$CACHE" ]; then
  echo "make-dist: linking the runtime and compressing the dependencies (once per dependency set)..." >&2
  rm -rf "$T/dist-cache"
  S="$T/dist-cache/stage"
  mkdir -p "$S/$NAME"
  STRIP=()
  command -v objcopy >/dev/null && STRIP=(--strip-native-debug-symbols "objcopy=$(command -v objcopy)")
  # --generate-cds-archive: the runtime's own class-data archive of the JDK classes (lib/server/
  # classes*.jsa, as a JDK has; +4.4 MB in the tarball), which the JVM maps at start instead of
  # loading those classes from the modules image, and which bin/parreg cds-archive builds on.
  "$JAVA_HOME/bin/jlink" --add-modules "$MODULES" --strip-debug "${STRIP[@]}" --no-header-files \
      --no-man-pages --compress=0 --generate-cds-archive --output "$S/$NAME/runtime" 2>&1 | grep -v 'incubator modules' >&2 || true
  [ -x "$S/$NAME/runtime/bin/java" ] || { echo "make-dist: jlink failed" >&2; exit 1; }
  "$JAVA_HOME/bin/java" "$HERE/scripts/build/StoreJars.java" "$S/$NAME/lib" "${JARS[@]}"
  tar -C "$S" --owner=0 --group=0 --numeric-owner -b1 -cf "$S/part1.tar" "$NAME"
  # -b1: the archive ends in exactly two 512-byte zero blocks; drop them (checked) so that part 2
  # continues the archive.
  [ "$(tail -c 1024 "$S/part1.tar" | tr -d '\0' | wc -c)" = 0 ] || { echo "make-dist: unexpected tar end" >&2; exit 1; }
  truncate -s -1024 "$S/part1.tar"
  "${XZ[@]}" -c "$S/part1.tar" > "$CACHE.tmp"
  mv "$CACHE.tmp" "$CACHE"
  rm -rf "$S"
fi

# Part 2 (every build): the launcher, the product jar and the README.
S2="$T/dist"
rm -rf "$S2"
mkdir -p "$S2/$NAME/bin" "$S2/$NAME/lib"
cp "$HERE/dist/bin/parreg" "$S2/$NAME/bin/parreg"
chmod 755 "$S2/$NAME/bin/parreg"
cp "$T/parreg.jar" "$S2/$NAME/lib/"
cp "$HERE/README.md" "$S2/$NAME/"
tar -C "$S2" --owner=0 --group=0 --numeric-owner -cf - "$NAME/bin" "$NAME/lib/parreg.jar" "$NAME/README.md" \
  | "${XZ[@]}" > "$S2/part2.tar.xz"
cat "$CACHE" "$S2/part2.tar.xz" > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
rm -rf "$S2"
# In MB of 10^6 bytes, as the docs state it (du -m would round MiB up: 52 for 54.1 MB).
echo "make-dist: $OUT ($(stat -c %s "$OUT" | awk '{printf "%.1f MB, %d bytes", $1 / 1e6, $1}'))"
