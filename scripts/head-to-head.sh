#!/usr/bin/env bash
# ember against libtorch on this machine, alternating, in one sitting
# (docs/benchmarks.md): benchmarks/head_to_head.cpp is built against ember by
# the build and against Debian's libtorch-dev here (a reference only: nothing
# else needs it), then both run in turns, each round at each thread count.
# libtorch runs in its best configuration: glibc's malloc keeps freed blocks
# (without mmap_max=0 every 64 MiB output is fresh pages from the kernel and
# its big add runs at a fifth of the speed); OpenBLAS is its BLAS when
# Debian's libopenblas0-openmp is installed (the reference BLAS runs a matmul
# at 6 GFLOP/s).
#
#   scripts/head-to-head.sh [--rounds N] [--threads "1 2"] [--steps S] [--only ops|model]
#                           [--build DIR]
#
# Prints each figure per round and the ratio ember / libtorch of times (for
# rates, libtorch's over ember's), so below 1 means ember is faster, then the
# median of each figure's per-round ratios; and ember's add over the memcpy
# measured in the same process. On a shared host the machine's speed drifts
# between minutes: many short rounds (--only model --steps 30) and the
# median ratio say more than one long round.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=3 threads="1 2" steps=60 only=all build=build
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --steps) steps="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--threads \"1 2\"] [--steps S] [--only ops|model] [--build DIR]" >&2
       exit 2 ;;
  esac
done

ember_bin="$build/benchmarks/head_to_head"
torch_bin="$build/benchmarks/head_to_head_libtorch"
[[ -x "$ember_bin" ]] || { echo "$ember_bin is missing: build with -DEMBER_BUILD_BENCHMARKS=ON" >&2; exit 1; }
if [[ -d /usr/include/torch/csrc/api/include ]]; then
  if [[ ! -x "$torch_bin" || benchmarks/head_to_head.cpp -nt "$torch_bin" ]]; then
    echo "building $torch_bin against libtorch-dev"
    g++ -O3 -march=native -std=c++20 -DHEAD_TO_HEAD_LIBTORCH benchmarks/head_to_head.cpp \
      -I/usr/include/torch/csrc/api/include -o "$torch_bin" -ltorch -ltorch_cpu -lc10
  fi
else
  echo "libtorch-dev is not installed (apt-get install libtorch-dev): ember's figures only"
  torch_bin=""
fi

# Real-time priority keeps other work off the cores while a program runs,
# where the user may ask for it.
realtime=()
if chrt -f 10 true 2>/dev/null; then realtime=(chrt -f 10); fi

results=$(mktemp)
trap 'rm -f "$results"' EXIT
for ((r = 1; r <= rounds; ++r)); do
  for t in $threads; do
    "${realtime[@]}" "$ember_bin" --threads "$t" --steps "$steps" --only "$only" |
      awk -v r="$r" -v t="$t" 'NF == 3 { print r, t, "ember", $1, $2, $3 }' >> "$results"
    if [[ -n "$torch_bin" ]]; then
      GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=17179869184 \
        "${realtime[@]}" "$torch_bin" --threads "$t" --steps "$steps" --only "$only" |
        awk -v r="$r" -v t="$t" 'NF == 3 { print r, t, "libtorch", $1, $2, $3 }' >> "$results"
    fi
  done
  echo "round $r of $rounds done" >&2
done

awk -v rounds="$rounds" '
  { v[$1, $2, $3, $4] = $5; unit[$4] = $6; if (!($2 in seen_t)) { seen_t[$2]; ts[++nt] = $2 }
    if (!($4 in seen_n)) { seen_n[$4]; names[++nn] = $4 } }
  function rate(u) { return u ~ /\/s$/ }
  END {
    for (i = 1; i <= nt; ++i) {
      t = ts[i]
      printf "\n%s thread(s); per round: ember | libtorch | ratio\n", t
      for (j = 1; j <= nn; ++j) {
        n = names[j]; line = sprintf("%-13s %-8s", n, unit[n])
        for (r = 1; r <= rounds; ++r) {
          e = v[r, t, "ember", n]; l = v[r, t, "libtorch", n]
          if (l == "") { line = line sprintf("  %9s", e); continue }
          q = rate(unit[n]) ? l / e : e / l
          line = line sprintf("  %s | %s | %.2f", e, l, q)
        }
        print line
      }
      if ((1, t, "ember", "add_16m") in v) {
        line = sprintf("%-22s", "ember add / memcpy")
        for (r = 1; r <= rounds; ++r)
          line = line sprintf("  %.2f", v[r, t, "ember", "add_16m"] / v[r, t, "ember", "memcpy_16m"])
        print line
      }
      for (j = 1; j <= nn; ++j) {
        n = names[j]; k = 0
        for (r = 1; r <= rounds; ++r) {
          e = v[r, t, "ember", n]; l = v[r, t, "libtorch", n]
          if (l != "") qs[++k] = rate(unit[n]) ? l / e : e / l
        }
        if (k == 0) continue
        for (a = 1; a <= k; ++a)
          for (b = a + 1; b <= k; ++b)
            if (qs[b] < qs[a]) { tmp = qs[a]; qs[a] = qs[b]; qs[b] = tmp }
        printf "median ratio %-13s %.2f (%.2f-%.2f over %d rounds)\n", n, qs[int(k / 2) + 1], qs[1], qs[k], k
      }
    }
  }' "$results"
