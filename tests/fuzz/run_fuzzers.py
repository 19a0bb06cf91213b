#!/usr/bin/env python3
"""Runs every fuzz target for a bounded number of executions over its seed
corpus (tests/fuzz/corpus/<target>/) and fails on a crash, on fewer
executions than asked for, or on a target that could not run.

    run_fuzzers.py --build build-fuzz [--runs 100000] [--max-time 30] [--json out.json] [target ...]

The C++ targets are the libFuzzer binaries of an EMBER_BUILD_FUZZERS build
(build-fuzz/fuzz/ember_fuzz_<target>), run under ASan and UBSan with
-malloc_limit_mb (no single allocation over the cap) and -rss_limit_mb;
the Python targets run with atheris, which has no malloc hooks, so only
-rss_limit_mb bounds them. New inputs go to a scratch folder, never into the
checked-in corpus; a crashing input is kept under --artifacts and its path
printed: fix the bug, then add the input to the corpus."""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CPP_TARGETS = {"export_loader": "json.dict", "kernel_ir": "ekir.dict"}
PYTHON_TARGETS = ["safetensors", "nested_state", "plugin_metadata"]
# A small file may never make the loader ask for more than this at once.
MALLOC_LIMIT_MB = 64
RSS_LIMIT_MB = 2048
MAX_LEN = 64 * 1024


def command_for(target, build):
    if target in CPP_TARGETS:
        binary = os.path.join(build, "fuzz", f"ember_fuzz_{target}")
        if not os.path.exists(binary):
            return None, f"{binary} is not built (configure with -DEMBER_BUILD_FUZZERS=ON under clang)"
        return [binary, f"-malloc_limit_mb={MALLOC_LIMIT_MB}", f"-dict={os.path.join(HERE, CPP_TARGETS[target])}"], None
    try:
        import atheris  # noqa: F401
    except ImportError:
        return None, "atheris is not installed (python3 -m pip install atheris)"
    return [sys.executable, os.path.join(HERE, f"fuzz_{target}.py")], None


def run_target(target, args, artifacts):
    command, missing = command_for(target, args.build)
    if command is None:
        return {"target": target, "status": "not run", "reason": missing}
    scratch = tempfile.mkdtemp(prefix=f"ember-fuzz-{target}-")
    seeds = os.path.join(HERE, "corpus", target)
    command += [f"-runs={args.runs}", f"-max_total_time={args.max_time}", f"-rss_limit_mb={RSS_LIMIT_MB}",
                f"-max_len={MAX_LEN}", "-timeout=10", "-print_final_stats=1",
                f"-artifact_prefix={os.path.join(artifacts, target)}-", scratch, seeds]
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1:allocator_may_return_null=0")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    python_path = [os.path.join(ROOT, "python")]
    if args.python_build:
        python_path.append(os.path.join(args.python_build, "python"))
    env["PYTHONPATH"] = os.pathsep.join(python_path + [env.get("PYTHONPATH", "")])
    start = time.monotonic()
    result = subprocess.run(command, env=env, capture_output=True, text=True, errors="replace")
    seconds = time.monotonic() - start
    shutil.rmtree(scratch, ignore_errors=True)
    output = result.stdout + result.stderr
    runs = re.findall(r"stat::number_of_executed_units: (\d+)", output)
    done = re.findall(r"#(\d+)\s+DONE\s+cov: (\d+) ft: (\d+) corp: (\d+)/", output)
    executions = int(runs[-1]) if runs else (int(done[-1][0]) if done else 0)
    record = {"target": target, "executions": executions, "seconds": round(seconds, 1),
              "coverage": int(done[-1][1]) if done else None, "features": int(done[-1][2]) if done else None,
              "corpus": int(done[-1][3]) if done else None, "returncode": result.returncode}
    if result.returncode != 0:
        crash = re.findall(r"Test unit written to (\S+)", output)
        record.update(status="crash", artifact=crash[-1] if crash else None, log=output[-4000:])
    elif executions < args.runs:
        record.update(status="short", reason=f"{executions} executions in {args.max_time} s, fewer than {args.runs}")
    else:
        record["status"] = "ok"
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("targets", nargs="*", help="default: all")
    parser.add_argument("--build", default=os.path.join(ROOT, "build-fuzz"), help="the EMBER_BUILD_FUZZERS build")
    parser.add_argument("--python-build", default=os.path.join(ROOT, "build"),
                        help="the build whose python/ holds ember._C for the Python targets")
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--max-time", type=int, default=30, help="seconds per target, at most")
    parser.add_argument("--artifacts", default=os.path.join(tempfile.gettempdir(), "ember-fuzz-artifacts"))
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--require-all", action="store_true", help="a target that cannot run is a failure")
    args = parser.parse_args()
    os.makedirs(args.artifacts, exist_ok=True)
    targets = args.targets or list(CPP_TARGETS) + PYTHON_TARGETS
    results = []
    for target in targets:
        record = run_target(target, args, args.artifacts)
        results.append(record)
        line = f"fuzz {target}: {record['status']}"
        if "executions" in record:
            line += (f", {record['executions']} executions in {record['seconds']} s, coverage {record['coverage']}, "
                     f"corpus {record['corpus']}")
        if record.get("reason"):
            line += f" ({record['reason']})"
        if record["status"] == "crash":
            line += f"; input kept at {record['artifact']}\n{record['log']}"
        print(line, flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    bad = [r for r in results if r["status"] in ("crash", "short") or (args.require_all and r["status"] == "not run")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
