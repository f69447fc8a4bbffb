#!/usr/bin/env bash
# Installs the Debian 12 packages the build and the tests need (only those missing), then
# configures and builds into ./build. Run as root on a fresh machine; later runs are quick.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers
          glslang-tools libgtest-dev libbenchmark-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "onegpu: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release ${ONEGPU_CMAKE_ARGS:-}
cmake --build build --parallel "$(nproc)"
