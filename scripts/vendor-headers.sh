#!/usr/bin/env bash
# Copies the headers of Eigen and Catch2 v2 (from Debian's libeigen3-dev and
# catch2, installed by scripts/setup.sh) into .deps/ (git-ignored), where CMake
# finds them (EMBER_THIRD_PARTY_DIR) on a machine without those packages and
# without network, such as the GPU machine of scripts/gpu-check.sh.
# Idempotent: replaces what it copied before.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
deps=.deps
rm -rf "$deps/eigen3" "$deps/catch2"
mkdir -p "$deps/eigen3" "$deps/catch2"
cp -r /usr/include/eigen3/Eigen "$deps/eigen3/"
cp /usr/include/catch2/catch.hpp "$deps/catch2/"
echo "vendor-headers: $(du -sh "$deps" | cut -f1) in $deps"
