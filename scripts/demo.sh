#!/usr/bin/env bash
# The main job: install dependencies, build, run the demos on the CPU plugin:
# the C++ one, then the Python one training on scikit-learn's digits with the
# build tree's package (the PYTHONPATH that ctest's python_tests uses).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$root/build"
"$root/build/samples/ember_demo"
echo
PYTHONPATH="$root/python:$root/build/python" python3 "$root/samples/train_digits.py" "$@"
