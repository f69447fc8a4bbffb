#!/usr/bin/env bash
# Fetches what the WebGPU backend's tests need into .deps/ (each part skipped when present):
#   .deps/dawn/<version>/libwebgpu_wrapper.so   Dawn's webgpu.h library, from the npm package
#   .deps/mesa25/                               bookworm-backports' lavapipe and its libdrm,
#   .deps/mesa25/lvp_icd.json                   and an ICD file naming it by absolute path.
#   .deps/naga-wasm/<version>/                   naga (SPIR-V -> WGSL) for node, from the npm package;
#                                               the shader build translates the kernels with it.
# The system Mesa is not touched: only VK_DRIVER_FILES (see tools/webgpu-env.sh) selects this one.
# And, for the browser check (tools/web/wgsl-check.mjs), Debian's chromium-headless-shell (apt,
# bookworm-security), unless a Chromium is there already or ONEGPU_SKIP_BROWSER=1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

dawn_version=0.1.7
dawn_dir=.deps/dawn/$dawn_version
if [[ ! -f $dawn_dir/libwebgpu_wrapper.so ]] && ! command -v npm >/dev/null; then
  echo "onegpu: npm is missing: no Dawn, so the WebGPU tests will skip (install npm and run $0)" >&2
elif [[ ! -f $dawn_dir/libwebgpu_wrapper.so ]]; then
  echo "onegpu: fetching Dawn (npm bun-webgpu-linux-x64@$dawn_version)"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "bun-webgpu-linux-x64@$dawn_version" >/dev/null &&
   tar -xzf bun-webgpu-linux-x64-$dawn_version.tgz package/libwebgpu_wrapper.so package/LICENSE)
  mkdir -p "$dawn_dir"
  mv "$tmp/package/libwebgpu_wrapper.so" "$tmp/package/LICENSE" "$dawn_dir/"
  rm -rf "$tmp"
fi

naga_version=30.1.0
naga_dir=.deps/naga-wasm/$naga_version
if [[ ! -f $naga_dir/dist/node.js ]] && ! command -v npm >/dev/null; then
  echo "onegpu: npm is missing: no naga, so no WGSL kernels are built (install npm and run $0)" >&2
elif [[ ! -f $naga_dir/dist/node.js ]]; then
  echo "onegpu: fetching naga (npm naga-wasm@$naga_version)"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "naga-wasm@$naga_version" >/dev/null && tar -xzf naga-wasm-$naga_version.tgz)
  mkdir -p "$(dirname "$naga_dir")"
  rm -rf "$naga_dir"
  mv "$tmp/package" "$naga_dir"
  rm -rf "$tmp"
fi

mesa_version=25.0.7-2~bpo12+1
drm_version=2.4.123-1~bpo12+1
mesa_dir=.deps/mesa25
if [[ ! -f $mesa_dir/lvp_icd.json ]]; then
  echo "onegpu: fetching Mesa $mesa_version lavapipe (bookworm-backports)"
  if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    cat > /etc/apt/sources.list.d/onegpu-backports.sources <<'SOURCES'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  fi
  apt-get update -qq
  tmp=$(mktemp -d)
  # As root, without apt's sandbox user (which cannot write into a private temporary folder).
  (cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root "mesa-vulkan-drivers=$mesa_version" "libdrm2=$drm_version" \
     "libdrm-amdgpu1=$drm_version")
  rm -rf "$mesa_dir"
  mkdir -p "$mesa_dir"
  for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$mesa_dir"; done
  rm -rf "$tmp"
  lib=$root/$mesa_dir/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so
  [[ -f $lib ]] || { echo "onegpu: $lib missing from the Mesa package" >&2; exit 1; }
  cat > "$mesa_dir/lvp_icd.json" <<JSON
{
    "ICD": {
        "api_version": "1.4.305",
        "library_path": "$lib"
    },
    "file_format_version": "1.0.1"
}
JSON
fi

if [[ ${ONEGPU_SKIP_BROWSER:-0} != 1 && -z ${ONEGPU_CHROME:-} ]] && ! command -v chromium-headless-shell > /dev/null; then
  echo "onegpu: installing chromium-headless-shell (Debian) for the browser check"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium-headless-shell
fi
