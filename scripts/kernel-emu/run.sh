#!/usr/bin/env bash
# Builds and runs the host emulation (emu.cpp): run.sh D N deep|narrow24|narrow32|narrow48|narrow64|narrow24u1|narrow32u1
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kernels="$here/../../device/src/main/resources/parreg/kernels"
# a directory of this run's own: two checkouts emulating at once must not run each other's binary
dir="$(mktemp -d "${TMPDIR:-/tmp}/parreg-kernel-emu.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
bin="$dir/emu"
g++ -std=c++20 -O1 -ffp-contract=off -Wno-unknown-pragmas -I "$kernels" "$here/emu.cpp" -o "$bin" -pthread
"$bin" "$@"
