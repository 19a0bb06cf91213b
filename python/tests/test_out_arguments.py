"""out= on torch's functions and Tensor.resize_, against PyTorch 2.13
(Note [Out arguments])."""

import warnings

import pytest

import ember
from ember._out_arguments import OUT_FUNCTIONS

from helpers import assert_close


def _namespace(module, prefix):
    return module if not prefix else getattr(module, prefix)


def _every_out_function():
    return [(prefix, name) for prefix, names in OUT_FUNCTIONS.items() for name in names.split()]


def test_every_function_listed_takes_out_in_pytorch_too(torch):
    # PyTorch's argument parser refuses an unknown keyword before it looks at
    # anything else; any other complaint means it took out=.
    for prefix, name in _every_out_function():
        with pytest.raises(Exception) as refused:
            getattr(_namespace(torch, prefix), name)(out=object())
        assert "unexpected keyword argument 'out'" not in str(refused.value), f"{prefix}.{name}"


@pytest.mark.parametrize("name", ["clone", "flip", "roll", "relu", "trace", "zeros_like", "rot90"])
def test_functions_without_out_in_pytorch_refuse_it(name, torch):
    args = {"flip": ([0],), "roll": (1,)}.get(name, ())
    for library in (torch, ember):
        with pytest.raises(TypeError, match="out"):
            getattr(library, name)(library.ones(2, 2), *args, out=library.empty(2, 2))


CALLS = {
    "add": lambda T, x, y: T.add(x, y, alpha=2, out=T.empty(0)),
    "mul": lambda T, x, y: T.mul(x, 3, out=T.empty(0)),
    "exp": lambda T, x, y: T.exp(x, out=T.empty(0)),
    "where": lambda T, x, y: T.where(x > 0, x, y, out=T.empty(0)),
    "clamp": lambda T, x, y: T.clamp(x, -0.5, 0.5, out=T.empty(0)),
    "cat": lambda T, x, y: T.cat([x, y], 1, out=T.empty(0)),
    "stack": lambda T, x, y: T.stack([x, y], out=T.empty(0)),
    "matmul": lambda T, x, y: T.matmul(x, y.t(), out=T.empty(0)),
    "mm": lambda T, x, y: T.mm(x, y.t(), out=T.empty(0)),
    "sum": lambda T, x, y: T.sum(x, 1, out=T.empty(0)),
    "mean": lambda T, x, y: T.mean(x, (0, 1), keepdim=True, out=T.empty(0)),
    "argmax": lambda T, x, y: T.argmax(x, 1, out=T.empty(0, dtype=T.int64)),
    "cumsum": lambda T, x, y: T.cumsum(x, 0, out=T.empty(0)),
    "softmax": lambda T, x, y: T.softmax(x, 1, out=T.empty(0)),
    "index_select": lambda T, x, y: T.index_select(x, 0, T.tensor([2, 0]), out=T.empty(0)),
    "gather": lambda T, x, y: T.gather(x, 1, T.tensor([[0], [1], [2]]), out=T.empty(0)),
    "pow": lambda T, x, y: T.pow(x, 2, out=T.empty(0)),
    "special.erf": lambda T, x, y: T.special.erf(x, out=T.empty(0)),
    "linalg.vector_norm": lambda T, x, y: T.linalg.vector_norm(x, dim=1, out=T.empty(0)),
    "eq (bool out)": lambda T, x, y: T.eq(x, y, out=T.empty(0, dtype=T.bool)),
    "add (int result into float out)": lambda T, x, y: T.add(T.arange(4), 1, out=T.empty(0)),
}


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_out_gets_the_result_and_is_returned(call, torch):
    values = [[0.5, -1.0, 2.0, 0.25], [1.5, -0.75, 0.0, 3.0], [-2.0, 0.125, 1.0, -0.5]]
    other = [[1.0, 2.0, -1.0, 0.5], [0.25, -0.5, 1.0, 2.0], [3.0, -1.5, 0.75, 1.0]]
    expected = call(torch, torch.tensor(values), torch.tensor(other))
    got = call(ember, ember.tensor(values), ember.tensor(other))
    assert got.dtype == getattr(ember, str(expected.dtype).removeprefix("torch."))
    assert_close(got, expected)


def test_the_returned_tensor_is_out_itself_and_no_copy_is_left_behind():
    x = ember.arange(6.0).reshape(2, 3)
    out = ember.empty(2, 3)
    assert ember.add(x, 1, out=out) is out
    assert out.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    # out may be one of the inputs, and may be strided.
    assert ember.mul(x, x, out=x) is x
    assert x.tolist() == [[0.0, 1.0, 4.0], [9.0, 16.0, 25.0]]
    base = ember.zeros(3, 2)
    ember.neg(ember.ones(2, 3), out=base.t())
    assert base.tolist() == [[-1.0, -1.0]] * 3


def test_several_outputs_go_into_a_tuple_of_out_tensors(torch):
    data = [[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]]
    for library in (torch, ember):
        x = library.tensor(data)
        values, indices = library.empty(0), library.empty(0, dtype=library.int64)
        result = library.max(x, 1, out=(values, indices))
        assert result.values is values and result.indices is indices
        assert values.tolist() == [3.0, 4.0] and indices.tolist() == [0, 1]
        sorted_values, order = library.empty(0), library.empty(0, dtype=library.int64)
        library.sort(x, 1, descending=True, out=(sorted_values, order))
        assert sorted_values.tolist() == [[3.0, 2.0, 1.0], [4.0, 0.5, -1.0]]
        assert order.tolist() == [[0, 2, 1], [1, 0, 2]]
        q, r = library.empty(0), library.empty(0)
        library.linalg.qr(library.tensor([[2.0, 0.0], [0.0, 3.0]]), out=(q, r))
        assert_close(q.abs(), library.eye(2))
        assert_close(r.abs(), library.tensor([[2.0, 0.0], [0.0, 3.0]]))
    with pytest.raises(TypeError, match="tuple of 2 Tensors"):
        ember.max(ember.ones(2, 2), 1, out=ember.empty(0))


def test_factories_make_outs_dtype(torch):
    for library in (torch, ember):
        ints = library.zeros(3, out=library.empty(0, dtype=library.int64))
        assert ints.dtype == library.int64 and ints.tolist() == [0, 0, 0]
        steps = library.arange(3, out=library.empty(0, dtype=library.float64))
        assert steps.dtype == library.float64 and steps.tolist() == [0.0, 1.0, 2.0]
        assert library.linspace(0, 1, 3, out=library.empty(0)).tolist() == [0.0, 0.5, 1.0]


def test_an_out_of_another_shape_is_resized_with_a_warning_unless_it_was_empty(torch):
    for library in (torch, ember):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert library.exp(library.zeros(3), out=library.empty(0)).tolist() == [1.0, 1.0, 1.0]
        with pytest.warns(UserWarning, match="resized since it had shape \\[2\\].*required output shape \\[3\\]"):
            result = library.exp(library.zeros(3), out=library.empty(2))
        assert result.shape == (3,)


def test_bad_outs_are_refused_and_left_as_they_were(torch):
    for library, int_name in ((torch, "Long"), (ember, "int64")):
        x = library.ones(3)
        ints = library.tensor([7, 7, 7])
        with pytest.raises(RuntimeError, match=f"result type Float|result type float32.*type {int_name}"):
            library.add(x, 0.5, out=ints)
        assert ints.tolist() == [7, 7, 7]
        flags = library.tensor([True, False, True])
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            library.add(library.arange(3), 1, out=flags)
        assert flags.tolist() == [True, False, True]
        weights = library.ones(3, requires_grad=True)
        target = library.zeros(3)
        with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
            library.mul(weights, 2, out=target)
        assert target.tolist() == [0.0, 0.0, 0.0]
        with library.no_grad():
            library.mul(weights, 2, out=target)
        assert target.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(TypeError, match="argument 'out' must be Tensor"):
        ember.exp(ember.ones(2), out=[1.0, 2.0])


def test_can_cast_follows_pytorch(torch):
    names = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
    for source in names:
        for target in names:
            assert ember.can_cast(getattr(ember, source), getattr(ember, target)) == torch.can_cast(
                getattr(torch, source), getattr(torch, target)), (source, target)


def test_resize_keeps_or_replaces_storage_as_pytorch_does(torch):
    for library in (torch, ember):
        x = library.arange(6.0)
        alias = x[:]
        assert x.resize_(2, 2) is x
        assert x.shape == (2, 2) and x.tolist() == [[0.0, 1.0], [2.0, 3.0]]
        x[0, 0] = 10.0
        assert alias[0].item() == 10.0  # a smaller shape keeps the storage
        x.resize_(3, 3)
        assert x.shape == (3, 3) and x.reshape(-1)[:4].tolist() == [10.0, 1.0, 2.0, 3.0]
        assert x.resize_((0,)).numel() == 0
        assert x.resize_as_(library.ones(2, 5)).shape == (2, 5)
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            library.ones(2, requires_grad=True).resize_(3)
        with pytest.raises(RuntimeError):
            library.ones(2).resize_(-1)
    with pytest.raises(RuntimeError, match="negative dimension: \\[-1\\]"):
        ember.ones(2).resize_(-1)
