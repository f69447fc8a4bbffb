#!/usr/bin/env bash
# Installs the Debian 12 packages the build and the tests need (only those missing), then
# configures and builds into ./build. Run as root on a fresh machine; later runs are quick.
set -euo pipefail
cd "$(dirname "$0")/.."

# libpng-dev: the golden-image tests (linked into the tests only); libxcb1-dev: window-system
# surfaces; xvfb: the surface test's virtual X display.
packages=(cmake ninja-build g++ libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers
          glslang-tools libgtest-dev libbenchmark-dev libpng-dev libxcb1-dev xvfb)
# One dpkg-query for all of them; a package dpkg has never heard of prints nothing and is missing.
installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null |
            awk '$NF == "installed" && $(NF-1) == "ok" {sub(/:.*/, "", $1); print $1}' || true)
missing=()
for p in "${packages[@]}"; do
  grep -qx "$p" <<<"$installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "onegpu: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# WebGPU: Dawn's C library (from npm; no Debian package fits this glibc) and a lavapipe new
# enough for Dawn (Mesa 25 from bookworm-backports, unpacked into .deps/ beside the system Mesa,
# which the Vulkan tests keep using). ONEGPU_SKIP_WEBGPU=1 leaves both out.
if [[ "${ONEGPU_SKIP_WEBGPU:-0}" != 1 ]]; then
  tools/setup-webgpu.sh
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release ${ONEGPU_CMAKE_ARGS:-}
cmake --build build --parallel "$(nproc)"
