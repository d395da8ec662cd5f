#!/usr/bin/env bash
# Builds (g++) and runs the host emulation of the kernel bodies (emu.cpp), which checks a kernel
# body bit for bit against the two passes where no card is at hand:
#   scripts/check/kernel-emu/run.sh D N PLAN      e.g. run.sh 1024 40000 widet1024_2x2 (PLAN: emu.cpp)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kernels="$here/../../../device/src/main/resources/parreg/kernels"
# a directory of this run's own: two checkouts emulating at once must not run each other's binary
dir="$(mktemp -d "${TMPDIR:-/tmp}/parreg-kernel-emu.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
bin="$dir/emu"
g++ -std=c++20 -O1 -ffp-contract=off -Wno-unknown-pragmas -I "$kernels" "$here/emu.cpp" -o "$bin" -pthread
"$bin" "$@"
