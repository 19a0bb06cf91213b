#!/usr/bin/env bash
# installed_alone.sh <python> <dist> <venv> <digits.csv.gz> <torch site-packages> <bundled library>...:
# run by check_wheel.sh through python_alone.sh, so where the system's
# libraries other than glibc's, libstdc++'s, the interpreter's own and the
# OpenCL driver's are hidden. Proves that each <bundled library> (the system's
# name of one the wheels carry) cannot load, unless the interpreter itself
# links it (libcrypto, for its ssl module: the wheel's copy has its own name
# all the same), and that oneDNN, libgomp, spdlog and fmt are among them;
# creates the virtual environment <venv>, installs `ember` with the extras
# of the plugin wheels <dist> holds (`ember[xpu,rocm]`) from <dist> alone,
# and there trains the digits MLP on cpu (and on xpu), runs the conformance
# kit on cpu, runs PyTorch and Ember in one process, and loads ember-rocm's
# plugin, which finds the HIP runtime in its own wheel (no AMD GPU is needed
# for that: it then reports no device).
set -euo pipefail
python=$1
dist=$2
venv=$3
digits=$4
torch_site=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/../../.." && pwd)

"$python" - "$PYTHON_ALONE_VISIBLE" "$@" <<'EOF'
import ctypes, os, sys
with open(sys.argv[1]) as f:
    visible = {os.path.basename(line.strip()) for line in f}
hidden = [name for name in sys.argv[2:] if name not in visible]
for name in hidden:
    try:
        ctypes.CDLL(name)
    except OSError:
        continue
    sys.exit(f"FAILED: {name} loads here, so this is no machine with Python alone")
for needed in ("libdnnl.", "libgomp.", "libspdlog.", "libfmt."):
    if not any(name.startswith(needed) for name in hidden):
        sys.exit(f"FAILED: no {needed}so* among the bundled libraries hidden here: {hidden}")
print("hidden here:", " ".join(hidden))
EOF

extras=()
for plugin in xpu rocm; do
  compgen -G "$dist/ember_$plugin-*.whl" >/dev/null && extras+=("$plugin")
done
requirement=ember
[ ${#extras[@]} -eq 0 ] || requirement="ember[$(IFS=,; echo "${extras[*]}")]"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --no-index --find-links "$dist" "$requirement"
echo "installed $requirement from $dist"

cd "$venv"
"$venv/bin/python" -m ember.info | sed -n '1p'
devices=(cpu)
[[ " ${extras[*]} " == *" xpu "* ]] && devices+=(xpu)
for device in "${devices[@]}"; do
  "$venv/bin/python" "$source_dir/samples/train_digits.py" --device "$device" --models mlp --epochs 10 \
    --digits-csv "$digits" | grep -E "^digits:|^mlp: "
done
report=$("$venv/bin/python" -m ember.conformance --device cpu 2>&1) || { echo "$report"; exit 1; }
grep -E '^(Ember conformance|Result)' <<<"$report"
if [ -d "$torch_site/torch" ]; then
  "$venv/bin/python" "$here/torch_beside_ember.py" "$torch_site"
else
  echo "FAILED: no PyTorch in $torch_site to run beside Ember (scripts/install-deps.sh installs it)"
  exit 1
fi
if [[ " ${extras[*]} " == *" rocm "* ]]; then
  "$venv/bin/python" "$here/plugin_wheel_smoke.py" rocm ember_rocm --device-optional
fi
