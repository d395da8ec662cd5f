#!/usr/bin/env bash
# Builds target/parreg-VERSION-linux-x64.tar.gz from a packaged build (target/parreg.jar and
# target/lib): bin/parreg (dist/bin/parreg: never builds), lib/ (every jar) and runtime/ (a Java
# runtime made by jlink from this JDK, so the machine it is unpacked on needs no JDK).
# Run by `mvn package -Pdist` (pom.xml), or by hand after `mvn package`.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VERSION="${1:?usage: make-dist.sh VERSION}"
T="$HERE/target"
NAME="parreg-$VERSION"
STAGE="$T/dist/$NAME"
[ -f "$T/parreg.jar" ] && [ -d "$T/lib" ] || { echo "make-dist: run mvn package first" >&2; exit 1; }
JAVA_HOME="${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}"
rm -rf "$T/dist"
mkdir -p "$STAGE/bin" "$STAGE/lib"
cp "$HERE/dist/bin/parreg" "$STAGE/bin/parreg"
chmod 755 "$STAGE/bin/parreg"
cp "$T/parreg.jar" "$T"/lib/*.jar "$STAGE/lib/"
# The modules jdeps finds in parreg and its jars (jdeps --print-module-deps over target/parreg.jar
# and target/lib/*.jar, 27 s, so not run on every build), plus providers jdeps cannot see:
# jdk.crypto.ec (EC keys: TLS between nodes, bin/parreg keys) and jdk.charsets.
MODULES=java.base,java.compiler,java.desktop,java.instrument,java.scripting,java.security.jgss,java.sql.rowset
MODULES=$MODULES,jdk.httpserver,jdk.incubator.vector,jdk.jfr,jdk.management,jdk.net,jdk.unsupported
MODULES=$MODULES,jdk.crypto.ec,jdk.charsets
"$JAVA_HOME/bin/jlink" --add-modules "$MODULES" --strip-debug --no-header-files --no-man-pages \
    --output "$STAGE/runtime"
cp "$HERE/README.md" "$STAGE/"
tar -C "$T/dist" -czf "$T/$NAME-linux-x64.tar.gz" "$NAME"
echo "make-dist: $T/$NAME-linux-x64.tar.gz ($(du -h "$T/$NAME-linux-x64.tar.gz" | cut -f1))"
