"""Plugins from Python: listing, explicit loading with quarantine, lazy
entry-point autoload that a broken plugin can never break, ember.info."""

import ast
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import ember


def test_cpu_plugin_and_devices_are_listed():
    cpu = [p for p in ember.plugins() if p.name == "cpu"]
    assert cpu and cpu[0].loaded and cpu[0].num_kernels > 0 and cpu[0].device_type == "cpu"
    kinds = {info.device.type for info in ember.devices()}
    assert {"cpu", "meta"} <= kinds
    assert ember.device_count("cpu") >= 1 and ember.is_device_type_available("cpu")
    assert not ember.is_device_type_available("nosuchdevice")


def test_catalogue_ops_carry_the_minor_that_introduced_them():
    minors = {op.name: op.abi_minor for op in ember._C.catalogue_ops()}
    assert minors["add"] == 0 and minors["conv2d"] == 0
    assert minors["max_pool2d_backward"] == 1 and minors["layer_norm"] == 1
    # The CPU plugin is built with this SDK: the core knows every op it registers.
    (cpu,) = [p for p in ember.plugins() if p.name == "cpu" and p.loaded]
    assert cpu.skipped_ops == []


def test_a_broken_library_is_quarantined_with_its_reason(tmp_path):
    fake = tmp_path / "libember_plugin_fake.so"
    fake.write_bytes(b"not an ELF file")
    with pytest.raises(RuntimeError, match="libember_plugin_fake.so"):
        ember.load_plugin(fake)
    (entry,) = [p for p in ember.plugins() if p.path == str(fake)]
    assert not entry.loaded and "shared library" in entry.error
    assert (ember.ones(2) + 1).tolist() == [2.0, 2.0]  # the core keeps working


def test_a_path_with_a_null_byte_is_a_value_error():
    before = len(ember.plugins())
    with pytest.raises(ValueError, match=r"libember_plugin_x\.so\\0y' contains an embedded null byte"):
        ember.load_plugin("/tmp/libember_plugin_x.so\0y")
    assert len(ember.plugins()) == before


def run_python(code, env_updates, tmp_path):
    env = dict(os.environ, **env_updates)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def plugin_wheels(tmp_path):
    """Three installed 'wheels' declaring ember.plugins entry points: one whose
    module fails to import, one needing another ABI major, one pointing at a
    file that is no plugin."""
    bogus = tmp_path / "libember_plugin_bogus.so"
    bogus.write_bytes(b"garbage")
    (tmp_path / "good_spec.py").write_text(f"def spec():\n    return {{'path': {str(bogus)!r}, 'abi_major': 1}}\n")
    (tmp_path / "future_spec.py").write_text(f"spec = {{'path': {str(bogus)!r}, 'abi_major': 99, 'abi_minor': 4, "
                                             "'distribution': 'ember-future', 'version': '99.1.0'}\n")
    dist = tmp_path / "fake_plugins-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-plugins\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[ember.plugins]\nmissing = no_such_module:spec\nfuture = future_spec:spec\nbogus = good_spec:spec\n")
    return tmp_path


def test_entry_points_autoload_lazily_and_never_break_import(plugin_wheels):
    result = run_python("""
        import warnings
        warnings.simplefilter("ignore")
        import ember
        print("imported", (ember.ones(1) + 1).tolist())
        for p in ember.plugins():
            print(p.name, p.loaded, p.error)
        """, {"EMBER_PLUGIN_AUTOLOAD": "1"}, plugin_wheels)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "imported [2.0]" in out
    assert "missing False" in out and "no_such_module" in out
    major, minor = ember._C.ABI_VERSION
    assert (f"future False needs plugin ABI 99.4 (ember-future 99.1.0), but this core (ember {ember.__version__}) "
            f"has plugin ABI {major}.{minor}") in out
    assert "libember_plugin_bogus.so" in out and "cpu True" in out


def test_the_version_is_the_version_file():
    version_file = os.path.join(os.path.dirname(__file__), "..", "..", "VERSION")
    with open(version_file) as f:
        version = f.read().strip()
    assert ember.__version__ == ember._C.__version__ == version


TOY_PLUGIN = pathlib.Path(ember._C.__file__).resolve().parents[2] / "test_plugins" / "libtoy.so"


@pytest.mark.skipif(not TOY_PLUGIN.exists(), reason=f"the toy test plugin is not built ({TOY_PLUGIN} is missing)")
def test_moving_a_tensor_to_a_wheels_device_loads_its_plugin(tmp_path):
    (tmp_path / "toy_spec.py").write_text(f"spec = {{'path': {str(TOY_PLUGIN)!r}, 'abi_major': 1}}\n")
    dist = tmp_path / "toy_wheel-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-wheel\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[ember.plugins]\ntoy = toy_spec:spec\n")
    result = run_python("""
        import ember
        model = ember.nn.Linear(2, 2).to("toy")
        print(ember.ones(2).to("toy:1").device, model.weight.device)
        """, {"EMBER_PLUGIN_AUTOLOAD": "1"}, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["toy:1", "toy:0"]


def test_autoload_can_be_turned_off(plugin_wheels):
    result = run_python("""
        import ember
        print(sorted(p.name for p in ember.plugins()))
        """, {"EMBER_PLUGIN_AUTOLOAD": "0"}, plugin_wheels)
    assert result.returncode == 0, result.stderr
    assert "'cpu'" in result.stdout
    assert not {"missing", "future", "bogus"} & set(ast.literal_eval(result.stdout))


def test_import_loads_no_plugins_until_asked():
    result = subprocess.run([sys.executable, "-c", "import ember, sys; print('importlib.metadata' in sys.modules)"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_info_reports_versions_plugins_and_devices():
    result = subprocess.run([sys.executable, "-m", "ember.info"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    for expected in ("ember: 1.0.0", "numpy:", "Plugins:", "cpu 1.0.0", "kernels", "Devices:", "meta",
                     "Op coverage", "cpu primitives without a kernel: none"):
        assert expected in result.stdout
    primitives = sum(not op.composite for op in ember._C.catalogue_ops())
    (cpu_row,) = [line.split() for line in result.stdout.splitlines() if line.split()[:1] == ["cpu"]
                  and "/" in line]
    assert cpu_row[1] == f"{primitives}/{primitives}"


def test_coverage_reads_the_kernel_tables():
    import ember.info

    ops = ember._C.catalogue_ops()
    primitives = [op.name for op in ops if not op.composite]
    cpu = ember.info.coverage("cpu")
    # The CPU plugin implements every primitive and overrides the composites
    # the C++ tests compare against their decompositions.
    assert cpu["missing"] == [] and set(primitives) <= set(cpu["kernels"])
    assert {"softmax", "log_softmax", "conv2d", "max_pool2d", "layer_norm"} <= set(cpu["fused"])
    assert set(cpu["kernels"]) <= {op.name for op in ops}
    (cpu_plugin,) = [p for p in ember.plugins() if p.name == "cpu" and p.loaded]
    assert sum(len(dtypes) for dtypes in cpu["kernels"].values()) == cpu_plugin.num_kernels
    # A (op, dtype) pair the table lacks is one the dispatcher cannot run.
    assert ember.int64 in cpu["kernels"]["arange"] and ember.bool not in cpu["kernels"]["arange"]
    with pytest.raises(NotImplementedError, match="arange: no kernel for dtype bool on device 'cpu'"):
        ember.arange(3, dtype=ember.bool)
    meta = ember.info.coverage("meta")
    assert meta["kernels"] == {} and meta["fused"] == [] and meta["missing"] == primitives
    with pytest.raises(RuntimeError, match="unknown device type 'nosuchdevice'"):
        ember.info.coverage("nosuchdevice")
