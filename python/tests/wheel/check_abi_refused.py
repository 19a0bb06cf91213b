"""Run by check_wheel.sh: `check_abi_refused.py <ember-xpu wheel> <scratch>`
with the Python of the environment both wheels are installed in. Installs a
copy of the ember-xpu wheel whose build info declares the next plugin ABI
major (as an ember-xpu built for a newer core would), checks that `import
ember` refuses it before opening its library, naming both ABI versions and
both packages' versions, and puts the real wheel back."""

import base64
import hashlib
import os
import pathlib
import subprocess
import sys
import zipfile

import ember

wheel, scratch = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
major, minor = ember._C.ABI_VERSION
build_info = "ember_xpu/_build_info.py"
newer = f"version = '{ember.__version__}'\nabi_major = {major + 1}\nabi_minor = 0\n".encode()
digest = base64.urlsafe_b64encode(hashlib.sha256(newer).digest()).rstrip(b"=").decode()

scratch.mkdir(parents=True, exist_ok=True)
tampered = scratch / wheel.name
with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(tampered, "w", zipfile.ZIP_DEFLATED) as target:
    for item in source.infolist():
        data = source.read(item)
        if item.filename == build_info:
            data = newer
        elif item.filename.endswith(".dist-info/RECORD"):
            data = "".join(f"{build_info},sha256={digest},{len(newer)}\n" if line.startswith(build_info + ",")
                           else line for line in data.decode().splitlines(keepends=True)).encode()
        target.writestr(item, data)


def install(path):
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(path)],
                   check=True)


install(tampered)
try:
    code = "import ember\nfor p in ember.plugins():\n    print(p.name, p.loaded, p.error)\n"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "EMBER_PLUGIN_PATH", "EMBER_PLUGINS")}
    result = subprocess.run([sys.executable, "-W", "ignore", "-c", code], capture_output=True, text=True, check=True,
                            env=dict(env, EMBER_PLUGIN_AUTOLOAD="1"))
    expected = (f"xpu False needs plugin ABI {major + 1}.0 (ember-xpu {ember.__version__}), but this core "
                f"(ember {ember.__version__}) has plugin ABI {major}.{minor}")
    assert expected in result.stdout, result.stdout
    assert "cpu True" in result.stdout, result.stdout
    print("an ember-xpu for plugin ABI", major + 1, "is refused:", expected)
finally:
    install(wheel)
