"""PyTorch's legacy constructors against PyTorch: Tensor(2, 3),
Tensor([1, 2]), FloatTensor and its kin, isinstance checks and type(cls)."""

import numpy
import pytest

import ember


CALLS = [
    "T.FloatTensor(2, 3)", "T.FloatTensor(numpy.zeros(3))", "T.FloatTensor([1, 2])", "T.LongTensor([1.7])",
    "T.FloatTensor()", "T.FloatTensor(T.Size([2, 2]))", "T.FloatTensor(T.ones(2, dtype=T.float64))",
    "T.FloatTensor(3.5)", "T.ByteTensor([1, 2])", "T.BoolTensor([1, 0])", "T.HalfTensor(1)", "T.BFloat16Tensor(1)",
    "T.CharTensor(1)", "T.ShortTensor(1)", "T.IntTensor(1)", "T.DoubleTensor([[1, 2]])", "T.Tensor(2, 3)",
    "T.Tensor([1, 2])", "T.Tensor()", "T.Tensor(numpy.arange(3))", "T.Tensor(T.ones(2, dtype=T.float64))",
    "T.ones(2).type(T.DoubleTensor)", "T.ones(2).type(T.LongTensor)", "T.FloatTensor(2, 3, dtype=T.float64)",
    "T.FloatTensor(2, 'x')",
]


def outcome(library, call):
    try:
        result = eval(call, {"T": library, "numpy": numpy})  # noqa: S307  (the test's own expressions)
    except Exception as error:  # noqa: BLE001  (the kind of failure is what is compared)
        return type(error).__name__
    if isinstance(result, library.Tensor):
        return str(result.dtype).split(".")[-1], tuple(result.shape), result.device.type
    return result


@pytest.mark.parametrize("call", CALLS)
def test_legacy_constructors_give_what_pytorch_gives(torch, call):
    assert outcome(ember, call) == outcome(torch, call)


def test_a_typed_constructor_returns_a_tensor_of_its_dtype_as_it_is():
    values = ember.ones(2)
    assert ember.FloatTensor(values) is values
    assert ember.FloatTensor([[1, 2], [3, 4]]).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert ember.LongTensor(3).fill_(7).tolist() == [7, 7, 7]


def test_isinstance_asks_for_the_dtype_and_device_type(torch):
    checks = "isinstance(T.ones(2), T.FloatTensor), isinstance(T.ones(2).double(), T.FloatTensor), " \
             "isinstance(T.ones(2, dtype=T.int64), T.LongTensor), isinstance(3, T.FloatTensor), " \
             "isinstance(T.ones(2), T.cuda.FloatTensor), issubclass(T.FloatTensor, T.Tensor)"
    assert outcome(ember, checks) == outcome(torch, checks) == (True, False, True, False, False, False)


def test_a_typed_constructor_refuses_another_device_type(torch):
    with pytest.raises(RuntimeError, match="legacy constructor expects device type: cuda but device type: cpu"):
        ember.cuda.FloatTensor(2, device="cpu")
    call = "T.FloatTensor(2, device='meta')"
    assert outcome(ember, call) == outcome(torch, call) == "RuntimeError"


def test_a_parameter_of_a_legacy_tensor_is_initialized_by_the_module(torch):
    class Layer(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = ember.nn.Parameter(ember.Tensor(4, 3))
            ember.nn.init.kaiming_uniform_(self.weight, a=5 ** 0.5)

    layer = Layer()
    assert layer.weight.shape == (4, 3) and layer.weight.requires_grad
    assert float(layer.weight.abs().max()) <= 1 / 3 ** 0.5
