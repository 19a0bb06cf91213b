"""How long libgomp's idle threads spin, as libgomp itself reports it
(OMP_DISPLAY_ENV): Ember bounds the spin while its plugins load, leaves a
user's GOMP_SPINCOUNT or OMP_WAIT_POLICY alone, and says so when another
library loaded libgomp first (Note [OpenMP spin beside Ember's pool])."""

import os
import re
import subprocess
import sys
import textwrap

import pytest

LOAD_AND_REPORT = """
    import ctypes
    import subprocess
    {before}
    import ember
    ember.zeros(1)  # the first tensor loads the plugins
    print("policy:", ember._C._openmp_wait_policy())
    getenv = ctypes.CDLL(None).getenv
    getenv.restype = ctypes.c_char_p
    print("environment:", getenv(b"GOMP_SPINCOUNT"))
    print("child:", subprocess.run(["sh", "-c", "echo ${{GOMP_SPINCOUNT-unset}}"], capture_output=True,
                                   text=True).stdout.strip())
"""


def load_and_report(before="", **env_updates):
    """(libgomp's spin count as it read it at its load, the policy Ember
    reports, GOMP_SPINCOUNT in this process's environment afterwards, and in
    a child's)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    env.update(env_updates, OMP_DISPLAY_ENV="verbose")
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(LOAD_AND_REPORT.format(before=before))], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    spin_counts = re.findall(r"GOMP_SPINCOUNT = '(\d+)'", result.stdout + result.stderr)
    assert len(spin_counts) == 1, result.stdout + result.stderr  # one libgomp, initialised once
    fields = dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)
    return int(spin_counts[0]), fields["policy"], fields["environment"], fields["child"]


def test_ember_bounds_the_spin_only_while_its_plugins_load():
    assert load_and_report() == (10000, "GOMP_SPINCOUNT=10000 (Ember's bound)", "None", "unset")


@pytest.mark.parametrize("variable, value, spin_count", [
    ("GOMP_SPINCOUNT", "1234", 1234),
    ("OMP_WAIT_POLICY", "passive", 0),
    ("OMP_WAIT_POLICY", "active", 30000000000),
])
def test_the_users_setting_wins(variable, value, spin_count):
    spin, policy, environment, child = load_and_report(**{variable: value})
    assert spin == spin_count
    assert policy == f"{variable}={value} (the environment's)"
    expected = value if variable == "GOMP_SPINCOUNT" else None
    assert (environment, child) == (repr(expected.encode()) if expected else "None", expected or "unset")


@pytest.mark.parametrize("env, spin_count, policy", [
    ({}, 300000, "libgomp's default spin (libgomp was loaded before Ember's plugins)"),
    ({"GOMP_SPINCOUNT": "1234"}, 1234,
     "GOMP_SPINCOUNT=1234 (the environment's; libgomp was loaded before Ember's plugins)"),
])
def test_a_libgomp_loaded_first_keeps_its_spin(env, spin_count, policy):
    pytest.importorskip("torch")
    # PyTorch ships a libgomp.so.1, which the CPU plugin's oneDNN then shares.
    assert load_and_report(before="import torch", **env)[:2] == (spin_count, policy)


def test_a_plugin_that_fails_to_open_keeps_its_own_error(tmp_path):
    """The spin guard's own dlopen, which asks whether libgomp is loaded,
    leaves the loader the plugin's dlopen error to report."""
    bogus = tmp_path / "libember_plugin_bogus.so"
    bogus.write_text("not a shared library\n")
    code = textwrap.dedent("""
        import ember
        print(next(p.error for p in ember.plugins() if p.name == "bogus"))
        print(ember._C._openmp_wait_policy())
    """)
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    env["EMBER_PLUGINS"] = f"{bogus},cpu"
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    error, policy = result.stdout.splitlines()
    assert "not a loadable shared library" in error and str(bogus) in error, error
    assert "libgomp" not in error
    assert policy == "GOMP_SPINCOUNT=10000 (Ember's bound)"
