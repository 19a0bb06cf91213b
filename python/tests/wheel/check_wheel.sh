#!/usr/bin/env bash
# check_wheel.sh <source-dir> <work-dir> <python> [--with-xpu]: proves
# `pip install .`.
# Builds the wheel once (no build isolation: the build tools come from the
# interpreter running the tests; the CMake build tree under <work-dir> keeps
# later runs incremental), installs it into a fresh virtual environment and
# runs wheel_smoke.py there, outside the source tree, so only the installed
# package (core, CPU plugin, headers) can answer. Then it pip-installs the
# plugin wheel samples/backend_template (ember-emu) into the same
# environment, built against the SDK that the core wheel installed, and runs
# plugin_wheel_smoke.py: the plugin's device must be there. With --with-xpu
# it also pip-installs ./plugins/xpu (ember-xpu, built against the checkout's
# SDK headers) and checks that `import ember` alone gives an xpu device that
# computes (an OpenCL platform with a device is needed: PoCL in CI).
# Every shipped ELF file must be free of the paths it was built from (the
# source, the build folder, /tmp) and find its libraries through $ORIGIN
# only, and the conformance kit must run from the installed wheel
# (`python -m ember.conformance`): the whole kit on cpu, and with --with-xpu
# a few ABI and op checks on the pip-installed xpu plugin (the whole kit
# there costs a minute and a half of PoCL compiles; conformance_xpu runs it).
set -euo pipefail
source_dir=$1
work_dir=$2
python=$3
with_xpu=false
case ${4:-} in
  "") ;;
  --with-xpu) with_xpu=true ;;
  *) echo "check_wheel.sh: unknown option '$4' (expected --with-xpu)" >&2; exit 2 ;;
esac
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
fi
rm -rf "$work_dir/dist" "$work_dir/venv"
mkdir -p "$work_dir"
"$python" -m pip wheel "$source_dir" --no-build-isolation --no-deps -q -w "$work_dir/dist" \
  -C build-dir="$work_dir/build"
"$python" -m venv "$work_dir/venv"
"$work_dir/venv/bin/python" -m pip install -q --no-deps "$work_dir"/dist/ember-*.whl
cd "$work_dir"
smoke_env=(env -u PYTHONPATH -u EMBER_PLUGIN_PATH -u EMBER_PLUGIN_AUTOLOAD -u EMBER_PLUGINS)
"${smoke_env[@]}" "$work_dir/venv/bin/python" "$source_dir/python/tests/wheel/wheel_smoke.py"
# The wheel's ember-run console script launches a worker that reaches its store.
printf 'import ember.distributed as d\nstore, rank, size = d.rendezvous("env://")\nstore.set("ok", "1")\n' \
  >"$work_dir/run_worker.py"
"${smoke_env[@]}" "$work_dir/venv/bin/ember-run" --nproc-per-node 2 "$work_dir/run_worker.py"
site_packages=$("$work_dir/venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
"$source_dir/python/tests/wheel/check_relocatable.sh" "$site_packages/ember" "$source_dir" "$work_dir" /tmp/
# run_kit <kit arguments...>: the kit from the wheel; its whole report on
# failure, the lines naming plugin, reference and result otherwise.
run_kit() {
  local report
  if ! report=$("${smoke_env[@]}" "$work_dir/venv/bin/python" -m ember.conformance "$@" 2>&1); then
    echo "$report"
    return 1
  fi
  grep -E '^(Ember conformance|  /|Reference|Result)' <<<"$report"
}
run_kit --device cpu

# The plugin builds against the installed core (no build isolation, so no
# index has to serve `ember`); --no-index: its `ember` dependency must be met
# by the core already there.
"$work_dir/venv/bin/python" -m pip install -q scikit-build-core
"${smoke_env[@]}" "$work_dir/venv/bin/python" -m pip install -q --no-index --no-build-isolation \
  -C build-dir="$work_dir/emu-build" "$source_dir/samples/backend_template"
"${smoke_env[@]}" "$work_dir/venv/bin/python" "$source_dir/python/tests/wheel/plugin_wheel_smoke.py" emu ember_emu

if $with_xpu; then
  "${smoke_env[@]}" "$work_dir/venv/bin/python" -m pip install -q --no-index --no-build-isolation \
    -C build-dir="$work_dir/xpu-build" "$source_dir/plugins/xpu"
  # What a user types after `pip install ./plugins/xpu`, with no other step.
  "${smoke_env[@]}" "$work_dir/venv/bin/python" -c "import ember; print(ember.randn(3, device='xpu'))"
  "${smoke_env[@]}" "$work_dir/venv/bin/python" "$source_dir/python/tests/wheel/plugin_wheel_smoke.py" xpu ember_xpu
  "$source_dir/python/tests/wheel/check_relocatable.sh" "$site_packages/ember_xpu" "$source_dir" "$work_dir" /tmp/
  EMBER_XPU_CACHE_DIR="$work_dir/xpu-program-cache" POCL_CACHE_DIR="$work_dir/pocl-cache" \
    run_kit --device xpu --filter '^abi/(init|registration|device_table|copy)$' --filter '^ops/(add|neg)/float32$'
fi
