"""The namespaces programs touch in their first lines, against PyTorch 2.13
(CPU build): ember.accelerator, the per-device modules' seeds and current devices,
ember.backends, ember.nn.parallel, classes at their ember.nn.modules.<file>
paths, Tensor.type() and the is_<device> properties. What needs a device
other than the CPU runs in a child process with the toy test plugin."""

import importlib
import inspect
import json
import os
import pathlib
import subprocess
import sys

import pytest

import ember
import ember.nn.parallel


def raised(call):
    try:
        call()
    except Exception as error:
        return type(error)
    return None


ACCELERATOR_PROBE = """
import json
import {lib} as lib
a = lib.accelerator
try:
    a.synchronize()
    error = None
except Exception as e:
    error = [type(e).__name__, str(e)]
print(json.dumps([a.is_available(), a.current_accelerator() is None,
                  a.current_accelerator(check_available=True) is None, a.device_count(), error]))
"""


def test_accelerator_without_one_matches_pytorch_on_a_cpu_build(torch):
    # In fresh processes: another test of this session may have loaded a device plugin.
    answers = {}
    for lib in ("ember", "torch"):
        run = subprocess.run([sys.executable, "-c", ACCELERATOR_PROBE.format(lib=lib)], capture_output=True,
                             text=True, env=dict(os.environ), timeout=120)
        assert run.returncode == 0, run.stderr
        answers[lib] = json.loads(run.stdout.strip().splitlines()[-1])
    for lib, (available, current_none, checked_none, count, error) in answers.items():
        assert (available, current_none, checked_none, count) == (False, True, True, 0), lib
        assert error is not None and error[0] == "RuntimeError", (lib, error)
    assert "Cannot access accelerator device when none is available" in answers["ember"][4][1]


def test_device_modules_without_devices_leave_the_stream_alone():
    ember.manual_seed(1)
    first = ember.rand(3).tolist()
    ember.manual_seed(1)
    ember.cuda.manual_seed(5)
    ember.cuda.manual_seed_all(6)
    ember.xpu.manual_seed_all(7)
    assert ember.rand(3).tolist() == first
    assert not ember.cuda.is_available() and ember.cuda.device_count() == 0
    with pytest.raises(ValueError):
        ember.cuda.manual_seed("a")  # int() of it, as torch.cuda.manual_seed


def _current_device_outcomes(lib, module):
    """What each current-device function of lib.<module> gives: a value, or the name of the type it raises."""
    m = getattr(lib, module)
    calls = {"current_device": m.current_device, "set_device(-1)": lambda: m.set_device(-1),
             "set_device('cpu')": lambda: m.set_device("cpu"), "device(0)": lambda: m.device(0).__enter__(),
             "device(-1)": lambda: m.device(-1).__enter__(), "device('cpu')": lambda: m.device("cpu"),
             "device_of": lambda: m.device_of(lib.zeros(1)).__enter__(), "get_device_name": m.get_device_name,
             "get_device_capability": m.get_device_capability, "get_device_properties": m.get_device_properties,
             "is_initialized": m.is_initialized, "init": m.init, "mem_get_info": m.mem_get_info,
             "get_arch_list": m.get_arch_list, "ipc_collect": m.ipc_collect, "device_count": m.device_count}
    outcomes = {}
    for label, call in calls.items():
        try:
            outcomes[label] = call()
        except Exception as error:
            outcomes[label] = type(error).__name__
    return outcomes


CURRENT_DEVICE_PROBE = """
import json
import ember
modules = (ember.cuda, ember.xpu)
print(json.dumps([any(m.is_available() for m in modules), _current_device_outcomes(ember, "cuda"),
                  _current_device_outcomes(ember, "xpu"), [raised(lambda: m.set_device(0)).__name__ for m in modules],
                  [ember.cpu.current_device(), ember.cpu.set_device(1), ember.cpu.is_initialized()]]))
"""


def test_current_device_functions_without_a_device_match_pytorchs_cpu_build(torch):
    if torch.version.cuda is not None:
        pytest.skip("needs PyTorch's CPU build")
    # In a fresh process: another test of this session may have loaded a device plugin.
    script = inspect.getsource(raised) + inspect.getsource(_current_device_outcomes) + CURRENT_DEVICE_PROBE
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=dict(os.environ),
                         timeout=120)
    assert run.returncode == 0, run.stderr
    has_devices, cuda, xpu, set_device_zero, cpu = json.loads(run.stdout.strip().splitlines()[-1])
    if has_devices:
        pytest.skip("a loaded plugin provides cuda or xpu devices")
    theirs = _current_device_outcomes(torch, "cuda")
    assert cuda == theirs
    # xpu's functions are cuda's, where torch.xpu's CPU build raises other types from device()
    assert xpu == theirs
    # torch.cuda.set_device(0) of a CPU build fails looking up a missing binding; Ember's refuses as
    # current_device does
    assert set_device_zero == ["AssertionError", "AssertionError"]
    assert cpu == [torch.cpu.current_device(), torch.cpu.set_device(1), torch.cpu.is_initialized()] == ["cpu", None, True]


TOY_PLUGIN = pathlib.Path(ember._C.__file__).resolve().parents[2] / "test_plugins" / "libtoy.so"

# Runs with the toy plugin loaded (device type "toy", 2 devices, no kernels
# but copies) and prints what the test checks, as JSON.
WITH_AN_ACCELERATOR = """
import json, sys
import ember
ember.load_plugin(sys.argv[1])
seen = {}
accelerator = ember.accelerator.current_accelerator()
seen["accelerator"] = [accelerator.type, ember.accelerator.is_available(), ember.accelerator.device_count()]
ember.accelerator.synchronize()
ember.accelerator.synchronize(1)
ember.manual_seed(7)
first = ember.rand(4).tolist()
ember.manual_seed(1)
ember.toy.manual_seed_all(7)  # the one stream all devices draw from
seen["seeded"] = ember.rand(4).tolist() == first
x = ember.tensor([1.0, 2.0]).to("toy:1")
moved = ember.ones(2).type("torch.toy.FloatTensor")
seen["type"] = [x.type(), x.is_cpu, x.is_cuda, x.is_xpu, str(moved.device), moved.type()]

class Echo(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = ember.nn.Parameter(ember.ones(1))

    def forward(self, x, extra=None):
        return str(x.device), str(extra["y"].device), str(self.scale.device)

try:
    ember.nn.DataParallel(Echo())
except NotImplementedError as error:
    seen["two_devices"] = str(error)
model = ember.nn.DataParallel(Echo(), device_ids=[0])
try:
    model(ember.ones(2))
except RuntimeError as error:
    seen["not_moved"] = str(error)
model.to("toy:0")
seen["forward"] = list(model(ember.ones(2), extra={"y": ember.ones(1)}))
print(json.dumps(seen))
"""


def _seen_with_the_toy_plugin(script):
    """What `script`, run in a child process with the toy plugin's path as its argument, prints as JSON."""
    run = subprocess.run([sys.executable, "-c", script, str(TOY_PLUGIN)], capture_output=True, text=True,
                         env={**os.environ, "EMBER_PLUGIN_AUTOLOAD": "0"})
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.mark.skipif(not TOY_PLUGIN.exists(), reason=f"the toy test plugin is not built ({TOY_PLUGIN} is missing)")
def test_the_accelerator_is_the_first_plugin_device_type():
    seen = _seen_with_the_toy_plugin(WITH_AN_ACCELERATOR)
    assert seen["accelerator"] == ["toy", True, 2]
    assert seen["seeded"]
    assert seen["type"] == ["torch.toy.FloatTensor", False, False, False, "toy:0", "torch.toy.FloatTensor"]
    assert "DataParallel over 2 toy devices" in seen["two_devices"] and "device_ids=[0]" in seen["two_devices"]
    assert seen["not_moved"] == ("module must have its parameters and buffers on device toy:0 (device_ids[0]) but "
                                 "found one of them on device: cpu")
    assert seen["forward"] == ["toy:0", "toy:0", "toy:0"]


def test_backend_flags_read_like_pytorch_and_take_assignment(torch, monkeypatch):
    monkeypatch.delenv("EMBER_CUDA_ALLOW_TF32", raising=False)
    for read in (lambda b: b.cudnn.enabled, lambda b: b.cudnn.benchmark, lambda b: b.cudnn.deterministic,
                 lambda b: b.cudnn.allow_tf32, lambda b: b.cuda.matmul.allow_tf32,
                 lambda b: b.cuda.matmul.allow_fp16_reduced_precision_reduction, lambda b: b.mkldnn.enabled,
                 lambda b: b.mkldnn.is_available(), lambda b: b.mps.is_available(), lambda b: b.mps.is_built(),
                 lambda b: b.opt_einsum.is_available(), lambda b: b.opt_einsum.strategy,
                 lambda b: b.cudnn.is_available(), lambda b: b.cuda.is_built()):
        assert read(ember.backends) == read(torch.backends)
    monkeypatch.setattr(ember.backends.cudnn, "benchmark", True)
    monkeypatch.setattr(ember.backends.cudnn, "deterministic", True)
    assert ember.backends.cudnn.benchmark and ember.backends.cudnn.deterministic
    ember.backends.cuda.matmul.allow_tf32 = True  # what the CUDA plugin reads
    assert os.environ["EMBER_CUDA_ALLOW_TF32"] == "1" and ember.backends.cuda.matmul.allow_tf32
    ember.backends.cuda.matmul.allow_tf32 = False
    assert os.environ["EMBER_CUDA_ALLOW_TF32"] == "0" and not ember.backends.cuda.matmul.allow_tf32


def test_nn_parallel_without_an_accelerator_matches_pytorch(torch):
    from ember.nn.parallel import DataParallel, DistributedDataParallel

    assert ember.nn.DataParallel is DataParallel
    ours, theirs = DataParallel(ember.nn.Linear(2, 1)), torch.nn.DataParallel(torch.nn.Linear(2, 1))
    assert ours.device_ids == theirs.device_ids == []
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["module.weight", "module.bias"]
    assert tuple(ours(ember.ones(3, 2)).shape) == (3, 1)
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedDataParallel(ember.nn.Linear(1, 1))
    assert raised(lambda: torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(1, 1))) is ValueError


def test_every_class_is_at_its_pytorch_module_path(torch):
    for name in ember.nn.modules.__all__:
        path = getattr(torch.nn, name).__module__.replace("torch", "ember", 1)
        assert getattr(importlib.import_module(path), name) is getattr(ember.nn, name), (name, path)


def test_tensor_type_matches_pytorch(torch):
    dtypes = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
    for name in dtypes:
        ours, theirs = ember.zeros(2, dtype=getattr(ember, name)), torch.zeros(2, dtype=getattr(torch, name))
        assert ours.type() == theirs.type()
        assert str(ours.type(ember.float64).dtype) == "ember.float64"
        assert str(ours.type(theirs.type()).dtype) == f"ember.{name}"
    x = ember.arange(3.0)
    assert x.type("torch.IntTensor").tolist() == [0, 1, 2] and x.type(dtype="ember.LongTensor").dtype == ember.int64
    assert x.type(torch.zeros(1).type()).data_ptr() == x.data_ptr()  # no copy when nothing changes
    assert ember.zeros(1, device="meta").type() == torch.zeros(1, device="meta").type() == "torch.meta.FloatTensor"
    for bad in ("foo", "torch.Float", "IntTensor"):
        assert raised(lambda: x.type(bad)) is raised(lambda: torch.zeros(1).type(bad)) is ValueError
    with pytest.raises(ValueError, match="invalid type: 'foo'"):
        x.type("foo")
    assert raised(lambda: x.type(3)) is raised(lambda: torch.zeros(1).type(3)) is TypeError
    for device_flag in ("is_cpu", "is_cuda", "is_xpu"):
        assert getattr(x, device_flag) == getattr(torch.zeros(1), device_flag)


# Runs with the toy plugin loaded (2 devices) and prints what the current-device functions give, as JSON.
CURRENT_TOY_DEVICE = """
import json, sys, threading
import ember
ember.load_plugin(sys.argv[1])
toy, seen = ember.toy, {}
seen["start"] = [toy.is_initialized(), toy.current_device(), toy.init(), toy.get_arch_list(), toy.ipc_collect()]
properties = toy.get_device_properties(1)
seen["properties"] = [properties.name, properties.total_memory, properties.multi_processor_count,
                      toy.get_device_name(), toy.get_device_capability(), toy.mem_get_info(1)]
toy.set_device(1)
other_thread = []
thread = threading.Thread(target=lambda: other_thread.append(toy.current_device()))
thread.start()
thread.join()
seen["set"] = [toy.current_device(), str(toy.current_stream().device), str(toy.Stream().device), other_thread[0]]
with toy.device(0):
    seen["inside"] = toy.current_device()
with toy.device_of(ember.ones(1).to("toy:0")):
    seen["device_of"] = toy.current_device()
with toy.device_of(ember.ones(1)), toy.device(-1):
    seen["left"] = toy.current_device()
seen["errors"] = []
for call in (lambda: toy.set_device(2), lambda: toy.device(2).__enter__(), lambda: toy.get_device_properties(2)):
    try:
        call()
    except Exception as error:
        seen["errors"].append(type(error).__name__)
print(json.dumps(seen))
"""


@pytest.mark.skipif(not TOY_PLUGIN.exists(), reason=f"the toy test plugin is not built ({TOY_PLUGIN} is missing)")
def test_current_device_with_devices_is_per_thread_and_defaults_the_modules_functions():
    seen = _seen_with_the_toy_plugin(CURRENT_TOY_DEVICE)
    assert seen["start"] == [True, 0, None, [], None]
    assert seen["properties"] == ["toy device", 8 << 20, 1, "toy device", [0, 0], [8 << 20, 8 << 20]]
    assert seen["set"] == [1, "toy:1", "toy:1", 0]
    assert (seen["inside"], seen["device_of"], seen["left"]) == (0, 0, 1)
    assert seen["errors"] == ["RuntimeError", "RuntimeError", "AssertionError"]
