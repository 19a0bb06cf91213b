#!/usr/bin/env bash
# check_wheel.sh <source-dir> <work-dir> <python> [--with-xpu] [--with-rocm]: proves the
# wheels scripts/build-wheels.sh left in <source-dir>/dist (or
# $EMBER_WHEEL_DIST) install and run on a machine with Python alone.
#  - Every wheel is a manylinux wheel with no external library outside the
#    policy (`auditwheel show`), of the version in the VERSION file, that
#    stores no shared library twice.
#  - In a mount namespace that hides the system's libraries (python_alone.sh),
#    installed_alone.sh installs `ember[xpu]` into a fresh virtual
#    environment from dist alone, trains the digits MLP on cpu and xpu, runs
#    the conformance kit on cpu, runs PyTorch and Ember in one process, and
#    loads ember-rocm's plugin with the HIP runtime it bundles.
#  - Back on the full system, in that environment: wheel_smoke.py (the CPU
#    plugin and code generator from the package), no shipped ELF file holds a
#    path of the build machine or a RUNPATH entry not relative to $ORIGIN
#    (check_relocatable.sh), the plugin wheel samples/backend_template
#    (ember-emu) builds against the installed SDK and loads, ember-xpu's
#    device computes, and an ember-xpu whose entry point declares another
#    ABI major is refused with both versions named.
set -euo pipefail
source_dir=$1
work_dir=$2
python=$3
with_xpu=false
with_rocm=false
for option in "${@:4}"; do
  case $option in
    --with-xpu) with_xpu=true ;;
    --with-rocm) with_rocm=true ;;
    *) echo "check_wheel.sh: unknown option '$option' (expected --with-xpu or --with-rocm)" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work_dir"
work_dir=$(cd "$work_dir" && pwd)
dist=${EMBER_WHEEL_DIST:-$source_dir/dist}
python=$("$python" -c 'import sys; print(sys.executable)')

wheels=("$dist"/ember-*.whl)
$with_xpu && wheels+=("$dist"/ember_xpu-*.whl)
$with_rocm && wheels+=("$dist"/ember_rocm-*.whl)
for wheel in "${wheels[@]}"; do
  [ -f "$wheel" ] || {
    echo "FAILED: no built wheel $wheel; build the wheels first: scripts/build-wheels.sh"
    exit 1
  }
done

version=$(cat "$source_dir/VERSION")
for wheel in "${wheels[@]}"; do
  report=$("$python" -m auditwheel show "$wheel" 2>&1)
  tag=$(tr '\n' ' ' <<<"$report" | sed -n 's/.*consistent with the following platform tag: "\([^"]*\)".*/\1/p')
  case $tag in
    manylinux_*) ;;
    *) echo "$report"; echo "FAILED: $wheel is no manylinux wheel"; exit 1 ;;
  esac
  if grep -q "external shared libraries" <<<"$report"; then
    echo "$report"; echo "FAILED: $wheel needs libraries outside the manylinux policy"; exit 1
  fi
  case $(basename "$wheel") in
    *-"$version"-*) ;;
    *) echo "FAILED: $wheel is not version $version (the VERSION file)"; exit 1 ;;
  esac
  # A zip file keeps no symbolic links: a library's version links would be
  # stored as copies of it. (Small text files may rightly agree, as the two
  # CMake packages' version files do.)
  copies=$("$python" -c '
import collections, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    files = collections.defaultdict(list)
    for entry in wheel.infolist():
        if ".so" in entry.filename:
            files[(entry.CRC, entry.file_size)].append(entry.filename)
    print(" ".join("=".join(names) for names in files.values() if len(names) > 1))' "$wheel")
  [ -z "$copies" ] || { echo "FAILED: $wheel stores the same library more than once: $copies"; exit 1; }
  echo "$(basename "$wheel"): $tag"
done

# The libraries the repair bundled, by the names the system has them under
# (the file's, and its SONAME, such as libdnnl.so.2): each loads here, and
# none may load where only Python is.
bundled=()
for name in $(for wheel in "${wheels[@]}"; do "$python" -m zipfile -l "$wheel"; done |
              sed -n 's|^[^ ]*\.libs/\(lib[^ ]*\)-[0-9a-f]\{8\}\(\.so[^ ]*\) .*|\1\2|p' | sort -u); do
  # Debian installs most libraries in the multiarch folder, a few (libgloo)
  # in /usr/lib itself.
  system_file=/usr/lib/x86_64-linux-gnu/$name
  [ -e "$system_file" ] || system_file=/usr/lib/$name
  soname=$(readelf -d "$system_file" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p' || true)
  for system_name in "$name" $soname; do
    "$python" -c "import ctypes, sys; ctypes.CDLL(sys.argv[1])" "$system_name" ||
      { echo "FAILED: the bundled $name is not the system's library $system_name"; exit 1; }
    bundled+=("$system_name")
  done
done

rm -rf "$work_dir/venv" "$work_dir/alone"
mkdir -p "$work_dir/alone"
sklearn_data=$("$python" -c 'import os, sklearn.datasets as d; print(os.path.join(os.path.dirname(d.__file__), "data"))')
cp "$sklearn_data/digits.csv.gz" "$work_dir/alone/"
purelib=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$here/python_alone.sh" "$python" "$work_dir/alone" "$here/installed_alone.sh" "$python" "$dist" "$work_dir/venv" \
  "$work_dir/alone/digits.csv.gz" "$purelib" "${bundled[@]}"

cd "$work_dir"
smoke_env=(env -u PYTHONPATH -u EMBER_PLUGIN_PATH -u EMBER_PLUGIN_AUTOLOAD -u EMBER_PLUGINS)
"${smoke_env[@]}" "$work_dir/venv/bin/python" "$here/wheel_smoke.py"
# The wheel's ember-run console script launches workers that reach its store
# and all-reduce through the wheel's gloo plugin.
printf '%s
' 'import ember, ember.distributed as d' 'd.init_process_group("gloo")' 't = ember.ones(2)' \
  'd.all_reduce(t)' 'assert t.tolist() == [2.0, 2.0], t' >"$work_dir/run_worker.py"
"${smoke_env[@]}" "$work_dir/venv/bin/ember-run" --nproc-per-node 2 "$work_dir/run_worker.py"
site_packages=$("$work_dir/venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
"$here/check_relocatable.sh" "$site_packages/ember" "$source_dir" "$work_dir" /tmp/

# The plugin builds against the installed core (no build isolation, so no
# index has to serve `ember`); --no-index: its `ember` dependency must be met
# by the core already there.
"$work_dir/venv/bin/python" -m pip install -q scikit-build-core
"${smoke_env[@]}" "$work_dir/venv/bin/python" -m pip install -q --no-index --no-build-isolation \
  -C build-dir="$work_dir/emu-build" "$source_dir/samples/backend_template"
"${smoke_env[@]}" "$work_dir/venv/bin/python" "$here/plugin_wheel_smoke.py" emu ember_emu

if $with_xpu; then
  "${smoke_env[@]}" "$work_dir/venv/bin/python" "$here/plugin_wheel_smoke.py" xpu ember_xpu
  "$here/check_relocatable.sh" "$site_packages/ember_xpu" "$source_dir" "$work_dir" /tmp/
  "${smoke_env[@]}" "$work_dir/venv/bin/python" "$here/check_abi_refused.py" "$dist"/ember_xpu-*.whl "$work_dir/abi"
fi
if $with_rocm; then
  "$here/check_relocatable.sh" "$site_packages/ember_rocm" "$source_dir" "$work_dir" /tmp/
fi
