#!/usr/bin/env bash
# run_sample.sh <ember build dir> <scratch dir> [compiler flags]: installs
# Ember, builds samples/backend_template against the installed SDK alone (as
# a vendor would), and runs the installed ember-conformance on it: every
# registered (op, dtype) must pass and the MLP must train.
set -euo pipefail
build_dir=$1
scratch=$2
flags=${3:-}
source_dir=$(cd "$(dirname "$0")/../../samples/backend_template" && pwd)
rm -rf "$scratch"
cmake --install "$build_dir" --prefix "$scratch/prefix" >/dev/null
cmake -S "$source_dir" -B "$scratch/build" -G Ninja -DCMAKE_PREFIX_PATH="$scratch/prefix" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_MODULE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$scratch/build" >/dev/null
output=$(EMBER_PLUGIN_PATH= "$scratch/prefix/bin/ember-conformance" "$scratch/build/libember_plugin_emu.so" \
  --json "$scratch/report.json")
echo "$output"
grep -q "registered (op, dtype) pairs pass (100.0%)" <<<"$output"
grep -q "PASS  e2e/mlp" <<<"$output"
