#!/usr/bin/env bash
# The main job: install dependencies, build, run the demo on the CPU plugin.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$root/build"
"$root/build/samples/ember_demo"
