#!/usr/bin/env bash
# The whole test suite built with AddressSanitizer and UndefinedBehaviorSanitizer (the `sanitize`
# preset of CMakePresets.json, in build-sanitize/): any finding fails. Run after tools/setup.sh has
# installed the packages. Debian's glslang is enough here: lavapipe runs no matrix-hardware kernel
# (the preset leaves the WGSL kernels out: see docs/webgpu.md).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset sanitize -DONEGPU_GLSLANG="$(command -v glslangValidator)" > /dev/null
cmake --build --preset sanitize --parallel "$(nproc)"
ctest --preset sanitize --parallel "$(nproc)" "$@"
