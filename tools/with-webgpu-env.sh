#!/usr/bin/env bash
# Runs a command with the environment of tools/webgpu-env.sh (the Mesa 25 lavapipe of .deps/).
# CTest starts the WebGPU tests through it.
. "$(dirname "$0")/webgpu-env.sh"
exec "$@"
