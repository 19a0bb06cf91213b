"""ember.testing.assert_close against torch.testing.assert_close: what
passes, and for what fails the same exception type and the same message
(PyTorch's "torch." names read "ember." in Ember's)."""

import numpy
import pytest

import ember


def outcome(assert_close, actual, expected, **options):
    try:
        assert_close(actual, expected, **options)
    except Exception as error:
        return type(error), str(error).replace("ember._C.Tensor", "Tensor").replace("torch.Tensor", "Tensor") \
            .replace("ember.", "torch.")
    return None


def to_torch(torch, value):
    if isinstance(value, ember.Tensor) and value.dtype == ember.bfloat16:  # NumPy has no bfloat16
        return torch.from_numpy(value.to(ember.float32).numpy().copy()).to(torch.bfloat16)
    if isinstance(value, ember.Tensor):
        return torch.from_numpy(value.numpy().copy())
    if isinstance(value, dict):
        return {key: to_torch(torch, item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(to_torch(torch, item) for item in value)
    return value


CASES = [
    (ember.tensor([1.0, 2.0, 3.0]), ember.tensor([1.0, 2.5, 3.0]), {}),
    (ember.tensor([1.0, 2.0, 3.0]), ember.tensor([1.0, 2.0 + 1e-6, 3.0]), {}),  # within float32's tolerance
    (ember.tensor([1, 2, 3]), ember.tensor([1, 2, 4]), {}),
    (ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0, 3.0]), {}),
    (ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0], dtype=ember.float64), {}),
    (ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0], dtype=ember.float64), dict(check_dtype=False)),
    (ember.tensor([[1.0, 2.0], [3.0, 4.0]]), ember.tensor([[1.0, 2.0], [3.0, 0.0]]), {}),
    (ember.tensor([0.0]), ember.tensor([1e-3]), {}),
    (ember.tensor([float("nan"), 1.0]), ember.tensor([float("nan"), 1.0]), {}),
    (ember.tensor([float("nan"), 1.0]), ember.tensor([float("nan"), 1.0]), dict(equal_nan=True)),
    (ember.tensor([float("inf")]), ember.tensor([float("inf")]), {}),
    (ember.tensor(1.5), ember.tensor(1.0), {}),
    (ember.tensor([True, False]), ember.tensor([False, False]), {}),
    (ember.tensor([1.0], dtype=ember.bfloat16), ember.tensor([1.1], dtype=ember.bfloat16), {}),
    (ember.tensor([1.0], dtype=ember.float16), ember.tensor([1.0005], dtype=ember.float16), {}),
    (ember.tensor([1.0, 2.0]), ember.tensor([1.1, 2.0]), dict(rtol=0.2, atol=0.0)),
    (ember.tensor([1.0, 2.0]), ember.tensor([1.1, 2.0]), dict(rtol=0.0, atol=0.01)),
    (1.0, 1.5, {}), (1, 2, {}), (1, 1.0, {}), (1, 1.0, dict(check_dtype=False)), (True, False, {}), (None, 1, {}),
    (None, None, {}), (2.0, 2.0 + 1e-8, {}), (float("nan"), float("nan"), dict(equal_nan=True)),
    ([1.0, 2.0], [1.0, 2.5], {}), ([1], [1, 2], {}), ((1, 2), [1, 2], {}),
    ({"a": 1.0}, {"b": 1.0}, {}), ({"a": ember.ones(2)}, {"a": ember.zeros(2)}, {}),
    ([{"w": [ember.ones(1), ember.tensor([2.0])]}], [{"w": [ember.ones(1), ember.tensor([3.0])]}], {}),
    (numpy.array([1.0, 2.0]), numpy.array([1.0, 3.0]), {}), (numpy.float32(1.0), numpy.float32(1.1), {}),
    (ember.tensor(1.0), 1.0, {}), (ember.tensor([1.0]), numpy.array([1.0]), {}), ("a", "b", {}),
    (ember.ones(1), ember.zeros(1), dict(msg="custom")), (ember.ones(1), ember.ones(1), dict(rtol=1e-3)),
]


@pytest.mark.parametrize("actual,expected,options", CASES)
def test_assert_close_matches_pytorch(torch, actual, expected, options):
    ours = outcome(ember.testing.assert_close, actual, expected, **options)
    theirs = outcome(torch.testing.assert_close, to_torch(torch, actual), to_torch(torch, expected), **options)
    assert ours == theirs


def test_a_message_function_gets_the_message():
    with pytest.raises(AssertionError, match=r"^before: Tensor-likes are not close!"):
        ember.testing.assert_close(ember.ones(1), ember.zeros(1), msg=lambda message: "before: " + message)


def test_a_device_mismatch_names_both_devices():
    meta = ember.ones(1, device="meta")
    with pytest.raises(AssertionError, match="The values for attribute 'device' do not match: cpu != meta"):
        ember.testing.assert_close(ember.ones(1), meta)


def test_check_stride_compares_strides():
    transposed = ember.ones(2, 2).t().contiguous().t()
    ember.testing.assert_close(ember.ones(2, 2), transposed)
    with pytest.raises(AssertionError, match=r"^The values for attribute 'stride\(\)' do not match: \(2, 1\) != "
                                             r"\(1, 2\)\.$"):
        ember.testing.assert_close(ember.ones(2, 2), transposed, check_stride=True)
