#!/usr/bin/env bash
# Everything a GPU session checks, in one call (see the README): the GPU suites of every
# package, the benchmarks with peers, and the host-mode benchmarks. Logs go to $OUT (or ./gpu-out).
#   bash .devkit/gpu-kit run -- bash tooling/scripts/gpu-run.sh [package,filter]
set -u
usage="it takes one list of packages (name,name,...)"
case "${1:-}" in -*) echo "gpu-run: unknown option $1 ($usage)" >&2; exit 2 ;; esac
[ $# -le 1 ] || { echo "gpu-run: unexpected argument $2 ($usage)" >&2; exit 2; }
out=${OUT:-gpu-out}
mkdir -p "$out"
nvidia-smi --query-gpu=index,name,memory.used,memory.total --format=csv,noheader
node tooling/scripts/test-gpu.mjs ${1:-} > "$out/test-gpu.log" 2>&1
grep -E " FAIL |×" "$out/test-gpu.log" | head -40
sed -n '/^package .*backend/,$p' "$out/test-gpu.log" | tail -15
node tooling/scripts/bench.mjs --json "$out/bench.json" > "$out/bench.log" 2>&1
cat "$out/bench.log"
RMMJS_DISABLE_CUDA=1 node tooling/scripts/bench.mjs --json "$out/bench-host.json" > "$out/bench-host.log" 2>&1
grep -E "DeviceBuffer|SystemMemoryResource +pair" "$out/bench-host.log"
