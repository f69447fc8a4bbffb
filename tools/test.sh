#!/usr/bin/env bash
# Set up, build and run the whole test suite. Device tests run on a real Vulkan driver (lavapipe
# when there is no GPU) with the Khronos validation layer; a validation message or a leaked
# object fails the test that caused it.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
ctest --test-dir build --output-on-failure --parallel "$(nproc)" "$@"
