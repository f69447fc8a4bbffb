#!/usr/bin/env bash
# Set up, build and run the getting-started program (lavapipe when the machine has no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
exec ./build/getting-started "$@"
