#!/usr/bin/env bash
# Fails on an #include of an ember header that breaks the layer rule of
# docs/architecture.md ("which folder may include which"), unless the include
# is listed in scripts/layer-exceptions.txt. A listed exception that no longer
# occurs fails too, so the list can only shrink.
#
#   scripts/check-layers.sh [--root DIR] [--exceptions FILE]
#   scripts/check-layers.sh --self-test
#
# Reads #include "ember/..." and #include <ember/...> lines of *.h, *.cpp,
# *.cu and *.cuh under core/ autograd/ kernels/ nn/ distributed/ examples/
# (tests/ and benchmarks/ may reach internals and are not checked).
set -euo pipefail

# Prints one line per forbidden include or stale exception; exits 1 if any.
# Runs in the repository root; $1 is the exceptions file.
check() {
  local exceptions=$1 dirs=() files=()
  for d in core autograd kernels nn distributed examples; do [ -d "$d" ] && dirs+=("$d"); done
  [ ${#dirs[@]} -gt 0 ] || { echo "check-layers: no source folders in $PWD" >&2; return 2; }
  mapfile -t files < <(find "${dirs[@]}" -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' \
                                                   -o -name '*.cuh' \) | LC_ALL=C sort)
  [ -f "$exceptions" ] || exceptions=/dev/null
  awk -v exfile="$exceptions" '
    # The layer a repository path belongs to.
    function layer(p,   a, n) {
      n = split(p, a, "/")
      if (n == 1) return p == "ember.h" ? "ember.h" : "top-level"
      if (a[1] == "core") return (a[2] == "ops" && n > 2) ? "core/ops" : "core"
      if (a[1] == "kernels" && n > 2) return "kernels/" a[2]
      return a[1]
    }
    BEGIN {
      # The rule (docs/architecture.md): what each layer may include besides
      # itself. "core" is core/ outside core/ops/.
      may["core"] = ""
      may["kernels/common"] = "core"
      may["kernels/cpu"] = "core kernels/common"
      may["kernels/cuda"] = "core kernels/common"
      may["autograd"] = "core"
      may["core/ops"] = "core autograd kernels/common"
      may["nn"] = "core core/ops autograd"
      # distributed/ sits on top: it may use all of ours but the backends,
      # and only examples (and the unchecked tests and benchmarks) use it.
      may["distributed"] = "ember.h core core/ops autograd kernels/common nn"
      may["examples"] = "ember.h nn distributed"
      for (l in may) {
        n = split(may[l], names, " ")
        for (i = 1; i <= n; i++) allowed[l, names[i]] = 1
        allowed[l, l] = 1
      }
    }
    FILENAME == exfile {
      line = $0
      sub(/#.*/, "", line); gsub(/^[ \t]+|[ \t]+$/, "", line)
      if (line == "") next
      if (line !~ /^[^ \t]+[ \t]+->[ \t]+[^ \t]+$/) {
        printf "%s:%d: malformed exception (want \"including/file.cpp -> included/file.h\"): %s\n",
               exfile, FNR, $0
        bad++; next
      }
      split(line, part, /[ \t]+->[ \t]+/)
      key = part[1] " -> " part[2]
      if (key in listed) { printf "%s:%d: duplicate exception: %s\n", exfile, FNR, key; bad++; next }
      listed[key] = FNR
      next
    }
    /^[ \t]*#[ \t]*include[ \t]*[<"]ember\// {
      match($0, /[<"]ember\/[^>"]+/)
      inc = substr($0, RSTART + 7, RLENGTH - 7)
      includes++
      from = layer(FILENAME); to = layer(inc)
      if ((from, to) in allowed) next
      key = FILENAME " -> " inc
      if (key in listed) { used[key] = 1; next }
      printf "%s:%d: %s may not include %s (%s)\n", FILENAME, FNR, from, to, inc
      bad++; violations++
    }
    END {
      for (key in listed)
        if (!(key in used)) {
          stale_line[listed[key]] = key
          stale++
        }
      # Stale exceptions in file order, for a stable report.
      for (i = 1; stale > 0 && i <= max_line(); i++)
        if (i in stale_line)
          printf "%s:%d: stale exception: %s no longer occurs as a forbidden include; remove it from scripts/layer-exceptions.txt\n",
                 exfile, i, stale_line[i]
      nlisted = 0
      for (key in listed) nlisted++
      printf "check-layers: %d ember includes checked, %d listed exceptions, %d new forbidden includes, %d stale exceptions\n",
             includes, nlisted, violations, stale
      exit (bad + stale > 0)
    }
    function max_line(   k, m) { m = 0; for (k in listed) if (listed[k] > m) m = listed[k]; return m }
  ' "$exceptions" "${files[@]}"
}

self_test() {
  local failures=0 out
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  mkdir -p "$dir"/{core/ops,autograd,kernels/common,kernels/cpu,kernels/cuda,nn,distributed,examples,scripts}
  printf '#include "ember/core/dtype.h"\n' >"$dir/core/tensor.h"
  printf '#pragma once\n' >"$dir/core/dtype.h"
  printf '#include "ember/core/tensor.h"\n#include "ember/autograd/node.h"\n  #  include "ember/kernels/common/table.h"\n' \
    >"$dir/core/ops/add.cpp"
  printf '#include "ember/core/tensor.h"\n' >"$dir/autograd/node.h"
  printf '#include "ember/core/tensor.h"\n' >"$dir/kernels/common/table.h"
  printf '#include "ember/kernels/common/table.h"\n' >"$dir/kernels/cpu/add.cpp"
  printf '#include "ember/kernels/common/table.h"\n' >"$dir/kernels/cuda/add.cu"
  printf '#include "ember/core/ops/add.h"\n#include "ember/nn/module.h"\n' >"$dir/nn/linear.cpp"
  printf '#include "ember/core/ops/add.h"\n#include "ember/nn/module.h"\n#include "ember/distributed/pg.h"\n' \
    >"$dir/distributed/pg.cpp"
  printf '#include <ember/ember.h>\n#include "local.h"\n#include <vector>\n#include <ember/distributed/pg.h>\n' \
    >"$dir/examples/demo.cpp"
  : >"$dir/scripts/layer-exceptions.txt"
  # shellcheck source=scripts/self-test-expect.sh
  source "$(dirname "${BASH_SOURCE[0]}")/self-test-expect.sh"
  # expect_check WANT_RC NAME PATTERN: the layer check on $dir.
  expect_check() { expect "$1" "$2" "$3" check scripts/layer-exceptions.txt; }
  expect_check 0 "a tree that follows the rule passes" \
    '^check-layers: 15 ember includes checked, 0 listed exceptions, 0 new forbidden includes, 0 stale exceptions$'

  printf '#include "ember/kernels/common/table.h"\n#include "ember/kernels/cpu/add.h"\n' >>"$dir/core/ops/add.cpp"
  expect_check 1 "core/ops reaching kernels/cpu fails" \
    '^core/ops/add.cpp:5: core/ops may not include kernels/cpu \(kernels/cpu/add.h\)$'
  printf '# core/ops reaches kernels/cpu directly (a test)\ncore/ops/add.cpp -> kernels/cpu/add.h\n' \
    >"$dir/scripts/layer-exceptions.txt"
  expect_check 0 "a listed exception passes" ', 1 listed exceptions, 0 new forbidden includes, 0 stale'

  printf '#include <ember/core/tensor.h>\n' >>"$dir/examples/demo.cpp"
  expect_check 1 "examples reaching core through <ember/...> fails" \
    '^examples/demo.cpp:5: examples may not include core \(core/tensor.h\)$'
  sed -i '$d' "$dir/examples/demo.cpp"
  for bad in 'autograd/node.h:core/ops/add.h:autograd may not include core/ops'     \
             'core/dtype.h:autograd/node.h:core may not include autograd'           \
             'kernels/cpu/add.cpp:kernels/cuda/add.h:kernels/cpu may not include kernels/cuda' \
             'kernels/cuda/add.cu:core/ops/add.h:kernels/cuda may not include core/ops' \
             'nn/linear.cpp:kernels/common/table.h:nn may not include kernels/common' \
             'nn/linear.cpp:distributed/pg.h:nn may not include distributed' \
             'core/dtype.h:distributed/pg.h:core may not include distributed' \
             'distributed/pg.cpp:kernels/cpu/add.h:distributed may not include kernels/cpu'; do
    IFS=: read -r file inc msg <<<"$bad"
    cp "$dir/$file" "$dir/$file.orig"
    printf '#include "ember/%s"\n' "$inc" >>"$dir/$file"
    expect_check 1 "$msg" "^$file:[0-9]+: $msg \\($inc\\)\$"
    mv "$dir/$file.orig" "$dir/$file"
  done

  sed -i '$d' "$dir/core/ops/add.cpp"
  expect_check 1 "an exception that no longer occurs fails as stale" \
    '^scripts/layer-exceptions.txt:2: stale exception: core/ops/add.cpp -> kernels/cpu/add.h no longer occurs as a forbidden include; remove it from scripts/layer-exceptions.txt$'
  printf 'core/ops/add.cpp kernels/cpu/add.h\n' >"$dir/scripts/layer-exceptions.txt"
  expect_check 1 "a malformed exception fails" '^scripts/layer-exceptions.txt:1: malformed exception'
  [ "$failures" -eq 0 ] && echo "check-layers self-test: all cases pass" || return 1
}

root=$(cd "$(dirname "$0")/.." && pwd)
exceptions=scripts/layer-exceptions.txt
while [ $# -gt 0 ]; do
  case "$1" in
    --self-test) self_test; exit ;;
    --root) root=$2; shift 2 ;;
    --exceptions) exceptions=$(realpath "$2"); shift 2 ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
    *) echo "check-layers: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done
cd "$root"
check "$exceptions"
