#!/usr/bin/env bash
# One command: sets up (with the default data set), builds (Release) and runs
# the sample trainer, examples/train, on Fashion-MNIST. Arguments go to the
# trainer (see `scripts/run.sh --help`).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --with-data
scripts/build.sh train
exec "${EMBER_BUILD_DIR:-build}/examples/train" "$@"
