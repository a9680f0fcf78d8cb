#!/usr/bin/env bash
# Runs ember's AVX-512 CPU kernels on a CPU without AVX-512 (docs/building.md, "AVX-512
# code on a machine without it"). The library's translation units with AVX-512 code paths
# (kernels/cpu/*.cpp that test __AVX512F__ or include a header that does) are compiled again
# from a copy of the sources in
# which those paths are on and their intrinsics renamed to SIMDe's portable implementations
# (Debian's libsimde-dev; the few it lacks are in scripts/avx512-emulated/simde_missing.h).
# The objects replace the build's in a copy of libember.a, the test binary is linked against
# that copy, and the tests named on the command line run. The emulated kernels compute what
# the AVX-512 ones do, lane for lane, slowly: a check of the code that this machine's build
# leaves out, never a benchmark.
#
#   scripts/avx512-emulated-tests.sh [--build DIR] [TEST FILTER ...]
#
# DIR is a configured and built release tree without AVX-512 (default build/; on a CPU with
# AVX-512, an AVX2 tree as docs/building.md shows); the filters are Catch2's (default: every
# test). Work files go to DIR/avx512-emulated/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

build=build
if [[ "${1:-}" == "--build" ]]; then build="$2"; shift 2; fi
filters=("$@")
build=$(cd "$build" && pwd)
[[ -f "$build/libember.a" && -x "$build/tests/ember_tests" ]] ||
  { echo "$build has no libember.a and tests/ember_tests: build it first" >&2; exit 1; }

if [[ ! -f /usr/include/simde/x86/avx512.h ]]; then
  sudo_cmd=""; [[ $(id -u) -eq 0 ]] || sudo_cmd=sudo
  $sudo_cmd apt-get install -y libsimde-dev
fi

work="$build/avx512-emulated"
rm -rf "$work"
mkdir -p "$work/src" "$work/include" "$work/objects"
git ls-files -z | xargs -0 tar -cf - | tar -xf - -C "$work/src"
ln -s "$work/src" "$work/include/ember"

# The copy: AVX-512 paths (F, BW, VL, DQ and BF16) on under a macro of their own (defining
# __AVX512F__ itself would make GCC's headers compile their AVX-512 bodies for a target
# without it), run-time CPU checks answering yes, intrinsics and the bfloat16 vector type
# renamed, SIMDe included after every <immintrin.h>.
shim='#include "simde_missing.h"'
for f in "$work"/src/kernels/cpu/*.h "$work"/src/kernels/cpu/*.cpp; do
  sed -i -E \
    -e 's/defined\(__AVX512(F|BW|VL|BF16|DQ)__\)/defined(EMBER_EMULATED_AVX512F)/g' \
    -e 's/__builtin_cpu_supports\("avx512[a-z0-9]*"\)/true/g' \
    -e 's/\b__m512bh\b/simde__m512bh/g' \
    -e 's/\b(_mm512_[a-z0-9_]+)\b/simde\1/g' \
    -e 's/\b(_mm(256)?_maskz?_[a-z0-9_]+)\b/simde\1/g' \
    -e "s|^#include <immintrin.h>|&\\n#if defined(EMBER_EMULATED_AVX512F)\\n$shim\\n#endif|" \
    "$f"
done

# The units with such paths, in their own text or in a kernels/cpu header they include
# (directly or through other headers), each compiled with the build's own flags, less its
# precompiled header.
cd "$work/src/kernels/cpu"
mapfile -t marked < <(grep -l EMBER_EMULATED_AVX512F -- *.h)
while :; do  # headers that include a marked header are marked, until none is added
  pattern=$(printf '|%s' "${marked[@]}")
  pattern="ember/kernels/cpu/(${pattern:1})\""
  mapfile -t more < <(grep -lE "$pattern" -- *.h)
  ((${#more[@]} > 0)) || break
  mapfile -t grown < <(printf '%s\n' "${marked[@]}" "${more[@]}" | sort -u)
  ((${#grown[@]} > ${#marked[@]})) || break
  marked=("${grown[@]}")
done
pattern=$(printf '|%s' "${marked[@]}")
pattern="EMBER_EMULATED_AVX512F|ember/kernels/cpu/(${pattern:1})\""
mapfile -t units < <(grep -lE "$pattern" -- *.cpp)
cd "$root"
# The archive's members as the build lists them (its ar command), to be replaced by path:
# two members may share a file name.
archive=$(cd "$build" && ninja -t commands libember.a | tail -1)
archive=${archive#*&& }          # past ": && cmake -E rm -f libember.a"
archive=${archive#*&& }
archive=${archive%% && *}        # up to the ranlib
read -r -a members <<< "$archive"
for unit in "${units[@]}"; do
  object=""
  for word in "${members[@]}"; do
    [[ "$word" == */kernels/cpu/"$unit".o ]] && object=$word
  done
  [[ -n "$object" ]] || { echo "no object of kernels/cpu/$unit in libember.a" >&2; exit 1; }
  read -r -a words <<< "$(cd "$build" && ninja -t commands "$object" | tail -1)"
  args=()
  skip=0
  for word in "${words[@]}"; do
    # from the compiler on (past a `cmake -E env ... ccache` launcher)
    if [[ ${#args[@]} -eq 0 && "$word" != *++ ]]; then continue; fi
    if ((skip)); then skip=0; continue; fi
    case "$word" in
      -include|-MT|-MF|-o|-c) skip=1 ;;
      -MD|-Winvalid-pch) ;;
      -I"$build"/include) args+=("-I$work/include") ;;
      *) args+=("$word") ;;
    esac
  done
  mkdir -p "$work/objects/$(dirname "$object")"
  (cd "$build" && "${args[@]}" -DEMBER_EMULATED_AVX512F -I"$root/scripts/avx512-emulated" \
     -Wno-psabi -o "$work/objects/$object" -c "$work/src/kernels/cpu/$unit")
  echo "compiled $unit with its AVX-512 paths emulated"
done

# The same archive, the emulated objects in place of the build's.
objects=()
for word in "${members[@]}"; do
  [[ "$word" == *.o ]] || continue
  if [[ -f "$work/objects/$word" ]]; then objects+=("$work/objects/$word")
  else objects+=("$build/$word"); fi
done
ar qc "$work/libember.a" "${objects[@]}"
ranlib "$work/libember.a"

link=$(cd "$build" && ninja -t commands tests/ember_tests | tail -1)
link=${link#: && }
link=${link%% && :*}
link=${link/ libember.a / $work/libember.a }
link=${link/ -o tests\/ember_tests / -o $work/ember_tests }
(cd "$build" && eval "$link")

"$work/ember_tests" ${filters[@]+"${filters[@]}"}
