#!/usr/bin/env bash
# Installs, with apt-get, the Debian packages ember builds with that are
# missing on this machine (Debian 12). Idempotent: when everything is there it
# runs no apt-get at all; otherwise one `apt-get update`, then the installs.
# Needs root (or sudo) only when something is missing.
# --with-data also installs the sample trainer's default data set (Fashion-MNIST,
# in /usr/share/datasets/fashion-mnist).
set -euo pipefail

# clang with its runtime (libFuzzer, sanitizers) builds the sanitizer and
# fuzzing half of scripts/test.sh.
# libgloo-dev: Gloo, the collectives under ember::distributed (distributed/).
required=(cmake ninja-build g++ clang libclang-rt-dev libeigen3-dev catch2 ccache zlib1g-dev libgloo-dev)
if [ "${1:-}" = "--with-data" ]; then
  required+=(dataset-fashion-mnist)
fi
optional=(libbenchmark-dev graphviz)  # Google Benchmark; dot for the docs' pictures

is_installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

missing_of() {
  local pkg
  for pkg in "$@"; do
    is_installed "$pkg" || echo "$pkg"
  done
}

mapfile -t missing_required < <(missing_of "${required[@]}")
mapfile -t missing_optional < <(missing_of "${optional[@]}")
if [ ${#missing_required[@]} -eq 0 ] && [ ${#missing_optional[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi

if ! command -v apt-get >/dev/null; then
  echo "setup: missing ${missing_required[*]} ${missing_optional[*]}, and there is no apt-get;" \
       "install them by hand" >&2
  exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: run as root to install packages" >&2; exit 1; }
  sudo=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
if [ ${#missing_required[@]} -gt 0 ]; then
  echo "setup: installing ${missing_required[*]}"
  "${sudo[@]}" apt-get install -y --no-install-recommends "${missing_required[@]}"
fi
if [ ${#missing_optional[@]} -gt 0 ]; then
  echo "setup: installing the optional ${missing_optional[*]}"
  "${sudo[@]}" apt-get install -y --no-install-recommends "${missing_optional[@]}" ||
    echo "setup: could not install ${missing_optional[*]} (optional); continuing" >&2
fi
