#!/usr/bin/env bash
# ember against libtorch on this machine, side by side (docs/benchmarks.md):
# benchmarks/head_to_head.cpp is built against ember by the build and against
# Debian's libtorch-dev here (a reference only: nothing else needs it). Both
# programs start once per thread count in --serve mode, and the script asks
# them in turn for a short burst of each figure, round after round, swapping
# who goes first each round: a shared host's speed drifts between minutes,
# and bursts a fraction of a second apart see the same machine.
# libtorch runs in its best configuration: glibc's malloc keeps freed blocks
# (without mmap_max=0 every 64 MiB output is fresh pages from the kernel and
# its big add runs at a fifth of the speed); OpenBLAS is its BLAS when
# Debian's libopenblas0-openmp is installed (the reference BLAS runs a matmul
# at 6 GFLOP/s).
#
#   scripts/head-to-head.sh [--rounds N] [--threads "1 2"] [--only ops|model] [--build DIR]
#
# Prints, per thread count and figure, each library's median over the rounds
# and the median (and range) of the per-round ratios ember / libtorch of times
# (for rates, libtorch's over ember's): below 1, ember is faster; and ember's
# add over the memcpy measured in the same process.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=20 threads="1 2" only=all build=build
while [[ $# -gt 0 ]]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    *) echo "usage: $0 [--rounds N] [--threads \"1 2\"] [--only ops|model] [--build DIR]" >&2
       exit 2 ;;
  esac
done

ember_bin="$build/benchmarks/head_to_head"
torch_bin="$build/benchmarks/head_to_head_libtorch"
[[ -x "$ember_bin" ]] || { echo "$ember_bin is missing: build with -DEMBER_BUILD_BENCHMARKS=ON" >&2; exit 1; }
if [[ -d /usr/include/torch/csrc/api/include ]]; then
  if [[ ! -x "$torch_bin" || benchmarks/head_to_head.cpp -nt "$torch_bin" ]]; then
    echo "building $torch_bin against libtorch-dev" >&2
    g++ -O3 -march=native -std=c++20 -DHEAD_TO_HEAD_LIBTORCH benchmarks/head_to_head.cpp \
      -I/usr/include/torch/csrc/api/include -o "$torch_bin" -ltorch -ltorch_cpu -lc10
  fi
else
  echo "libtorch-dev is not installed (apt-get install libtorch-dev): ember's figures only" >&2
  torch_bin=""
fi

# Figures and the runs in one burst of each (a burst takes 10-100 ms).
figures=()
[[ "$only" != model ]] && figures+=("add_1 3" "add_16m 5" "memcpy_16m 5" "matmul_1024 3")
[[ "$only" != ops ]] && figures+=("train_step 5" "eval_forward 10")

# Real-time priority keeps other work off the cores while a program runs,
# where the user may ask for it.
realtime=()
if chrt -f 10 true 2>/dev/null; then realtime=(chrt -f 10); fi

work=$(mktemp -d)
trap 'exec 3>&- 4<&- 5>&- 6<&- 2>/dev/null || true; rm -rf "$work"' EXIT
results="$work/results"
: > "$results"

# ask FD_IN FD_OUT "FIGURE REPS" -> prints the value
ask() {
  echo "$3" >&"$1"
  local name value unit
  read -r name value unit <&"$2"
  [[ "$name" == "${3%% *}" ]] || { echo "unexpected answer: $name $value $unit" >&2; exit 1; }
  echo "$value"
}

for t in $threads; do
  mkfifo "$work/e_in.$t" "$work/e_out.$t"
  "${realtime[@]}" "$ember_bin" --serve --threads "$t" < "$work/e_in.$t" > "$work/e_out.$t" &
  exec 3> "$work/e_in.$t" 4< "$work/e_out.$t"
  read -r _ <&4  # its header line
  if [[ -n "$torch_bin" ]]; then
    mkfifo "$work/t_in.$t" "$work/t_out.$t"
    GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=17179869184 \
      "${realtime[@]}" "$torch_bin" --serve --threads "$t" < "$work/t_in.$t" > "$work/t_out.$t" &
    exec 5> "$work/t_in.$t" 6< "$work/t_out.$t"
    read -r _ <&6
  fi
  for f in "${figures[@]}"; do  # warm-up: first blocks, first calls, benchmark-mode searches
    ask 3 4 "$f" > /dev/null
    [[ -n "$torch_bin" ]] && ask 5 6 "$f" > /dev/null
  done
  for ((r = 1; r <= rounds; ++r)); do
    for f in "${figures[@]}"; do
      name=${f%% *}
      if [[ -z "$torch_bin" ]]; then
        echo "$r $t ember $name $(ask 3 4 "$f")" >> "$results"
      elif ((r % 2)); then
        echo "$r $t ember $name $(ask 3 4 "$f")" >> "$results"
        echo "$r $t libtorch $name $(ask 5 6 "$f")" >> "$results"
      else
        echo "$r $t libtorch $name $(ask 5 6 "$f")" >> "$results"
        echo "$r $t ember $name $(ask 3 4 "$f")" >> "$results"
      fi
    done
  done
  exec 3>&- 4<&-
  [[ -n "$torch_bin" ]] && exec 5>&- 6<&-
  wait
  echo "$t thread(s): $rounds rounds done" >&2
done

awk '
  function unit_of(n) {
    return n == "add_1" ? "us" : n == "matmul_1024" ? "GFLOP/s" : n ~ /^(add_16m|memcpy_16m)$/ ? "GB/s" : "ms"
  }
  function sort(a, k,   i, j, tmp) {
    for (i = 1; i <= k; ++i) for (j = i + 1; j <= k; ++j) if (a[j] < a[i]) { tmp = a[i]; a[i] = a[j]; a[j] = tmp }
  }
  { v[$1, $2, $3, $4] = $5; if ($1 > rounds) rounds = $1
    if (!($2 in seen_t)) { seen_t[$2]; ts[++nt] = $2 }
    if (!($4 in seen_n)) { seen_n[$4]; names[++nn] = $4 } }
  END {
    for (i = 1; i <= nt; ++i) {
      t = ts[i]
      printf "\n%s thread(s), %d rounds: median ember | median libtorch | median ratio (range)\n", t, rounds
      for (j = 1; j <= nn; ++j) {
        n = names[j]; ke = kl = kq = 0
        for (r = 1; r <= rounds; ++r) {
          e = v[r, t, "ember", n]; l = v[r, t, "libtorch", n]
          if (e != "") es[++ke] = e
          if (l != "") { ls[++kl] = l; qs[++kq] = unit_of(n) ~ /\/s$/ ? l / e : e / l }
        }
        sort(es, ke); line = sprintf("%-13s %-8s %9.3f", n, unit_of(n), es[int(ke / 2) + 1])
        if (kl > 0) {
          sort(ls, kl); sort(qs, kq)
          line = line sprintf(" | %9.3f | %.2f (%.2f-%.2f)", ls[int(kl / 2) + 1], qs[int(kq / 2) + 1], qs[1], qs[kq])
        }
        print line
      }
      k = 0
      for (r = 1; r <= rounds; ++r)
        if (v[r, t, "ember", "add_16m"] != "") qs[++k] = v[r, t, "ember", "add_16m"] / v[r, t, "ember", "memcpy_16m"]
      if (k > 0) { sort(qs, k); printf "ember add_16m / memcpy_16m: median %.2f (%.2f-%.2f)\n", qs[int(k / 2) + 1], qs[1], qs[k] }
    }
  }' "$results"
