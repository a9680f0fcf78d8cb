#!/usr/bin/env bash
# The GPU check, in one call on the GPU machine (nvcc, CMake, ninja, Python
# with nvidia-cudnn-cu13; no Debian packages, no network): builds for sm_90
# with cuDNN from the Python package, runs every test (the CUDA test binary
# must run, not skip), runs the benchmarks, and writes logs and a summary.
#
#   scripts/gpu-check.sh [OUT_DIR]     (default: $OUT, else build-gpu/check)
#
# Beforehand, on a machine with the Debian packages: scripts/vendor-headers.sh
# (fills the git-ignored .deps/, which must travel with the checkout).
# Budget: under 10 minutes in all; each stage has its own time limit.
# It writes five files (the device tool brings back at most eight):
# summary.txt, build.log, ctest.log, cuda-tests.log, benchmarks.log.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

out=${1:-${OUT:-build-gpu/check}}
mkdir -p "$out" && out=$(cd "$out" && pwd)
build_dir=${EMBER_GPU_BUILD_DIR:-build-gpu}
jobs=$(nproc)
summary=$out/summary.txt
for log in "$summary" "$out"/{build,ctest,cuda-tests,benchmarks}.log; do : >"$log"; done
failed=0

note() { echo "$*" | tee -a "$summary"; }
# stage NAME LIMIT_S LOG COMMAND...: runs COMMAND with a time limit into LOG, notes the result.
stage() {
  local name=$1 limit=$2 log=$3 start rc
  shift 3
  start=$(date +%s)
  timeout "$limit" "$@" >>"$log" 2>&1
  rc=$?
  note "$(printf '%-12s %s (exit %d, %ds)' "$name" "$([ $rc -eq 0 ] && echo ok || echo FAILED)" \
    "$rc" "$(($(date +%s) - start))")"
  [ $rc -eq 0 ] || failed=1
  return $rc
}

note "ember gpu-check $(date -u +%FT%TZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
if command -v nvidia-smi >/dev/null; then
  note "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -n 1)"
else
  note "gpu: no nvidia-smi on this machine"
fi

if [ ! -f .deps/eigen3/Eigen/Core ] || [ ! -f .deps/catch2/catch.hpp ]; then
  note "missing .deps/: run scripts/vendor-headers.sh on a machine with Debian's packages, and carry .deps"
  exit 1
fi
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
cudnn_root=${CUDNN_ROOT:-$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null)}
if [ -z "$cudnn_root" ] || [ ! -d "$cudnn_root/lib" ]; then
  note "cuDNN not found: no python3 package nvidia-cudnn-cu13 and no CUDNN_ROOT"
  exit 1
fi
note "nvcc: $("$nvcc" --version | tail -n 1); cuDNN root: $cudnn_root"
# cuDNN 9 loads its sub-libraries (libcudnn_ops.so.9, ...) by name at run time.
export LD_LIBRARY_PATH=$cudnn_root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

stage configure 60 "$out/build.log" cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DEMBER_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER="$nvcc" \
  -DCUDNN_ROOT="$cudnn_root" &&
  stage build 240 "$out/build.log" cmake --build "$build_dir" --parallel "$jobs"
built=$?

if [ $built -eq 0 ]; then
  stage ctest 150 "$out/ctest.log" ctest --test-dir "$build_dir" --output-on-failure \
    --parallel "$jobs" --timeout 120 --label-exclude cuda
  note "ctest (all but the CUDA tests): $(grep -E 'tests passed|tests failed' "$out/ctest.log" | tail -n 1)"
  # The CUDA test binaries on their own: on this machine a skip (exit 77, no device) is a failure.
  stage cuda-tests 180 "$out/cuda-tests.log" "$build_dir/tests/cuda/ember_cuda_tests" --durations yes
  note "cuda tests: $(grep -E '^(All tests passed|test cases:|[a-z_]+: SKIPPED)' \
    "$out/cuda-tests.log" | tail -n 1)"
  if [ -x "$build_dir/tests/trainer/trainer_cuda_tests" ]; then
    echo "=== trainer_cuda_tests" >>"$out/cuda-tests.log"
    stage trainer-cuda 90 "$out/cuda-tests.log" "$build_dir/tests/trainer/trainer_cuda_tests"
    note "trainer cuda tests: $(grep -E '^(All tests passed|test cases:|[a-z_]+: SKIPPED)' \
      "$out/cuda-tests.log" | tail -n 1)"
  fi

  # The GPU's own figures first (cuda_ops, then cuda_nn_ops: our pooling and
  # batch-norm kernels against cuDNN's), in case the time runs short.
  benches=("$build_dir"/benchmarks/cuda_ops "$build_dir"/benchmarks/cuda_nn_ops)
  for bench in "$build_dir"/benchmarks/*; do
    case "$(basename "$bench")" in cuda_ops | cuda_nn_ops) ;; *) benches+=("$bench") ;; esac
  done
  for bench in "${benches[@]}"; do
    if [ ! -f "$bench" ] || [ ! -x "$bench" ]; then continue; fi
    if [ $((SECONDS + 90)) -gt 570 ]; then
      note "$(basename "$bench"): not run, the check's 10 minutes are nearly spent"
      continue
    fi
    echo "=== $(basename "$bench")" >>"$out/benchmarks.log"
    stage "$(basename "$bench")" 90 "$out/benchmarks.log" "$bench"
  done
fi

note "result: $([ $failed -eq 0 ] && echo 'all passed' || echo 'FAILURES (see the logs)')"
exit $failed
