#!/usr/bin/env bash
# On the GPU machine: the Gemm tests and the float16 benchmark rows for each cooperative-matrix tile
# of gemm_plan.h (ONEGPU_GEMM_COOPMAT_TILE), to choose the default tile for a GPU.
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
. .device/on-device.sh >/dev/null 2>&1
export GLIBC_TUNABLES=glibc.rtld.optional_static_tls=4096 ONEGPU_REQUIRE_DEVICE=1
for t in ${TILES:-0 1 2 3}; do
  ONEGPU_GEMM_COOPMAT_TILE=$t build-device/tests/onegpu_kernel_tests --gtest_filter='GemmTest.*' > $OUT/t$t.log 2>&1; echo "tile $t tests rc=$? $(grep -E 'PASSED|FAILED' $OUT/t$t.log | head -3 | tr '\n' ' ')"
  ONEGPU_GEMM_COOPMAT_TILE=$t build-device/bench/onegpu-bench --family gemm --filter "gemm float16" --settle-ms 500 2>&1 | python3 -c "
import sys,json
for l in sys.stdin:
  if l.startswith('{'):
    r=json.loads(l); print(r['shape'], r['variant'], round(r['ms'],4), round(r.get('tflops',0),1))
  else: print(l.strip())"
done
