"""The Python packages of the plugin wheels (plugins/*/python), as pip lays
them out in site-packages: the entry point's spec carries the version and
plugin ABI the build wrote, and ember-cuda names the NVIDIA wheel it misses."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import ember

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def install_package(site_packages, device_type):
    """Copies ember_<device_type> into site_packages with the _build_info.py
    its wheel's build writes."""
    package = site_packages / f"ember_{device_type}"
    shutil.copytree(os.path.join(REPO, "plugins", device_type, "python", f"ember_{device_type}"), package)
    major, minor = ember._C.ABI_VERSION
    (package / "_build_info.py").write_text(f"version = '{ember.__version__}'\nabi_major = {major}\n"
                                            f"abi_minor = {minor}\n")
    return package


def plugin_spec(site_packages, device_type):
    code = textwrap.dedent(f"""
        import ember_{device_type}
        try:
            print(ember_{device_type}.plugin())
        except RuntimeError as error:
            print("RuntimeError:", error)
        """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, PYTHONPATH=str(site_packages)))
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize("device_type", ["xpu", "rocm"])
def test_the_spec_declares_the_abi_the_build_wrote(tmp_path, device_type):
    package = install_package(tmp_path, device_type)
    major, minor = ember._C.ABI_VERSION
    spec = plugin_spec(tmp_path, device_type)
    library = os.path.join(str(package), "ember", "plugins", f"libember_plugin_{device_type}.so")
    assert spec == str({"path": library, "abi_major": major, "abi_minor": minor,
                        "distribution": f"ember-{device_type}", "version": ember.__version__})


def test_ember_cuda_names_the_nvidia_wheel_it_misses(tmp_path):
    package = install_package(tmp_path, "cuda")
    vendor = tmp_path / "nvidia" / "cu13" / "lib"
    vendor.mkdir(parents=True)
    (vendor / "libnvrtc.so.13").write_bytes(b"")
    spec = plugin_spec(tmp_path, "cuda")
    assert spec == (f"RuntimeError: ember-cuda needs libcublas.so.13 (from the wheel nvidia-cublas), not found in "
                    f"{vendor}; pip install nvidia-cublas")
    (vendor / "libcublas.so.13").write_bytes(b"")
    assert os.path.join(str(package), "ember", "plugins", "libember_plugin_cuda.so") in plugin_spec(tmp_path, "cuda")
