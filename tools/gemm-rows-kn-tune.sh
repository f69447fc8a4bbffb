#!/usr/bin/env bash
# On the GPU machine (see docs/gpu-machine.md): the few-rows GEMM with 16-bit B stored K x N under
# each kernel and k split, to choose the policy for a GPU. Each setting is KERNEL[:SPLITS]: KERNEL
# old (one element per invocation), kn64 or kn256 (16-byte words, 64 or 256 columns per
# workgroup), SPLITS the k ranges of the word kernels (1: none; unset: the policy's).
#   SETTINGS="old kn64 kn64:2 kn256:4" tools/gemm-rows-kn-tune.sh
# ROWS: the benchmark rows, filters separated by "|" (default: 1 x 51865 x 768 float16 and
# bfloat16, 4 x 51865 x 768 float16).
# The driver's figures (registers, memory) of each few-rows kernel are printed through
# ONEGPU_KERNEL_STATISTICS. The kernel tests cover every form and forced ranges in one run
# (onegpu_kernel_tests --gtest_filter='*FewRows*'), so they are not repeated per setting.
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
. .device/on-device.sh > /dev/null 2>&1
export GLIBC_TUNABLES=glibc.rtld.optional_static_tls=4096 ONEGPU_REQUIRE_DEVICE=1
IFS='|' read -r -a rows <<< "${ROWS:-gemm float16 1x51865x768|gemm bfloat16 1x51865x768|gemm float16 4x51865x768}"
for setting in ${SETTINGS:-old kn64 kn64:2 kn64:4 kn256:1 kn256 kn256:4 kn256:8}; do
  kernel=${setting%%:*}
  splits=
  [[ $setting == *:* ]] && splits=${setting#*:}
  echo "setting $setting"
  for filter in "${rows[@]}"; do
    ONEGPU_KERNEL_STATISTICS=1 ONEGPU_GEMM_ROWS_KN=$kernel ONEGPU_GEMM_ROWS_KN_SPLITS=$splits \
      build-device/bench/onegpu-bench --family gemm \
      --filter "$filter" --pass-times 2>&1 |
      python3 -c '
import json, sys
for line in sys.stdin:
    if line.startswith("{"):
        r = json.loads(line)
        print(r["dtype"], r["shape"], r["variant"], round(r["ms"], 4), r.get("pass_ms", ""))
    elif "gemm.rows" in line or not line.startswith("onegpu: kernel"):
        print(line.strip())'
  done
done
