#!/usr/bin/env bash
# run.sh <ember build dir> <scratch dir> [compiler flags]: installs Ember,
# then, with the same sanitizer flags as the build it consumes,
#  - builds the consumer (find_package(Ember) and find_package(EmberSDK));
#  - copies the installed backend template into an empty folder, builds it
#    against the installed SDK alone (its ember_add_plugin included), checks
#    where it installs, and certifies it with the installed kit;
#  - runs the consumer, which also checks the template's asynchronous errors;
#  - checks that the SDK says it needs DLPack when DLPack cannot be found.
set -euo pipefail
build_dir=$1
scratch=$2
flags=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
prefix=$scratch/prefix
rm -rf "$scratch"
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
flag_args=(-DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags"
           -DCMAKE_MODULE_LINKER_FLAGS="$flags")

cmake -S "$here" -B "$scratch/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" "${flag_args[@]}" >/dev/null
cmake --build "$scratch/build" >/dev/null

cp -r "$prefix/share/ember/sdk/backend_template" "$scratch/template"
cmake -S "$scratch/template" -B "$scratch/template/build" -G Ninja --no-warn-unused-cli -DCMAKE_PREFIX_PATH="$prefix" \
  "${flag_args[@]}" >/dev/null
cmake --build "$scratch/template/build" >/dev/null
emu=$scratch/template/build/libember_plugin_emu.so
# The installed ember_add_plugin installs where the core discovers plugins.
cmake --install "$scratch/template/build" --prefix "$scratch/template_prefix" >/dev/null
[ -f "$scratch/template_prefix/lib/ember/plugins/libember_plugin_emu.so" ] ||
  { echo "FAILED: the template did not install into lib/ember/plugins"; exit 1; }
kit_output=$(EMBER_PLUGIN_PATH= "$prefix/bin/ember-conformance" "$emu" --json "$scratch/template.json")
grep -q "registered (op, dtype) pairs pass (100.0%)" <<<"$kit_output" || { echo "$kit_output"; exit 1; }
grep -q "PASS  e2e/mlp" <<<"$kit_output" || { echo "$kit_output"; exit 1; }
echo "the installed backend template passes the kit"

EMBER_PLUGIN_PATH= "$scratch/build/consumer" "$emu"

if cmake -S "$here/needs_dlpack" -B "$scratch/needs_dlpack" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
     -DCMAKE_DISABLE_FIND_PACKAGE_dlpack=ON >"$scratch/needs_dlpack.log" 2>&1; then
  echo "FAILED: find_package(EmberSDK) succeeded without DLPack"
  exit 1
fi
grep -q "the Ember SDK needs DLPack 0.6 or later" "$scratch/needs_dlpack.log" ||
  { cat "$scratch/needs_dlpack.log"; echo "FAILED: no word of DLPack"; exit 1; }
echo "without DLPack, find_package(EmberSDK) says it needs it"
