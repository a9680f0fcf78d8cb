#!/usr/bin/env bash
# Fails when README.md or a page under docs/ names a repository path that does
# not exist, so a doc cannot keep pointing at a file that moved.
#
#   scripts/check-doc-paths.sh [--root DIR] [FILE.md ...]   (default: README.md docs/**/*.md)
#   scripts/check-doc-paths.sh --self-test
#
# What counts as a path:
#  - the target of a markdown link [text](target), relative to the page
#    (URLs and #anchors alone are skipped);
#  - a word of an inline code span that starts with a top-level folder
#    (core/ ... .ci/) or is a top-level file (CMakeLists.txt, README.md, ...),
#    relative to the repository root;
#  - a word of plain text that starts with a top-level folder and ends in a
#    file extension (docs/gpu.md), relative to the root;
#  - an include path, <ember/core/tensor.h> -> core/tensor.h;
#  - in fenced code blocks, only these: a command that starts a line
#    (scripts/run.sh), #include lines, and file paths in comments.
# "#anchor" and ":line" endings are dropped. Placeholders and globs (containing
# < > * { } $ or ...) are skipped, and so are build outputs (build*/, .deps/).
set -euo pipefail

folders='core|autograd|kernels|nn|distributed|examples|tests|benchmarks|scripts|docs|cmake|[.]ci'
top_files='CMakeLists[.]txt|README[.]md|ember[.]h|[.]gitignore'

# Prints "page<TAB>line<TAB>path" for every path named in the pages given.
extract() {
  awk -v folders="$folders" -v top_files="$top_files" '
    function dirname(p) { return p ~ /\// ? substr(p, 1, match(p, /\/[^\/]*$/) - 1) : "" }
    # a/b/../c -> a/c; "" for a path that leaves the repository.
    function normalize(p,   n, parts, out, k, i) {
      n = split(p, parts, "/"); k = 0
      for (i = 1; i <= n; i++) {
        if (parts[i] == "" || parts[i] == ".") continue
        if (parts[i] == "..") { if (k == 0) return ""; k--; continue }
        out[++k] = parts[i]
      }
      p = ""
      for (i = 1; i <= k; i++) p = p (i > 1 ? "/" : "") out[i]
      return p
    }
    function placeholder(p) { return p ~ /[<>*{}$]/ || index(p, "...") || index(p, "\342\200\246") }
    function strip_suffixes(p) {
      sub(/#.*$/, "", p)
      sub(/:[0-9][0-9,-]*$/, "", p)
      return p
    }
    function emit(p) {
      if (p == "" || placeholder(p)) return
      p = strip_suffixes(p)
      if (p == "" || p ~ /^(build[^\/]*|\.deps)(\/|$)/) return
      printf "%s\t%d\t%s\n", FILENAME, FNR, p
    }
    function trim_punct(w) {
      sub(/^[("'\''*_]+/, "", w)
      sub(/[.,;:)"'\''*_!?]+$/, "", w)
      return w
    }
    function repo_word(w, need_ext) {
      if (w ~ /^[<"(]*ember\/[A-Za-z0-9_.\/-]+/) {  # an include path: <ember/core/tensor.h>
        sub(/^[<"(]*ember\//, "", w); sub(/[>"][^\/]*$/, "", w); w = trim_punct(w)
        if (!need_ext || w ~ /\.[A-Za-z0-9]+$/) emit(w)
        return
      }
      if (placeholder(w)) return
      w = trim_punct(w)
      if (w ~ ("^(" top_files ")$")) { emit(w); return }
      if (w !~ ("^(" folders ")/")) return
      if (need_ext && strip_suffixes(w) !~ /\.[A-Za-z0-9]+$/) return
      emit(w)
    }
    function words_of(s, need_ext,   n, words, i) {
      n = split(s, words, /[ \t]+/)
      for (i = 1; i <= n; i++) repo_word(words[i], need_ext)
    }
    # In fenced code: a command that starts the line (scripts/run.sh), an
    # #include "ember/...", and paths with an extension in a comment.
    function fenced_line(s,   n, words, c) {
      n = split(s, words, /[ \t]+/)
      if (words[1] == "") words[1] = words[2]
      if (words[1] ~ ("^(" folders ")/")) repo_word(words[1], 0)
      if (match(s, /#[ \t]*include[ \t]*[<"]/)) { words_of(substr(s, RSTART + RLENGTH - 1), 0); return }
      c = index(s, "//")
      if (c == 0 && match(s, /(^|[ \t])#([ \t]|$)/)) c = RSTART
      if (c > 0) words_of(substr(s, c), 1)
    }
    function prose(s,   t, target) {
      while (match(s, /\]\([^)]*\)/)) {  # link targets
        target = substr(s, RSTART + 2, RLENGTH - 3)
        s = substr(s, 1, RSTART) " " substr(s, RSTART + RLENGTH)
        sub(/^[ \t]*</, "", target); sub(/>[ \t]*$/, "", target)
        sub(/[ \t].*$/, "", target)  # a "title"
        if (target == "" || target ~ /^#/ || target ~ /^[A-Za-z][A-Za-z0-9+.-]*:/) continue
        if (placeholder(target)) continue
        target = strip_suffixes(target)
        t = target ~ /^\// ? normalize(target) : normalize(dirname(FILENAME) "/" target)
        if (t == "") { printf "%s\t%d\t%s\t(outside the repository)\n", FILENAME, FNR, target; continue }
        emit(t)
      }
      words_of(s, 1)
    }
    FNR == 1 { fenced = 0; inspan = 0 }
    # a fence: up to three spaces, then ``` or ~~~ (mawk has no {m,n})
    /^ ? ? ?(```|~~~)/ { fenced = !fenced; inspan = 0; next }
    fenced { fenced_line($0); next }
    /^[ \t]*$/ { inspan = 0; next }
    {
      # Split at backticks: even pieces are text, odd ones code (a span may
      # continue from the previous line of the paragraph).
      line = $0
      while ((i = index(line, "`")) > 0) {
        piece = substr(line, 1, i - 1); line = substr(line, i + 1)
        if (inspan) words_of(piece, 0); else prose(piece)
        inspan = !inspan
      }
      if (inspan) words_of(line, 0); else prose(line)
    }
  ' "$@"
}

# Checks the pages given (paths relative to the current folder, the root).
check() {
  local page line path note bad=0 count=0
  while IFS=$'\t' read -r page line path note; do
    count=$((count + 1))
    if [ -n "$note" ]; then
      echo "$page:$line: $path $note"
      bad=$((bad + 1))
    elif [ ! -e "$path" ]; then
      echo "$page:$line: $path does not exist"
      bad=$((bad + 1))
    fi
  done < <(extract "$@")
  if [ "$bad" -gt 0 ]; then
    echo "check-doc-paths: $bad of $count named paths do not exist"
    return 1
  fi
  echo "check-doc-paths: $count named paths in $# pages, all exist"
}

self_test() {
  local failures=0 out
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  mkdir -p "$dir/docs" "$dir/core/ops" "$dir/scripts"
  touch "$dir/core/ops/binary.cpp" "$dir/core/tensor.h" "$dir/scripts/run.sh" "$dir/CMakeLists.txt"
  cat >"$dir/docs/good.md" <<'EOF'
See [binary](../core/ops/binary.cpp#L10) and [the top](../CMakeLists.txt "title"),
`scripts/run.sh --help`, `core/ops/binary.cpp:12`, `core/ops/` and `CMakeLists.txt`;
docs/good.md says so. [Web](https://example.org/x) and [here](#anchor) are skipped,
as are `build/examples/train`, `tests/<family>_test.cpp`, `core/**/*.cpp`,
`kernels/cpu/...`, `ember/core/tensor.h` and kernels/cpu (no extension).
```
scripts/run.sh --help    # a command; build/examples/train is skipped
#include <ember/core/tensor.h>
// core/ops/binary.cpp, shortened
auto x = a / b;          // no path: kernels/cpu, x.h, a/b
```
A span that wraps: `scripts/run.sh
core/ops/binary.cpp`.
EOF
  cat >"$dir/README.md" <<'EOF'
Docs: [good](docs/good.md), [gone](docs/gone.md), `scripts/gone.sh`,
`core/ops/binary.cpp` and (core/ops/gone.h). A wrapped span: `scripts/run.sh
scripts/wrapped-gone.sh`. [Out](../outside.md)
~~~sh
scripts/gone-command.sh
#include "ember/core/gone.h"
x = 1  # tests/gone_test.cpp
~~~
EOF
  # shellcheck source=scripts/self-test-expect.sh
  source "$(dirname "${BASH_SOURCE[0]}")/self-test-expect.sh"
  expect 0 "good page passes" '^check-doc-paths: 13 named paths in 1 pages, all exist$' \
    check docs/good.md
  expect 1 "missing link target" '^README.md:1: docs/gone.md does not exist$' check README.md
  expect 1 "missing code-span path" '^README.md:1: scripts/gone.sh does not exist$' check README.md
  expect 1 "missing plain-text path" '^README.md:2: core/ops/gone.h does not exist$' check README.md
  expect 1 "missing path in a wrapped span" '^README.md:3: scripts/wrapped-gone.sh does not exist$' \
    check README.md
  expect 1 "link leaving the repository" '^README.md:3: \.\./outside\.md \(outside the repository\)$' \
    check README.md
  expect 1 "missing command in fenced code" '^README.md:5: scripts/gone-command.sh does not exist$' \
    check README.md
  expect 1 "missing include in fenced code" '^README.md:6: core/gone.h does not exist$' check README.md
  expect 1 "missing path in a fenced comment" '^README.md:7: tests/gone_test.cpp does not exist$' \
    check README.md
  expect 1 "count of bad paths" '^check-doc-paths: 8 of 11 named paths do not exist$' check README.md
  [ "$failures" -eq 0 ] && echo "check-doc-paths self-test: all cases pass" || return 1
}

root=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in
  --self-test) self_test; exit ;;
  --root) root=$2; shift 2 ;;
  -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
esac
cd "$root"
if [ $# -eq 0 ]; then
  set -- README.md
  while IFS= read -r page; do set -- "$@" "$page"; done < <(find docs -name '*.md' | LC_ALL=C sort)
fi
check "$@"
