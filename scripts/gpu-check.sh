#!/usr/bin/env bash
# The GPU check, in one call on the GPU machine (nvcc, CMake, ninja, Python
# with nvidia-cudnn-cu13; no Debian packages, no network): builds for sm_90
# with cuDNN from the Python package, runs the CUDA tests (they must run, not
# skip), compute-sanitizer's memcheck over the "[memcheck]" subset, the
# tensors past 2^31 elements ("[huge]"), the CUDA benchmarks and the CPU
# tests, and writes logs and a summary with a verdict line per stage.
#
#   scripts/gpu-check.sh [OUT_DIR]     (default: $OUT, else build-gpu/check)
#
# Beforehand, on a machine with the Debian packages: scripts/vendor-headers.sh
# (fills the git-ignored .deps/, which must travel with the checkout).
# Budget: 540 s in all (EMBER_GPU_CHECK_BUDGET); each stage has its own limit,
# and the limits add up to the budget. It writes seven files (the device tool
# brings back at most eight): summary.txt, build.log, ctest.log,
# cuda-tests.log, huge.log, benchmarks.log, sanitizer.log.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

out=${1:-${OUT:-build-gpu/check}}
mkdir -p "$out" && out=$(cd "$out" && pwd)
build_dir=${EMBER_GPU_BUILD_DIR:-build-gpu}
jobs=$(nproc)
summary=$out/summary.txt
for log in "$summary" "$out"/{build,ctest,cuda-tests,huge,benchmarks,sanitizer}.log; do : >"$log"; done
failed=0

# The device call's limit is 600 s; the script stops itself well before that
# (under 9 minutes) so that its summary is written whatever happens.
budget=${EMBER_GPU_CHECK_BUDGET:-540}
. scripts/memcheck-verdict.sh
line_buffered=()
if command -v stdbuf >/dev/null; then line_buffered=(stdbuf -oL -eL); fi
note() { echo "$*" | tee -a "$summary"; }
# stage NAME LIMIT_S LOG COMMAND...: runs COMMAND into LOG, line-buffered (a
# killed program keeps what it printed), with LIMIT_S or the time left,
# whichever is shorter; notes the verdict ("ok", or "FAILED" with the exit
# status; a stage stopped by its limit exits 124). Not run, and failed, when
# under 15 s are left.
stage() {
  local name=$1 limit=$2 log=$3 start rc left
  shift 3
  left=$((budget - SECONDS))
  if [ $left -lt 15 ]; then
    note "$(printf '%-12s not run: the time is spent' "$name")"
    failed=1
    return 124
  fi
  [ $limit -le $left ] || limit=$left
  start=$(date +%s)
  timeout "$limit" "${line_buffered[@]}" "$@" >>"$log" 2>&1
  rc=$?
  note "$(printf '%-12s %s (exit %d%s, %ds)' "$name" "$([ $rc -eq 0 ] && echo ok || echo FAILED)" \
    "$rc" "$([ $rc -eq 124 ] && echo ': time limit')" "$(($(date +%s) - start))")"
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

stage configure 30 "$out/build.log" cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DEMBER_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_COMPILER="$nvcc" \
  -DCUDNN_ROOT="$cudnn_root" &&
  stage build 240 "$out/build.log" cmake --build "$build_dir" --parallel "$jobs"
built=$?

# GPU work first, in case the time runs short: the CUDA tests, the memcheck
# subset, the huge tensors, the trainer's CUDA tests, the CUDA benchmarks;
# then the CPU tests (which CI runs too; the consumer builds are left out).
# The CPU-only benchmarks are not run: their targets are for the 2-core CPU
# machine. Limits (s): configure 30 + build 240 + cuda-tests 75 + memcheck 60
# + huge 30 + trainer-cuda 20 + benchmarks 20 + 20 + 15 + ctest 30 = 540.
if [ $built -eq 0 ]; then
  cuda_tests=$build_dir/tests/cuda/ember_cuda_tests
  # A skip (exit 77, no device) is a failure here. "[huge]" is hidden ("[.]").
  stage cuda-tests 75 "$out/cuda-tests.log" "$cuda_tests" --durations yes
  note "cuda tests: $(grep -E '^(All tests passed|test cases:|[a-z_]+: SKIPPED)' \
    "$out/cuda-tests.log" | tail -n 1)"
  # compute-sanitizer's memcheck over the "[memcheck]" subset: every kernel
  # family on small shapes (tests/cuda/memcheck_test.cpp), sized to finish
  # well inside its limit. Its verdict comes from the log, whatever the exit
  # code (compute-sanitizer's own is set only when the program exits
  # normally): the run must reach its ERROR SUMMARY with 0 errors and report
  # no Invalid access or ERROR; a run stopped by its limit fails.
  sanitizer=$(command -v compute-sanitizer || echo "$(dirname "$nvcc")/compute-sanitizer")
  if [ -x "$sanitizer" ]; then
    stage memcheck 60 "$out/sanitizer.log" "$sanitizer" --tool memcheck --error-exitcode 3 \
      "$cuda_tests" "[memcheck]" --durations yes
    verdict=$(memcheck_verdict "$out/sanitizer.log") || failed=1
    note "memcheck log: $verdict ($(grep -c ' s: ' "$out/sanitizer.log") test cases finished)"
  else
    note "memcheck     FAILED: no compute-sanitizer next to nvcc"
    failed=1
  fi
  # Tensors over 2^31 elements (int64 indexing in each kernel family), about
  # 20 GB of device memory: their own stage and limit.
  stage huge 30 "$out/huge.log" "$cuda_tests" "[huge]" --durations yes
  note "huge tests: $(grep -E '^(All tests passed|test cases:|No test cases matched)' \
    "$out/huge.log" | tail -n 1)"
  if [ -x "$build_dir/tests/trainer/trainer_cuda_tests" ]; then
    echo "=== trainer_cuda_tests" >>"$out/cuda-tests.log"
    stage trainer-cuda 20 "$out/cuda-tests.log" "$build_dir/tests/trainer/trainer_cuda_tests"
    note "trainer cuda tests: $(grep -E '^(All tests passed|test cases:|[a-z_]+: SKIPPED)' \
      "$out/cuda-tests.log" | tail -n 1)"
  fi
  # cuda_ops, cuda_nn_ops (our pooling and batch norm against cuDNN's), then
  # train_step (CPU and CUDA rows), each with its limit.
  for bench_limit in cuda_ops:20 cuda_nn_ops:20 train_step:15; do
    name=${bench_limit%%:*}
    bench=$build_dir/benchmarks/$name
    [ -x "$bench" ] || { note "$(printf '%-12s FAILED: not built' "$name")"; failed=1; continue; }
    echo "=== $name" >>"$out/benchmarks.log"
    stage "$name" "${bench_limit##*:}" "$out/benchmarks.log" "$bench"
  done
  stage ctest 30 "$out/ctest.log" ctest --test-dir "$build_dir" --output-on-failure \
    --parallel "$jobs" --timeout 100 --label-exclude 'cuda|consumer'
  note "ctest (CPU tests, no consumer builds): $(grep -E 'tests passed|tests failed' \
    "$out/ctest.log" | tail -n 1)"
fi

note "result: $([ $failed -eq 0 ] && echo 'all passed' || echo 'FAILURES (see the logs)')"
exit $failed
