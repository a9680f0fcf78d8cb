#!/usr/bin/env bash
# One command: sets up, builds and runs every test (.ci/run runs exactly this).
#  1. Release build in $EMBER_BUILD_DIR (default build/), the CUDA backend when
#     a toolkit is found (without a GPU the CUDA test binary reports "skipped"),
#     then all CTest tests: unit tests, CUDA tests, the consumer project
#     against the installed package. The consumer project that builds ember
#     with add_subdirectory compiles the library a third time; it runs with
#     EMBER_TEST_SUBDIRECTORY=1.
#  2. clang build with ASan + UBSan (no recovery) and libFuzzer coverage of
#     the CPU tests and the fuzz harnesses in $EMBER_SANITIZE_BUILD_DIR
#     (default build-sanitize/), then those tests: the unit tests, a replay of
#     every harness's seeds and regression inputs, and $EMBER_FUZZ_SECONDS
#     (default 20) of fuzzing per harness (tests/fuzz, docs/files-from-outside.md).
#  So both GCC (release) and clang (sanitizers) build ember in every run.
# Idempotent: a second run rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
build_dir=${EMBER_BUILD_DIR:-build}
sanitize_dir=${EMBER_SANITIZE_BUILD_DIR:-build-sanitize}

step() { printf '\n=== %s (%s)\n' "$1" "$(date +%T)"; }

step "layer and doc-path checks"
scripts/check-layers.sh
scripts/check-doc-paths.sh
scripts/derivatives-index.sh --check

step "release build"
# With the data set: the trainer's accuracy bars run on real Fashion-MNIST
# (tests/trainer_distributed), not only on generated data.
scripts/setup.sh --with-data
scripts/build.sh
step "release tests"
skip_labels=()
[[ ${EMBER_TEST_SUBDIRECTORY:-0} == 1 ]] || skip_labels=(--label-exclude subdirectory)
ctest --test-dir "$build_dir" --output-on-failure --parallel "$jobs" "${skip_labels[@]}"

step "sanitizer and fuzzing build (clang, ASan + UBSan + libFuzzer, CPU)"
# -O1 -g1 (line tables for the reports): instrumented -O2 -g takes twice as long to
# compile, which the Eigen-heavy files make the bulk of a CI run.
cmake -S . -B "$sanitize_dir" -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DEMBER_SANITIZE=ON -DEMBER_FUZZ=ON -DEMBER_FUZZ_SECONDS="${EMBER_FUZZ_SECONDS:-20}" \
  -DEMBER_CUDA=OFF -DEMBER_BUILD_EXAMPLES=OFF -DEMBER_BUILD_BENCHMARKS=OFF
cmake --build "$sanitize_dir" --parallel "$jobs"
step "sanitizer tests and fuzzing"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:check_initialization_order=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$sanitize_dir" --output-on-failure --parallel "$jobs" --label-exclude consumer

step "all tests passed"
