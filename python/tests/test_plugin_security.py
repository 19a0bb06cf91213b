"""What loading may never do: take a plugin from the current directory
without being told to, open a plugin other users could have replaced
(Note [Plugins others can write]), or run code from a file through pickle,
eval or exec; and what TCPStore exposes to the network."""

import ast
import os
import pathlib
import shutil
import socket
import stat
import subprocess
import sys
import textwrap

import pytest

import ember
import ember.distributed as dist

TOY_PLUGIN = pathlib.Path(ember._C.__file__).resolve().parents[2] / "test_plugins" / "libtoy.so"
needs_toy = pytest.mark.skipif(not TOY_PLUGIN.exists(),
                               reason=f"the toy test plugin is not built ({TOY_PLUGIN} is missing)")


def run_python(code, cwd, **env_updates):
    env = {k: v for k, v in os.environ.items() if k not in ("EMBER_PLUGIN_PATH", "EMBER_PLUGINS")}
    env.update(env_updates)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


LIST_PLUGINS = """
    import warnings
    warnings.simplefilter("ignore")
    import ember
    print(ember.is_device_type_available("toy"))
    for p in ember.plugins():
        print(p.name, p.loaded, p.path)
"""


@needs_toy
@pytest.mark.parametrize("plugin_path", [None, "", ":", "/nonexistent/a::/nonexistent/b"])
def test_a_plugin_in_the_current_directory_is_never_discovered(tmp_path, plugin_path):
    shutil.copy(TOY_PLUGIN, tmp_path / "libember_plugin_toy.so")
    env = {} if plugin_path is None else {"EMBER_PLUGIN_PATH": plugin_path}
    result = run_python(LIST_PLUGINS, tmp_path, **env)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "False", result.stdout
    assert str(tmp_path) not in result.stdout and "cpu True" in result.stdout


@needs_toy
def test_an_entry_point_in_the_current_directory_is_read_only_when_pythonpath_names_it(tmp_path):
    (tmp_path / "cwd_spec.py").write_text(f"spec = {{'path': {str(TOY_PLUGIN)!r}, 'abi_major': 1}}\n")
    info = tmp_path / "cwd_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: cwd-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[ember.plugins]\ntoy = cwd_spec:spec\n")
    implicit = run_python(LIST_PLUGINS, tmp_path, EMBER_PLUGIN_AUTOLOAD="1", PYTHONPATH=os.environ.get("PYTHONPATH", ""))
    assert implicit.returncode == 0, implicit.stderr
    assert implicit.stdout.splitlines()[0] == "False", implicit.stdout
    explicit = run_python(LIST_PLUGINS, tmp_path, EMBER_PLUGIN_AUTOLOAD="1",
                          PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    assert explicit.returncode == 0, explicit.stderr
    assert explicit.stdout.splitlines()[0] == "True", explicit.stdout


def plugin_copy(folder, name):
    folder.mkdir(mode=0o755, exist_ok=True)
    copy = folder / name
    shutil.copy(TOY_PLUGIN, copy)
    copy.chmod(0o755)
    return copy


def add_mode(path, bits):
    path.chmod(stat.S_IMODE(path.stat().st_mode) | bits)


@needs_toy
def test_a_plugin_file_others_can_write_is_refused_naming_it(tmp_path):
    plugin = plugin_copy(tmp_path / "plugins", "libwritable_file.so")
    add_mode(plugin, stat.S_IWOTH)
    with pytest.raises(RuntimeError, match=f"the file {plugin} is writable by other users \\(mode 0757\\)"):
        ember.load_plugin(plugin)
    (entry,) = [p for p in ember.plugins() if p.path == str(plugin)]
    assert not entry.loaded and "chmod o-w" in entry.error


@needs_toy
def test_a_plugin_in_a_folder_others_can_write_is_refused_naming_the_folder(tmp_path):
    folder = tmp_path / "open_folder"
    plugin = plugin_copy(folder, "libwritable_folder.so")
    add_mode(folder, stat.S_IWOTH)
    with pytest.raises(RuntimeError, match=f"its directory {folder} is writable by other users"):
        ember.load_plugin(plugin)


@needs_toy
def test_a_plugin_reached_through_a_link_is_checked_where_it_really_is(tmp_path):
    folder = tmp_path / "open_folder"
    plugin = plugin_copy(folder, "libreal.so")
    add_mode(folder, stat.S_IWOTH)
    link = tmp_path / "libember_plugin_linked.so"
    link.symlink_to(plugin)
    with pytest.raises(RuntimeError, match=f"its directory {folder} is writable"):
        ember.load_plugin(link)


@needs_toy
def test_a_sticky_folder_like_tmp_is_allowed(tmp_path):
    folder = tmp_path / "sticky"
    plugin = plugin_copy(folder, "libember_plugin_toy.so")
    folder.chmod(0o1777)
    result = run_python(f"""
        import ember
        info = ember.load_plugin({str(plugin)!r})
        print(info.loaded, ember.is_device_type_available("toy"))
    """, tmp_path, EMBER_PLUGINS="none")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "True"]


@needs_toy
def test_a_wheels_plugin_others_can_write_is_quarantined_with_the_reason(tmp_path):
    plugin = plugin_copy(tmp_path / "wheel", "libember_plugin_toy.so")
    add_mode(plugin, stat.S_IWOTH)
    (tmp_path / "open_spec.py").write_text(f"spec = {{'path': {str(plugin)!r}, 'abi_major': 1}}\n")
    info = tmp_path / "open_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: open-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[ember.plugins]\ntoy = open_spec:spec\n")
    result = run_python(LIST_PLUGINS + "    print([p.error for p in ember.plugins() if not p.loaded])\n", tmp_path,
                        EMBER_PLUGIN_AUTOLOAD="1",
                        PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "False"
    assert f"the file {plugin} is writable by other users" in result.stdout


# Note [No code from files]
# Loading reads data: JSON headers, raw bytes, and the pickles inside
# torch.save's archives through Ember's own reader of their opcodes, which
# builds data and tensors only (Note [PyTorch checkpoints without
# unpickling]). The scan below fails on any
# import of a serialiser that can run code (pickle and its kin) and on any
# call of eval, exec or compile anywhere in the package. Two exceptions are
# justified: the DataLoader's worker channel pickles between a process and
# the workers it forked itself (batches, and exception types), through a
# pipe, never from a file or the network; and the object collectives
# (all_gather_object, ...) pickle what a process group's ranks send each
# other, as torch.distributed's do, for peers that trust one another
# (docs/distributed.md, "Object collectives").
PACKAGE = pathlib.Path(ember.__file__).resolve().parent
CODE_RUNNING_MODULES = {"pickle", "_pickle", "cPickle", "marshal", "shelve", "dill", "cloudpickle", "joblib"}
CODE_RUNNING_CALLS = {"eval", "exec", "compile"}
PICKLE_ALLOWED = {"utils/data/_utils/worker.py", "utils/data/_utils/shared_batch.py",
                  "distributed/_object_collectives.py"}
LOADING_CODE = ["serialization.py", "_safetensors.py", "_torch_checkpoints.py", "hub.py", "_plugins.py", "export",
                "distributed/checkpoint.py"]


def uses_of_code_running_features(path):
    tree = ast.parse(path.read_text(), str(path))
    # A module may define its own function of such a name (ember.compile).
    own = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    calls = CODE_RUNNING_CALLS - own
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [(node.module or "").split(".")[0]] if node.level == 0 else []
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in calls:
            yield f"{node.func.id}() at line {node.lineno}"
            continue
        else:
            continue
        for name in names:
            if name in CODE_RUNNING_MODULES:
                yield f"import {name} at line {node.lineno}"


def python_files(relative):
    path = PACKAGE / relative
    return sorted(path.rglob("*.py")) if path.is_dir() else [path]


def test_the_loading_code_uses_no_pickle_eval_or_exec():
    found = {}
    for relative in LOADING_CODE:
        files = python_files(relative)
        assert files and all(f.exists() for f in files), f"{relative} is missing from {PACKAGE}"
        for f in files:
            if uses := list(uses_of_code_running_features(f)):
                found[str(f.relative_to(PACKAGE))] = uses
    assert not found, found


def test_no_module_of_the_package_uses_eval_or_exec_and_only_the_two_channels_pickle():
    found = {}
    for f in sorted(PACKAGE.rglob("*.py")):
        relative = f.relative_to(PACKAGE).as_posix()
        uses = [u for u in uses_of_code_running_features(f)
                if not (relative in PICKLE_ALLOWED and u.startswith("import pickle"))]
        if uses:
            found[relative] = uses
    assert not found, found


def test_the_scan_finds_what_it_looks_for(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("import pickle as p\nfrom marshal import loads\nx = eval('1')\nexec('y = 2')\n"
                       "def compile(f):\n    return compile(f)\n")
    assert list(uses_of_code_running_features(planted)) == [
        "import pickle at line 1", "import marshal at line 2", "eval() at line 3", "exec() at line 4"]


def listening_address(port):
    """The local address of the TCP socket listening on ``port`` (/proc/net/tcp)."""
    with open("/proc/net/tcp") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            address, hex_port = fields[1].split(":")
            if int(hex_port, 16) == port and fields[3] == "0A":  # 0A: LISTEN
                return socket.inet_ntoa(bytes.fromhex(address)[::-1])
    return None


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="reading listening sockets needs /proc/net/tcp")
def test_a_tcpstore_master_for_a_loopback_host_listens_only_on_loopback():
    master = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False)
    assert listening_address(master.port) == "127.0.0.1"
    everywhere = dist.TCPStore("0.0.0.0", 0, is_master=True, wait_for_workers=False)
    assert listening_address(everywhere.port) == "0.0.0.0"
