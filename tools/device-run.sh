#!/usr/bin/env bash
# On the GPU machine (see docs/gpu-machine.md): the whole suite with the validation layer, then the
# benchmarks and the PyTorch comparison. Writes logs and results under $OUT.
#   tools/device-run.sh [tests|bench|all] [onegpu-bench arguments...] [-- more onegpu-bench arguments...]
# Each group of benchmark arguments separated by "--" is one onegpu-bench run; the rows are collected.
set -uo pipefail
what=${1:-all}
shift || true
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
. .device/on-device.sh
export GLIBC_TUNABLES=glibc.rtld.optional_static_tls=4096
out=${OUT:-/tmp/onegpu-out}
mkdir -p "$out"
build=build-device
status=0
if [[ $what == tests || $what == all ]]; then
  export ONEGPU_REQUIRE_DEVICE=1 ONEGPU_GEMM_FULL=1
  for t in onegpu_unit_tests onegpu_device_tests onegpu_kernel_tests; do
    "$build/tests/$t" > "$out/$t.log" 2>&1 || status=1
    printf '%-22s %s\n' "$t" "$(grep -E '^\[  (PASSED|FAILED) ' "$out/$t.log" | tr '\n' ' ')"
  done
  grep -h -E '^\[ accuracy \]' "$out"/*.log || true
  grep -h -B2 -A8 'Failure' "$out"/*.log | head -80 || true
fi
if [[ $what == bench || $what == all ]]; then
  : > "$out/ours.jsonl"
  group=()
  for arg in "$@" --; do
    if [[ $arg != -- ]]; then group+=("$arg"); continue; fi
    "$build/bench/onegpu-bench" "${group[@]}" >> "$out/ours.jsonl" 2>> "$out/bench.err" || { status=1; cat "$out/bench.err"; }
    group=()
  done
  python3 bench/torch_compare.py "$out/ours.jsonl" --json "$out/compare.jsonl" --markdown "$out/compare.md" || status=1
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
exit $status
