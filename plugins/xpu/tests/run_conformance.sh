#!/usr/bin/env bash
# run_conformance.sh <ember-conformance> <plugin.so> <report.json>: certifies
# the XPU plugin; exits 77 (ctest: skipped) when no OpenCL device is present.
set -uo pipefail
output=$("$1" "$2" --json "$3" 2>&1)
status=$?
echo "$output"
if grep -q "the plugin provides no device" <<<"$output"; then
  echo "SKIPPED: no OpenCL device (install pocl-opencl-icd for PoCL, or set EMBER_XPU_PLATFORM)"
  exit 77
fi
exit $status
