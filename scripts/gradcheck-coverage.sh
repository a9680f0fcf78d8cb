#!/usr/bin/env bash
# Fails naming every autograd node that no gradcheck of the tests reaches.
#
#   scripts/gradcheck-coverage.sh NODES_FILE
#
# NODES_FILE: the names of the nodes that autograd::gradcheck and gradgradcheck
# reached, one a line, as ember_tests writes them when EMBER_GRADCHECK_NODES_FILE
# is set (CTest's gradcheck_coverage test does this: tests/CMakeLists.txt). The
# nodes that must be reached are those of docs/derivatives.md
# (scripts/derivatives-index.sh --names), less the exceptions below.
set -euo pipefail
cd "$(dirname "$0")/.."

# Nodes that cannot be gradchecked, each with the reason. A node that merely
# lacks a test is not an exception: write the test (docs/autograd.md §8).
exceptions() {
  cat <<'EOF'
# The backward raises "not implemented" (as PyTorch); tests assert the raise.
HeavisideBackward   heaviside has no derivative (pointwise_extras_test.cpp: heaviside ... no derivative)
PolygammaBackward   polygamma(2, x) is not implemented (pointwise_extras_test.cpp: digamma ... clear Error)
# The node cannot be made without a CUDA device, and ember_tests runs on the CPU.
PinMemoryBackward   pin_memory needs pinned host memory, which needs a CUDA device
EOF
}

nodes_file=${1:?usage: scripts/gradcheck-coverage.sh NODES_FILE}
[ -r "$nodes_file" ] || { echo "gradcheck-coverage: cannot read $nodes_file (run ember_tests with EMBER_GRADCHECK_NODES_FILE set)" >&2; exit 1; }

all=$(scripts/derivatives-index.sh --names)
excepted=$(exceptions | awk 'NF && !/^#/ { print $1 }' | LC_ALL=C sort -u)
reached=$(LC_ALL=C sort -u "$nodes_file")

# comm -23 A B: the lines of A not in B (both sorted).
missing=$(comm -23 <(comm -23 <(echo "$all") <(echo "$reached")) <(echo "$excepted"))
stale=$(comm -23 <(echo "$excepted") <(echo "$all"))
needless=$(comm -12 <(echo "$excepted") <(echo "$reached"))
bad=0
if [ -n "$missing" ]; then
  echo "gradcheck-coverage: no gradcheck reaches these nodes; add one to the test of the op's family:"
  sed 's/^/  /' <<<"$missing"
  bad=1
fi
if [ -n "$stale" ]; then
  echo "gradcheck-coverage: exceptions for nodes that no longer exist; remove them:"
  sed 's/^/  /' <<<"$stale"
  bad=1
fi
if [ -n "$needless" ]; then
  echo "gradcheck-coverage: exceptions for nodes a gradcheck now reaches; remove them:"
  sed 's/^/  /' <<<"$needless"
  bad=1
fi
[ "$bad" -eq 0 ] || exit 1
echo "gradcheck-coverage: $(grep -c . <<<"$all") nodes, $(grep -c . <<<"$excepted" || true) excepted, every other one reached by a gradcheck"
