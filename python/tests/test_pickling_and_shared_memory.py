"""Tensors through pickle, ember.frombuffer, and shared memory between
processes (Tensor.share_memory_, Module.share_memory, tensors sent through
multiprocessing), against PyTorch's behaviour."""

import array
import copy
import gc
import os
import pickle

import pytest

import ember
import ember.multiprocessing as mp
from ember.multiprocessing.reductions import reduce_tensor
from helpers import assert_close


class Tagged(ember.Tensor):
    pass


@pytest.mark.parametrize("make", [
    lambda: ember.arange(12.0).view(3, 4),
    lambda: ember.arange(12.0).view(3, 4).t()[1:],  # a strided view: arrives contiguous
    lambda: ember.tensor(3, dtype=ember.int64),
    lambda: ember.empty(0, 5),
    lambda: ember.tensor([[True, False]]),
    lambda: ember.linspace(-2, 2, 7).to(ember.bfloat16),
    lambda: ember.tensor([1.5, -2.25], dtype=ember.float16),
])
def test_a_pickled_tensor_loads_with_its_values_shape_and_dtype(make):
    tensor = make()
    loaded = pickle.loads(pickle.dumps(tensor))
    assert type(loaded) is ember.Tensor and loaded.dtype == tensor.dtype and loaded.shape == tensor.shape
    assert loaded.tolist() == tensor.tolist()
    assert loaded.is_contiguous()
    if tensor.numel():
        assert loaded.data_ptr() != tensor.data_ptr()


def test_pickling_keeps_class_attributes_and_requires_grad_as_pytorch_does(torch):
    weight = ember.nn.Parameter(ember.ones(2, 3))
    computed = weight * 2
    buffer = ember.nn.Buffer(ember.zeros(2), persistent=False)
    tagged = Tagged(ember.ones(2))
    tagged.label = "kept"
    loaded = pickle.loads(pickle.dumps([weight, computed, buffer, tagged, weight]))
    assert type(loaded[0]) is ember.nn.Parameter and loaded[0].requires_grad
    # A computed tensor loads as a leaf that requires grad, as in PyTorch.
    theirs = pickle.loads(pickle.dumps(torch.nn.Parameter(torch.ones(2, 3)) * 2))
    assert (loaded[1].requires_grad, loaded[1].is_leaf) == (theirs.requires_grad, theirs.is_leaf) == (True, True)
    assert loaded[1].tolist() == [[2.0] * 3] * 2
    assert type(loaded[2]) is ember.nn.Buffer and loaded[2].persistent is False
    assert type(loaded[3]) is Tagged and loaded[3].label == "kept"
    assert loaded[4] is loaded[0]  # one tensor reached twice is one tensor


def test_a_meta_tensor_pickles_its_shape_only():
    loaded = pickle.loads(pickle.dumps(ember.empty(2, 3, device="meta", dtype=ember.float64)))
    assert loaded.device.type == "meta" and loaded.shape == (2, 3) and loaded.dtype == ember.float64


def test_copy_copy_makes_a_tensor_with_its_own_memory():
    tensor = ember.arange(3.0)
    copied = copy.copy(tensor)
    copied.add_(1)
    assert tensor.tolist() == [0.0, 1.0, 2.0] and copied.tolist() == [1.0, 2.0, 3.0]


def test_frombuffer_shares_the_buffers_memory_and_keeps_it_alive():
    values = array.array("f", [1.0, 2.0, 3.0, 4.0])
    tensor = ember.frombuffer(values, dtype=ember.float32, count=2, offset=4)
    tensor.mul_(10)
    assert values.tolist() == [1.0, 20.0, 30.0, 4.0]
    with pytest.raises(BufferError):  # the tensor holds the buffer
        values.append(5.0)
    del tensor
    gc.collect()
    values.append(5.0)
    kept = ember.frombuffer(bytearray(b"\x01\x02"), dtype=ember.uint8)
    gc.collect()
    assert kept.tolist() == [1, 2]


def test_frombuffer_of_a_read_only_buffer_refuses_writes():
    tensor = ember.frombuffer(b"\x00\x00\x80\x3f", dtype=ember.float32)
    assert tensor.tolist() == [1.0]
    with pytest.raises(RuntimeError, match="read-only tensor .* bytes through frombuffer"):
        tensor.add_(1)


@pytest.mark.parametrize("arguments", [
    dict(dtype="float32"), dict(dtype="float32", offset=2), dict(dtype="uint8", offset=-1),
    dict(dtype="uint8", offset=10), dict(dtype="uint8", count=11), dict(dtype="uint8", count=0),
    dict(dtype="uint8", count=-2),
])
def test_frombuffer_checks_as_pytorch_does(torch, arguments):
    def run(library):
        kwargs = dict(arguments, dtype=getattr(library, arguments["dtype"]))
        try:
            return ("ok", list(library.frombuffer(bytearray(10), **kwargs).shape))
        except Exception as error:  # noqa: BLE001  (the outcome is what is compared)
            return (type(error).__name__, str(error))

    assert run(ember) == run(torch)
    with pytest.raises(ValueError, match="buffer protocol"):
        ember.frombuffer([1, 2], dtype=ember.int16)
    assert ember.frombuffer(b"\x00\x01", dtype=ember.bool).tolist() == [False, True]
    with pytest.raises(ValueError, match="frombuffer: byte 2 of the buffer is 2, not 0 or 1"):
        ember.frombuffer(b"\x00\x01\x02", dtype=ember.bool)


def test_share_memory_keeps_the_tensor_object_and_its_autograd_state():
    weight = ember.nn.Parameter(ember.arange(6.0).view(2, 3).t())
    weight.grad = ember.ones(3, 2)
    assert not weight.is_shared()
    assert weight.share_memory_() is weight
    assert weight.is_shared() and weight.requires_grad and weight.grad.tolist() == [[1.0] * 2] * 3
    assert weight.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert weight[1:].is_shared()  # views taken afterwards are in the shared memory too
    assert ember.zeros(0).share_memory_().is_shared()
    on_meta = ember.empty(2, device="meta")
    assert on_meta.share_memory_() is on_meta and not on_meta.is_shared()


def test_module_share_memory_moves_parameters_gradients_and_buffers():
    model = ember.nn.BatchNorm1d(3)
    model(ember.randn(4, 3)).sum().backward()
    parameters = list(model.parameters())
    assert model.share_memory() is model
    assert list(model.parameters()) == parameters
    assert all(t.is_shared() for t in parameters + [p.grad for p in parameters] + list(model.buffers()))


def test_shared_memory_leaves_no_descriptor_open_once_the_tensors_are_gone():
    def open_descriptors():
        return len(os.listdir("/proc/self/fd"))

    ember.ones(1).share_memory_()  # the first call's imports and caches
    gc.collect()
    before = open_descriptors()
    tensors = [ember.ones(100).share_memory_() for _ in range(20)]
    assert open_descriptors() >= before + 20
    del tensors
    gc.collect()
    assert open_descriptors() == before


def test_multiprocessing_refuses_a_tensor_with_history():
    computed = ember.ones(2, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor which requires_grad"):
        reduce_tensor(computed)


def _train_in_place(model, data, target):
    optimizer = ember.optim.SGD(model.parameters(), lr=0.5)
    for _ in range(3):
        optimizer.zero_grad()
        ember.nn.functional.mse_loss(model(data), target).backward()
        optimizer.step()


def _double_what_arrives(queue, done):
    tensor = queue.get()
    tensor.mul_(2)
    done.put(tensor.is_shared())


def test_a_spawned_process_trains_the_parents_shared_model_hogwild():
    ember.manual_seed(0)
    model = ember.nn.Linear(4, 1)
    data, target = ember.randn(16, 4), ember.randn(16, 1)
    expected = copy.deepcopy(model)
    model.share_memory()
    context = mp.get_context("spawn")
    child = context.Process(target=_train_in_place, args=(model, data, target))
    child.start()
    child.join(120)
    assert child.exitcode == 0
    # The child's updates are in the parent's parameters: the same steps taken here give the same values.
    _train_in_place(expected, data, target)
    assert_close(model.weight, expected.weight, rtol=1e-6, atol=1e-7)
    assert_close(model.bias, expected.bias, rtol=1e-6, atol=1e-7)


def test_a_tensor_put_on_a_queue_is_the_same_memory_in_the_receiver():
    context = mp.get_context("spawn")
    queue, done = context.Queue(), context.Queue()
    tensor = ember.arange(4.0)
    child = context.Process(target=_double_what_arrives, args=(queue, done))
    child.start()
    queue.put(tensor)
    assert done.get(timeout=120) is True
    child.join(120)
    assert child.exitcode == 0
    assert tensor.is_shared() and tensor.tolist() == [0.0, 2.0, 4.0, 6.0]


def test_sharing_strategies_are_pytorchs_names(torch):
    assert mp.get_all_sharing_strategies() == torch.multiprocessing.get_all_sharing_strategies()
    assert mp.get_sharing_strategy() == "file_descriptor"
    mp.set_sharing_strategy("file_system")
    try:
        assert mp.get_sharing_strategy() == "file_system"
        with pytest.raises(AssertionError, match="invalid sharing strategy 'x'"):
            mp.set_sharing_strategy("x")
    finally:
        mp.set_sharing_strategy("file_descriptor")
