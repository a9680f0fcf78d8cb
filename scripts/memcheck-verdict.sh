#!/usr/bin/env bash
# The verdict on a compute-sanitizer memcheck log, whatever its exit code
# (compute-sanitizer's --error-exitcode only applies when the program exits
# normally): prints "ok" and returns 0 when the log reached its end (an
# ERROR SUMMARY line) with 0 errors and holds no error report (an "Invalid
# ..." access or an "ERROR" line other than the summary); otherwise prints
# "FAILED: <why>" and returns 1. Sourced by scripts/gpu-check.sh, run
# standalone as `scripts/memcheck-verdict.sh LOG`, tested by
# tests/memcheck_verdict_test.sh.
memcheck_verdict() {
  local log=$1 report summary
  if [ ! -s "$log" ]; then
    echo "FAILED: empty or missing log $log"
    return 1
  fi
  report=$(grep -m 1 -E '^=+ +(Invalid|ERROR)' "$log" | grep -v 'ERROR SUMMARY')
  if [ -n "$report" ]; then
    echo "FAILED: $report"
    return 1
  fi
  summary=$(grep -E '^=+ +ERROR SUMMARY: ' "$log" | tail -n 1)
  if [ -z "$summary" ]; then
    echo "FAILED: no ERROR SUMMARY line (the run did not reach its end)"
    return 1
  fi
  if ! printf '%s\n' "$summary" | grep -qE 'ERROR SUMMARY: 0 errors'; then
    echo "FAILED: ${summary#*= }"
    return 1
  fi
  echo ok
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  [ $# -eq 1 ] || { echo "usage: $0 MEMCHECK_LOG" >&2; exit 2; }
  memcheck_verdict "$1"
fi
