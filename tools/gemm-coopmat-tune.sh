#!/usr/bin/env bash
# On the GPU machine (see docs/gpu-machine.md): for each cooperative-matrix tile of
# src/kernels/gemm/gemm_plan.h, the Gemm tests and the float16 benchmark rows, to choose the default
# tile for a GPU.   TILES="0 3" tools/gemm-coopmat-tune.sh   (logs under $OUT)
# ROWS="gemm bfloat16" times the bfloat16 rows instead (a tile number forces the bfloat16 tile of
# the same shape for them).
# TESTS=0 skips the Gemm tests (the workgroup-scope tiles compile slowly: about 90 s of tests each
# on the H200).
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
. .device/on-device.sh > /dev/null 2>&1
export GLIBC_TUNABLES=glibc.rtld.optional_static_tls=4096 ONEGPU_REQUIRE_DEVICE=1
out=${OUT:-/tmp/onegpu-out}
mkdir -p "$out"
for t in ${TILES:-4 5 6 0 1}; do
  echo "tile $t"
  if [[ ${TESTS:-1} != 0 ]]; then
    ONEGPU_GEMM_COOPMAT_TILE=$t build-device/tests/onegpu_kernel_tests --gtest_filter='GemmTest.*' > "$out/t$t.log" 2>&1
    echo "tests rc=$? $(grep -E '^\[  (PASSED|FAILED) ' "$out/t$t.log" | tr '\n' ' ')"
  fi
  ONEGPU_KERNEL_STATISTICS=1 ONEGPU_GEMM_COOPMAT_TILE=$t build-device/bench/onegpu-bench --family gemm --filter "${ROWS:-gemm float16}" 2>&1 |
    python3 -c '
import json, sys
for line in sys.stdin:
    if line.startswith("{"):
        r = json.loads(line)
        print(r["shape"], r["variant"], round(r["ms"], 4), round(r.get("tflops", 0), 1))
    elif "gemm.coopmat" in line or not line.startswith("onegpu: kernel"):
        print(line.strip())'
done
