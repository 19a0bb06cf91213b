"""ember.library's custom operators against torch.library's: custom_op with
a fake implementation, per-device kernels and a derivative, reached as
ember.ops.ns.name; opcheck; and the older Library/define/impl."""

import numpy
import pytest

import ember

from helpers import assert_close


def _define(lib, namespace):
    @lib.library.custom_op(f"{namespace}::scaled_sin", mutates_args=())
    def scaled_sin(x: lib.Tensor, factor: float = 2.0) -> lib.Tensor:
        return lib.from_numpy(numpy.sin(x.detach().numpy()) * factor)

    @scaled_sin.register_fake
    def _(x, factor=2.0):
        return lib.empty_like(x)

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.factor = inputs[1]

    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * x.cos() * ctx.factor, None

    scaled_sin.register_autograd(backward, setup_context=setup_context)
    return scaled_sin


def test_custom_op_values_gradients_and_ops_namespace(torch):
    results = []
    for lib, namespace in ((ember, "embertest"), (torch, "embertest_torch")):
        op = _define(lib, namespace)
        x = lib.tensor([0.1, 0.5, 1.0], dtype=lib.float64, requires_grad=True)
        y = getattr(getattr(lib.ops, namespace), "scaled_sin")(x, 3.0)
        (y * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum().backward()
        results.append([y.detach(), x.grad, op(lib.tensor([0.2], dtype=lib.float64)).detach()])
        checked = lib.library.opcheck(op, (lib.ones(2, dtype=lib.float64, requires_grad=True), 1.5))
        assert all(value == "SUCCESS" for value in checked.values())
    for ours, theirs in zip(*results):
        assert_close(ours, theirs, rtol=1e-12)


def test_kernels_per_device_type_fake_checks_and_errors():
    @ember.library.custom_op("embertest::plus_one", mutates_args=())
    def plus_one(x: ember.Tensor) -> ember.Tensor:
        return x + 1

    @plus_one.register_kernel("cpu")
    def _(x):
        return x + 10

    assert plus_one(ember.zeros(1)).tolist() == [10.0]
    assert plus_one(ember.zeros(1, device="meta")).shape == (1,)

    @plus_one.register_fake
    def _(x):
        return ember.empty(2, dtype=x.dtype, device=x.device)

    with pytest.raises(AssertionError, match="the fake implementation gives"):
        ember.library.opcheck(plus_one, (ember.zeros(3),))
    assert "test_faketensor" in ember.library.opcheck(plus_one, (ember.zeros(3),), raise_exception=False)
    with pytest.raises(ValueError, match="expected a qualified name 'namespace::name'"):
        ember.library.custom_op("no_namespace", mutates_args=())(lambda x: x)
    with pytest.raises(AttributeError, match="has no attribute 'missing'"):
        ember.ops.embertest.missing


def test_library_define_and_impl():
    library = ember.library.Library("embertest_lib", "DEF")
    library.define("twice(Tensor x) -> Tensor")
    library.impl("twice", lambda x: x * 2, "CompositeImplicitAutograd")
    assert ember.ops.embertest_lib.twice(ember.ones(2)).tolist() == [2.0, 2.0]
    ember.library.define("embertest_lib::thrice", "(Tensor x) -> Tensor")

    @ember.library.impl("embertest_lib::thrice", "cpu")
    def thrice(x):
        return x * 3

    assert ember.ops.embertest_lib.thrice(ember.ones(1)).tolist() == [3.0]
    with pytest.raises(NotImplementedError, match="no kernel for device type 'meta'"):
        ember.ops.embertest_lib.thrice(ember.ones(1, device="meta"))
