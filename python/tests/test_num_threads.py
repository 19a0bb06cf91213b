"""ember.set_num_threads and ember.get_num_threads: PyTorch's intra-op
thread count and its argument checks, the environment variables behind its
default, the threads the CPU plugin and oneDNN really start, and results
that do not depend on it."""

import os
import subprocess
import sys
import textwrap

import numpy
import pytest

import ember

try:
    import torch
except ImportError:  # the reference is optional; Ember's own checks still run
    torch = None

needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads through Linux's /proc")


@pytest.fixture
def restore_num_threads():
    initial = ember.get_num_threads()
    yield
    ember.set_num_threads(initial)


def run_python(code, **env_updates):
    env = {k: v for k, v in os.environ.items() if k not in ("EMBER_NUM_THREADS", "OMP_NUM_THREADS")}
    env.update(env_updates)
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return result


def physical_cores():
    """The documented default: distinct (package, core) pairs of the CPUs
    this process may run on."""
    cores = set()
    for cpu in os.sched_getaffinity(0):
        topology = f"/sys/devices/system/cpu/cpu{cpu}/topology"
        try:
            with open(f"{topology}/physical_package_id") as package, open(f"{topology}/core_id") as core:
                cores.add((int(package.read()), int(core.read())))
        except OSError:
            cores.add(("cpu", cpu))
    return len(cores)


def test_get_returns_what_set_set(restore_num_threads):
    for count in (1, 3, 2):
        ember.set_num_threads(count)
        assert ember.get_num_threads() == count


BAD_COUNTS = [
    (0, RuntimeError, "positive integer, but got 0"),
    (-1, RuntimeError, "positive integer, but got -1"),
    (2.5, RuntimeError, "expects an int, but got float"),
    ("2", RuntimeError, "expects an int, but got str"),
    (True, RuntimeError, "expects an int, but got bool"),
    (None, RuntimeError, "expects an int, but got NoneType"),
    (2**31, ValueError, "2147483648 does not fit in a C int"),
]


@pytest.mark.parametrize("value, error, message", BAD_COUNTS)
def test_a_bad_count_raises_what_pytorch_raises_and_changes_nothing(value, error, message, restore_num_threads):
    ember.set_num_threads(2)
    with pytest.raises(error, match=message):
        ember.set_num_threads(value)
    assert ember.get_num_threads() == 2
    if torch is not None:
        with pytest.raises(error):
            torch.set_num_threads(value)


def test_set_takes_one_positional_int(restore_num_threads):
    with pytest.raises(TypeError):
        ember.set_num_threads()
    with pytest.raises(TypeError):
        ember.set_num_threads(n=2)
    ember.set_num_threads(_IndexOnly(3))  # anything with __index__, as in PyTorch
    assert ember.get_num_threads() == 3


class _IndexOnly:
    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


@pytest.mark.parametrize("env, expected", [
    ({"EMBER_NUM_THREADS": "3"}, 3),
    ({"OMP_NUM_THREADS": "3"}, 3),
    ({"OMP_NUM_THREADS": "4,2"}, 4),
    ({"EMBER_NUM_THREADS": "2", "OMP_NUM_THREADS": "5"}, 2),
    ({"EMBER_NUM_THREADS": "0", "OMP_NUM_THREADS": "3"}, 3),
    ({}, None),
    ({"OMP_NUM_THREADS": "many"}, None),
])
def test_the_default_follows_the_environment(env, expected):
    result = run_python("import ember; print(ember.get_num_threads())", **env)
    assert int(result.stdout) == (physical_cores() if expected is None else expected)


def test_a_count_set_before_any_kernel_applies():
    result = run_python("import ember; ember.set_num_threads(3); print(ember.get_num_threads())",
                        EMBER_NUM_THREADS="1")
    assert int(result.stdout) == 3


def count_threads(name=None):
    tasks = os.listdir("/proc/self/task")
    if name is None:
        return len(tasks)
    names = []
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/comm") as comm:
                names.append(comm.read().strip())
        except OSError:  # the thread ended meanwhile
            pass
    return names.count(name)


@needs_proc
def test_the_cpu_plugin_runs_as_many_workers_as_set(restore_num_threads):
    x = ember.rand(1 << 20)
    ember.set_num_threads(3)
    (x * 2).sum()
    assert count_threads("ember-cpu") == 2  # the calling thread is the third
    ember.set_num_threads(1)
    assert count_threads("ember-cpu") == 0


ONEDNN_THREADS = """
    import os
    import ember
    {set_call}
    x, w = ember.rand(8, 16, 64, 64), ember.rand(32, 16, 3, 3)
    before = len(os.listdir("/proc/self/task"))
    ember.nn.functional.conv2d(x, w).sum()
    print(len(os.listdir("/proc/self/task")) - before)
"""


@needs_proc
@pytest.mark.parametrize("env, set_call, started", [
    ({"EMBER_NUM_THREADS": "1"}, "", 0),
    ({}, "ember.set_num_threads(1)", 0),
    ({"EMBER_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}, "ember.set_num_threads(2)", 1),
])
def test_onednn_follows_the_same_count(env, set_call, started):
    """A convolution big enough for every thread: oneDNN's OpenMP team starts
    exactly the threads beside the caller that the count allows. (A float32
    mm runs its tiles on the plugin's own threads, Note [mm bits for any
    thread count].)"""
    result = run_python(ONEDNN_THREADS.format(set_call=set_call), **env)
    assert int(result.stdout) == started


BMM_THREADS = """
    import os
    import ember
    a, b = ember.rand(32, 128, 64), ember.rand(32, 128, 64).transpose(1, 2)
    ember.zeros(1 << 20).sum()  # starts the plugin's workers
    before = len(os.listdir("/proc/self/task"))
    ember.bmm(a, b).sum()
    print(len(os.listdir("/proc/self/task")) - before)
"""


@needs_proc
def test_a_float32_bmm_runs_on_the_plugins_threads_alone():
    """Each matrix of the batch is tiled for the plugin's own threads, as an
    mm is (Note [sgemm for float32 mm]): OpenMP's team starts no thread."""
    assert int(run_python(BMM_THREADS, EMBER_NUM_THREADS="2").stdout) == 0


def test_bmm_gives_the_same_bits_for_any_thread_count(restore_num_threads):
    ember.manual_seed(0)
    a, b = ember.rand(48, 300, 70), ember.rand(48, 70, 260)
    column_major_b = b.transpose(1, 2).contiguous().transpose(1, 2)
    results = {}
    for count in (1, 2, 3):
        ember.set_num_threads(count)
        results[count] = [ember.bmm(a, b).tolist(), ember.bmm(a, column_major_b).tolist()]
    assert results[2] == results[1] and results[3] == results[1]
    expected = numpy.matmul(a.numpy().astype("float64"), b.numpy().astype("float64"))
    for result in results[1]:
        numpy.testing.assert_allclose(numpy.array(result), expected, rtol=1e-4, atol=1e-4)


def digits_cnn_training(steps):
    """Losses and weights after steps of samples/train_digits.py's CNN at the
    benchmark's batch of 64 (Ember's kernels threaded, oneDNN's convolutions
    each on one thread, Note [oneDNN threads])."""
    ember.manual_seed(0)
    nn = ember.nn
    model = nn.Sequential(
        nn.Conv2d(1, 16, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, kernel_size=3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 10))
    optimizer = ember.optim.Adam(model.parameters(), lr=3e-3)
    inputs, targets = ember.rand(64, 1, 8, 8), ember.randint(0, 10, (64,))
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses, [p.tolist() for p in model.parameters()]


def test_training_gives_the_same_bits_for_any_thread_count(restore_num_threads):
    ember.set_num_threads(1)
    expected = digits_cnn_training(3)
    for count in (2, 3):
        ember.set_num_threads(count)
        assert digits_cnn_training(3) == expected, f"{count} threads"


def convolution_and_gradients():
    ember.manual_seed(0)
    x = ember.rand(256, 16, 8, 8, requires_grad=True)
    w = ember.rand(32, 16, 3, 3, requires_grad=True)
    y = ember.nn.functional.conv2d(x, w, padding=1)
    y.backward(ember.rand(*y.shape))
    return y, x.grad, w.grad


def test_a_threaded_onednn_convolution_matches_the_single_threaded_one(restore_num_threads):
    """Big enough for oneDNN's team: the output and the input gradient keep
    their bits; the weight gradient, which oneDNN sums over the batch in one
    partial sum per thread, may differ in its last bits (docs/plugins.md)."""
    ember.set_num_threads(1)
    y1, dx1, dw1 = convolution_and_gradients()
    ember.set_num_threads(2)
    y2, dx2, dw2 = convolution_and_gradients()
    assert y2.tolist() == y1.tolist()
    assert dx2.tolist() == dx1.tolist()
    assert ember.allclose(dw2, dw1, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("shape, dims", [((64, 200, 40), (0, 2)), ((37, 50, 300), (0, 2)), ((5, 333, 7, 90), (1, 3)),
                                         ((40, 700, 24), (0,))])
def test_reductions_over_leading_dims_give_the_same_bits_for_any_thread_count(restore_num_threads, shape, dims):
    """Outputs whose runs lie a slab apart are reduced in interleaved blocks
    of neighbours (reduce.cpp), each output's runs in the same order for any
    split of the outputs over threads."""
    values = numpy.random.default_rng(1).standard_normal(shape).astype("float32")
    x = ember.tensor(values)
    expected = values.astype("float64").sum(axis=dims)
    results = {}
    for count in (1, 2, 3):
        ember.set_num_threads(count)
        results[count] = [x.sum(dim=dims).tolist(), x.amax(dim=dims).tolist(), x.mean(dim=dims).tolist()]
    assert results[2] == results[1] and results[3] == results[1]
    numpy.testing.assert_allclose(numpy.array(results[1][0]), expected, rtol=1e-5, atol=1e-4)
    numpy.testing.assert_array_equal(numpy.array(results[1][1]), values.max(axis=dims))
