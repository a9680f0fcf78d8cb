# Sourced by the --self-test of scripts/check-layers.sh and check-doc-paths.sh.
# expect WANT_RC NAME PATTERN COMMAND...: runs COMMAND in $dir and wants exit
# status WANT_RC and, when PATTERN is not empty, an output line matching it;
# prints pass/FAIL and counts failures in the caller's $failures.
expect() {
  local want=$1 name=$2 pattern=$3 rc=0 out
  shift 3
  out=$(cd "$dir" && "$@" 2>&1) || rc=$?
  if [ "$rc" != "$want" ] || { [ -n "$pattern" ] && ! grep -qE -- "$pattern" <<<"$out"; }; then
    echo "FAIL $name: exit $rc (wanted $want), output:"
    sed 's/^/  | /' <<<"$out"
    failures=$((failures + 1))
  else
    echo "pass $name"
  fi
}
