#!/usr/bin/env bash
# Builds and runs Ember's benchmarks and prints the markdown table that
# docs/benchmarks.md is written from.
#
#   bench/run.sh            full run (about 5 minutes on 2 cores)
#   BUILD_DIR=... JOBS=...  override the build folder (build-bench) and -j (2)
#   ROUNDS=3                alternating Ember/libtorch dispatch rounds, and
#                           Ember/libtorch/PyTorch autograd rounds
#   SKIP_AUTOGRAD=1         leave out the autograd rounds (about 3 minutes)
#   SKIP_BUILD=1            reuse what is built
#
# Every verdict is a ratio of figures measured side by side in this run:
# bandwidth and matmul references run in the same process (repetitions
# randomly interleaved), the libtorch dispatch reference and the autograd
# references (libtorch C++ and PyTorch from Python) in alternating rounds.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build-bench}"
JOBS="${JOBS:-2}"
ROUNDS="${ROUNDS:-3}"
RESULTS="$BUILD_DIR/results"
PY="${PYTHON:-python3}"
REPS=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true)

# The pip wheel's libtorch, when torch is importable (optional).
TORCH_PREFIX="$("$PY" -c 'import torch;print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DEMBER_BUILD_BENCHMARKS=ON -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_SAMPLES=OFF \
    ${TORCH_PREFIX:+-DCMAKE_PREFIX_PATH="$TORCH_PREFIX"} >/dev/null
  targets=(ember_bench ember_plugin_cpu)
  if cmake --build "$BUILD_DIR" --target help | grep -q '^ember_bench_libtorch:'; then
    targets+=(ember_bench_libtorch)
  fi
  cmake --build "$BUILD_DIR" -j"$JOBS" --target "${targets[@]}"
fi

EMBER_BENCH="$BUILD_DIR/bench/ember_bench"
TORCH_BENCH="$BUILD_DIR/bench/libtorch/ember_bench_libtorch"
rm -rf "$RESULTS"
mkdir -p "$RESULTS"

echo "== machine" >&2
lscpu | grep -E '^(Model name|CPU\(s\)|Thread|Core|L3)' >&2 || true
grep MemTotal /proc/meminfo >&2 || true

echo "== ember_bench: bandwidth and matmul vs same-process references" >&2
"$EMBER_BENCH" --benchmark_filter='^BM_(Stream|Matmul)_' "${REPS[@]}" \
  --benchmark_enable_random_interleaving=true \
  --benchmark_out="$RESULTS/ember.json" --benchmark_out_format=json >&2

echo "== dispatch: $ROUNDS alternating rounds, Ember then libtorch" >&2
for ((k = 1; k <= ROUNDS; k++)); do
  "$EMBER_BENCH" --benchmark_filter='^BM_Dispatch_' "${REPS[@]}" \
    --benchmark_enable_random_interleaving=true \
    --benchmark_out="$RESULTS/dispatch_ember_$k.json" --benchmark_out_format=json >&2
  if [[ -x "$TORCH_BENCH" ]]; then
    "$TORCH_BENCH" --benchmark_filter='^BM_Torch_' "${REPS[@]}" --benchmark_enable_random_interleaving=true \
      --benchmark_out="$RESULTS/dispatch_torch_$k.json" --benchmark_out_format=json >&2
  else
    echo "(ember_bench_libtorch not built: pip install torch, then rerun)" >&2
  fi
done

if [[ "${SKIP_AUTOGRAD:-0}" != 1 ]]; then
  echo "== autograd: $ROUNDS alternating rounds, Ember, libtorch, PyTorch (Python)" >&2
  for ((k = 1; k <= ROUNDS; k++)); do
    "$EMBER_BENCH" --benchmark_filter='^BM_Autograd_' "${REPS[@]}" \
      --benchmark_out="$RESULTS/autograd_ember_$k.json" --benchmark_out_format=json >&2
    if [[ -x "$TORCH_BENCH" ]]; then
      "$TORCH_BENCH" --benchmark_filter='^BM_TorchAutograd_' "${REPS[@]}" \
        --benchmark_out="$RESULTS/autograd_torch_$k.json" --benchmark_out_format=json >&2
    fi
    if [[ -n "$TORCH_PREFIX" ]]; then
      "$PY" "$ROOT/bench/compare_torch.py" --suite autograd --repeats 5 >"$RESULTS/autograd_py_$k.json"
    fi
  done
fi

if [[ -n "$TORCH_PREFIX" ]]; then
  echo "== PyTorch from Python (reference only)" >&2
  "$PY" "$ROOT/bench/compare_torch.py" --repeats 5 >"$RESULTS/torch_py.json"
fi

echo >&2
"$PY" "$ROOT/bench/report.py" "$RESULTS"
