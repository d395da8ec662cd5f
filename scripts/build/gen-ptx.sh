#!/usr/bin/env bash
# Regenerates the PTX of the CUDA kernels from their sources, each beside its .cu:
#   device/src/main/resources/parreg/kernels/local_sums.cu          the product's kernels
#   bench/src/main/resources/parreg/bench/kernels/comparison_sums.cu the benchmark's comparison kernels
# Both include device/src/main/resources/parreg/kernels/local_sums.cuh (the kernel bodies, one header
# per family under local_sums/).
#   device/src/main/resources/parreg/kernels/gram_stats.cu          the exact solver's statistics
# (over gram_stats.cuh),
# and, for the product's kernels, the SASS of that PTX for the cards it is used on most
#   device/src/main/resources/parreg/kernels/local_sums.sm_90.cubin  (H100/H200: compute capability 9.0)
# which a node loads instead of the PTX when the card's compute capability matches (CudaCard), so
# that a first start does not wait seconds for the driver to compile the PTX. The cubin is ptxas's
# compilation of the very PTX shipped (no other flags: the PTX spells out every rounding), so the
# kernels are the same either way; any other card, or a driver that refuses the cubin, gets the PTX.
# Usage: ONLY='NAME ...' scripts/build/gen-ptx.sh [OUTDIR]   (ONLY: those modules alone, e.g. ONLY=gram_stats)
# Usage: scripts/build/gen-ptx.sh [OUTDIR]   (default: the checked-in files; with OUTDIR, the PTX and cubin
# files are written there instead, under their own names, for PtxMatchesSourceTest)
#
# No fast math anywhere: -ftz=false -prec-div=true -prec-sqrt=true -fmad=false (and the source
# writes every operation as an explicit round-to-nearest intrinsic). compute_75 is the oldest
# target nvcc 13 still accepts; the driver JIT-compiles the PTX for the card it runs on.
#
# nvcc 13 stamps the PTX with ISA ".version 9.0", which only CUDA 13 drivers load. The kernels
# use nothing newer than PTX ISA 6.5 (shfl.sync, atom.add.f64, cvt), so the script lowers the
# stamp to ".version 8.0" (CUDA 12.0, the driver generation JCuda 12 needs anyway) and, where
# ptxas is present, checks that the lowered PTX still assembles for sm_75 and sm_90.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
kernels="$root/device/src/main/resources/parreg/kernels"
sources=("$kernels/local_sums.cu" "$kernels/local_sums_sm90.cu" "$kernels/gram_stats.cu" "$root/bench/src/main/resources/parreg/bench/kernels/comparison_sums.cu")
if [ -n "${ONLY:-}" ]; then
  # ONLY: the modules named (space-separated), e.g. the product's three for PtxMatchesSourceTest
  sources=()
  for name in $ONLY; do
    if [ "$name" = comparison_sums ]; then
      sources+=("$root/bench/src/main/resources/parreg/bench/kernels/comparison_sums.cu")
    else
      sources+=("$kernels/$name.cu")
    fi
  done
fi
outdir="${1:-}"
NVCC="${NVCC:-nvcc}"
PTX_ISA="8.0"
SASS_ARCHS=(sm_90)      # cubins beside the product's PTX
PTXAS="${PTXAS:-ptxas}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# One module: nvcc, the lowered stamp, ptxas checks, and the product's cubins. The three modules
# build in parallel (nvcc is single-threaded; the comparison module alone takes ~5 minutes), each
# in a temporary folder of its own.
build() {
  local src="$1" name out arch archs a cubin tmp
  name="$(basename "$src" .cu)"
  tmp="$work/$name"
  mkdir -p "$tmp"
  if [ -n "$outdir" ]; then out="$outdir/$name.ptx"; else out="${src%.cu}.ptx"; fi
  # local_sums_sm90.cu: bulk copies and transaction barriers (PTX ISA 8.0, sm_90), for the cards
  # of compute capability 9.0 and newer only (CudaCard loads it there; every other card never sees it)
  arch=compute_75; archs=(sm_75 sm_90)
  if [ "$name" = "local_sums_sm90" ]; then arch=compute_90; archs=(sm_90); fi
  "$NVCC" -ptx -arch=$arch -ftz=false -prec-div=true -prec-sqrt=true -fmad=false \
    -I "$kernels" "$src" -o "$tmp/raw.ptx"
  if ! grep -q '^\.version ' "$tmp/raw.ptx"; then
    echo "gen-ptx: no .version line in nvcc output for $src" >&2
    exit 1
  fi
  # nvcc 13 may annotate a vector load of which only some bytes are used with
  # '.pragma "used_bytes_mask N";' (PTX ISA 8.3): a hint to ptxas, dropped with the ISA stamp
  # (nvcc writes one where a kernel uses only part of a vector it loads)
  sed -E -e "s/^\.version [0-9]+\.[0-9]+$/.version $PTX_ISA/" -e '/^[[:space:]]*\.pragma "used_bytes_mask [0-9]+";$/d' \
    "$tmp/raw.ptx" > "$tmp/out.ptx"
  if command -v ptxas >/dev/null 2>&1; then
    for a in "${archs[@]}"; do
      ptxas -arch="$a" "$tmp/out.ptx" -o "$tmp/check-$a.cubin"
    done
  fi
  mv "$tmp/out.ptx" "$out"
  echo "gen-ptx: wrote $out (PTX ISA $PTX_ISA, $(wc -c < "$out") bytes)"
  if [ "$name" = "local_sums" ] || [ "$name" = "local_sums_sm90" ] || [ "$name" = "gram_stats" ]; then
    for arch in "${SASS_ARCHS[@]}"; do
      cubin="${out%.ptx}.$arch.cubin"
      if [ "$PTXAS" = ptxas ] && [ -f "$tmp/check-$arch.cubin" ]; then
        # the check above already assembled this very PTX for this arch (a ptxas run of about 10 s)
        mv "$tmp/check-$arch.cubin" "$cubin"
      else
        "$PTXAS" -arch="$arch" "$out" -o "$tmp/out.cubin"
        mv "$tmp/out.cubin" "$cubin"
      fi
      echo "gen-ptx: wrote $cubin (SASS of that PTX, $(wc -c < "$cubin") bytes)"
    done
  fi
}
pids=()
for src in "${sources[@]}"; do
  build "$src" &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
  wait "$pid" || status=1
done
exit $status
