# Sourced: points the Vulkan loader at the lavapipe of .deps/mesa25 (Dawn refuses Mesa 22.3's) for
# the WebGPU backend's tests and tools. Does nothing when tools/setup-webgpu.sh has not run.
_onegpu_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -f $_onegpu_root/.deps/mesa25/lvp_icd.json ]]; then
  export VK_DRIVER_FILES=$_onegpu_root/.deps/mesa25/lvp_icd.json
  export VK_ICD_FILENAMES=$VK_DRIVER_FILES
  export LD_LIBRARY_PATH=$_onegpu_root/.deps/mesa25/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
unset _onegpu_root
