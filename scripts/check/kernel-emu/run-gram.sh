#!/usr/bin/env bash
# Builds (g++) and runs the host emulation of the statistics kernels (gram.cpp) at a few shapes, or
# at one: scripts/check/kernel-emu/run-gram.sh [D N plain|quad|octet BLOCKLOG]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
kernels="$here/../../../device/src/main/resources/parreg/kernels"
dir="$(mktemp -d "${TMPDIR:-/tmp}/parreg-gram-emu.XXXXXX")"
trap 'rm -rf "$dir"' EXIT
g++ -std=c++20 -O1 -ffp-contract=off -Wno-unknown-pragmas -I "$kernels" "$here/gram.cpp" -o "$dir/gram" -pthread
if [ $# -gt 0 ]; then
  "$dir/gram" "$@"
  exit
fi
# widths not a multiple of 4, n not a multiple of 256, one patch and several, blocks of 1..8 tiles
"$dir/gram" 1 1 plain 0
"$dir/gram" 3 1001 quad 1
"$dir/gram" 5 2049 octet 2
"$dir/gram" 13 3001 plain 3
"$dir/gram" 30 1793 quad 0
"$dir/gram" 61 700 octet 1
"$dir/gram" 87 300 quad 0
"$dir/gram" 90 513 plain 1
"$dir/gram" 130 600 octet 0
"$dir/gram" 40 70001 quad 9
