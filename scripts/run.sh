#!/usr/bin/env bash
# One command: sets up, builds (Release) and runs the main program,
# examples/tensor_tour. Arguments go to the program.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/build.sh tensor_tour
exec "${EMBER_BUILD_DIR:-build}/examples/tensor_tour" "$@"
