#!/usr/bin/env bash
# scripts/memcheck-verdict.sh on made-up compute-sanitizer logs: a clean run
# passes; an invalid access, an ERROR line, a non-zero summary, a run cut off
# before its summary and an empty log fail.
set -u
. "$(dirname "$0")/../scripts/memcheck-verdict.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failures=0

# expect ok|FAILED NAME LOG_TEXT
expect() {
  local want=$1 name=$2 got
  printf '%s' "$3" >"$dir/$name.log"
  got=$(memcheck_verdict "$dir/$name.log")
  if [ "${got%%:*}" != "$want" ]; then
    echo "FAIL $name: expected $want, got: $got"
    failures=$((failures + 1))
  else
    echo "pass $name: $got"
  fi
}

clean='========= COMPUTE-SANITIZER
All tests passed (120 assertions in 9 test cases)
========= ERROR SUMMARY: 0 errors
'
expect ok clean "$clean"
expect FAILED invalid-read '========= COMPUTE-SANITIZER
========= Invalid __global__ read of size 4 bytes
=========     at reduce_kernel+0x1d0
All tests passed (120 assertions in 9 test cases)
========= ERROR SUMMARY: 0 errors
'
expect FAILED error-line '========= COMPUTE-SANITIZER
========= ERROR: Target application terminated before first instrumented API call
========= ERROR SUMMARY: 0 errors
'
expect FAILED nonzero-summary '========= COMPUTE-SANITIZER
========= Program hit cudaErrorInvalidValue (error 1) on CUDA API call to cudaMemcpyAsync.
========= ERROR SUMMARY: 1 error
'
expect FAILED cut-off '========= COMPUTE-SANITIZER
cuda memcheck: elementwise 0.52 s: ok
'
expect FAILED empty ''
[ $failures -eq 0 ] && echo "memcheck verdict: all cases pass" || exit 1
