"""C++ errors arrive as the Python exception a PyTorch user expects, with
the core's message naming op, shapes and dtypes."""

import pytest

import ember


def test_shapes_that_cannot_broadcast_are_runtime_errors():
    with pytest.raises(RuntimeError, match=r"add: shapes \[2, 3\] and \[4\] cannot be broadcast"):
        ember.ones(2, 3) + ember.ones(4)


def test_runtime_errors_stay_runtime_errors():
    with pytest.raises(RuntimeError, match="leaf"):
        ember.ones(2, requires_grad=True).mul_(2)


def test_wrong_dtype_is_type_error():
    with pytest.raises(TypeError, match="int64"):
        ember.ones(2, dtype=ember.int64).fill_(0.5)


def test_bad_dimension_is_index_error():
    with pytest.raises(IndexError):
        ember.ones(2, 3).sum(5)


def test_unknown_arguments_are_type_errors():
    with pytest.raises(TypeError):
        ember.ones(2) + "a"
    with pytest.raises(TypeError):
        ember.ones(2).to(3.5)


def test_matmul_error_names_op_and_shapes():
    with pytest.raises(RuntimeError, match=r"matmul\(\): shapes \[2, 3\] and \[2, 3\]"):
        ember.ones(2, 3) @ ember.ones(2, 3)


def test_python_exceptions_from_hooks_propagate():
    x = ember.ones(2, requires_grad=True)
    y = x * 2

    def hook(grad):
        raise KeyError("from the hook")

    y.register_hook(hook)
    with pytest.raises(KeyError, match="from the hook"):
        y.sum().backward()
