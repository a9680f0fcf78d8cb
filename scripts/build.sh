#!/usr/bin/env bash
# Sets up (scripts/setup.sh), configures and builds ember in $EMBER_BUILD_DIR
# (default build/): Release, the CUDA backend when a toolkit is found.
# Arguments are build targets (default: everything). Idempotent: a second run
# rebuilds only what changed. Extra CMake options: $EMBER_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
build_dir=${EMBER_BUILD_DIR:-build}
# Word splitting of EMBER_CMAKE_ARGS is wanted: it holds several options.
# shellcheck disable=SC2206
extra_args=(${EMBER_CMAKE_ARGS:-})

cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=AUTO "${extra_args[@]}"
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build "$build_dir" --parallel "$(nproc)" "${targets[@]}"
