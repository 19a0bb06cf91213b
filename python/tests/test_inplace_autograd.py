"""In-place writes under autograd, checked against PyTorch: writes through
every kind of view (the base's history is rebased, CopySlices), in-place
forms of out-of-place ops on intermediates, overwrites that cut history,
subgradients at zero, custom Function checks and cycles, hook handles and
PyTorch's node names."""

import gc
import weakref

import pytest

import ember


def _flat(value):
    """Nested lists and tuples of numbers (and None) as one flat list."""
    if isinstance(value, (list, tuple)):
        return [x for item in value for x in _flat(item)]
    return [value]


def assert_same(actual, expected):
    assert _flat(actual) == pytest.approx(_flat(expected), rel=1e-5, abs=1e-7)


def _grads(lib, program):
    w = lib.tensor([[0.5, -1.0, 2.0], [3.0, -0.25, 1.5]], requires_grad=True)
    v = lib.tensor([7.0, 8.0], requires_grad=True)
    out = program(lib, w, v)
    out.sum().backward()
    return [None if t.grad is None else t.grad.tolist() for t in (w, v)]


def _set_element(lib, w, v):
    x = w * 1
    x[0, 0] = 0.0
    return x * 3


def _set_column(lib, w, v):
    x = w * 1
    x[:, 0] = 0
    return x * x


def _mul_row(lib, w, v):
    x = w * 1
    x[0].mul_(10)
    return x * x


def _copy_slice(lib, w, v):
    x = w * 2
    x[1, 1:].copy_(v * v)
    return x * x


def _view_mul(lib, w, v):
    y = w * 1
    y.view(6).mul_(5)
    return y * y


def _transposed_add(lib, w, v):
    y = w * 1
    y.t()[2].add_(v)
    return y * y


def _strided_write(lib, w, v):
    y = w * 1
    y.view(-1)[::2] = v.sum()
    return y * w


def _stale_view(lib, w, v):
    x = w * 1
    row = x[1]
    x.mul_(2)
    return row * row


def _base_without_history(lib, w, v):
    x = lib.zeros(3)
    x[1:] = v * 2
    return x * x


def _masked(lib, w, v):
    x = w * 1
    x[x < 0] = 0
    return x * x


def _nested_views(lib, w, v):
    x = w * 1
    x[1][1:].mul_(v)
    return x.exp()


def _unary_inplace_on_view(lib, w, v):
    x = w * 1
    x[:, 1].sigmoid_()
    return x * 2


def _zero(lib, w, v):
    x = w * 3
    x.zero_()
    return x + w


def _fill_view(lib, w, v):
    x = w * 3
    x[0].fill_(1.5)
    return x * x


PROGRAMS = [_set_element, _set_column, _mul_row, _copy_slice, _view_mul, _transposed_add, _strided_write,
            _stale_view, _base_without_history, _masked, _nested_views, _unary_inplace_on_view, _zero, _fill_view]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__.strip("_"))
def test_inplace_writes_match_pytorch(torch, program):
    expected = _grads(torch, program)
    actual = _grads(ember, program)
    assert_same(actual, expected)


UNARY_INPLACE = ["sigmoid_", "tanh_", "exp_", "neg_", "abs_", "sqrt_", "log_", "sin_", "cos_", "reciprocal_",
                 "rsqrt_", "expm1_", "log1p_", "erf_", "relu_", "floor_", "ceil_", "round_", "trunc_", "sign_"]


@pytest.mark.parametrize("method", UNARY_INPLACE)
def test_unary_inplace_on_intermediates(torch, method):
    def run(lib):
        w = lib.tensor([0.5, 1.25, 2.0], requires_grad=True)
        x = w * 1
        getattr(x, method)()
        (x * x).sum().backward()
        return w.grad.tolist()

    assert_same(run(ember), run(torch))


@pytest.mark.parametrize("call", ["clamp_(min=0.7, max=1.5)", "pow_(2)", "pow_(v)", "masked_fill_(x > 1, 0.0)",
                                  "mul_(v)", "div_(v)", "add_(v, alpha=2)", "copy_(v * 3)"])
def test_inplace_with_arguments_on_intermediates(torch, call):
    def run(lib):
        w = lib.tensor([0.5, 1.25, 2.0], requires_grad=True)
        v = lib.tensor([2.0, 3.0, 0.5], requires_grad=True)
        x = w * 1
        eval("x." + call, {"x": x, "v": v})
        (x * x).sum().backward()
        return [None if t.grad is None else t.grad.tolist() for t in (w, v)]

    assert_same(run(ember), run(torch))


@pytest.mark.parametrize("make", ["LeakyReLU(0.2, inplace=True)", "ELU(inplace=True)", "SiLU(inplace=True)",
                                  "ReLU6(inplace=True)", "ReLU(inplace=True)", "Hardtanh(-0.5, 0.5, inplace=True)"])
def test_inplace_activation_modules(torch, make):
    def run(lib):
        w = lib.tensor([-1.0, 0.25, 2.0, 7.0], requires_grad=True)
        layer = eval("nn." + make, {"nn": lib.nn})
        (layer(w * 1) * 3).sum().backward()
        return w.grad.tolist()

    assert_same(run(ember), run(torch))


def test_writes_pytorch_refuses(torch):
    for lib in (ember, torch):
        w = lib.ones(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable"):
            w[0] = 2.0
        with pytest.raises(RuntimeError, match="leaf Variable"):
            w.mul_(2)
        x = w * 1
        with lib.no_grad():
            quiet = x[1:]
        with pytest.raises(RuntimeError, match="no_grad mode"):
            quiet.mul_(2)
        with lib.no_grad():
            w[0] = 5.0
        assert w.tolist() == [5.0, 1.0, 1.0]


def test_inplace_float_result_into_integer_tensor_is_refused(torch):
    for lib in (ember, torch):
        t = lib.tensor([1, 4])
        with pytest.raises(RuntimeError, match="can't be cast"):
            t.sqrt_()
        assert t.tolist() == [1, 4]


def test_subgradients_at_zero(torch):
    def run(lib):
        x = lib.zeros(3, requires_grad=True)
        x.norm().backward()
        y = lib.zeros(3, requires_grad=True)
        (y ** 0).sum().backward()
        z = lib.tensor([[3.0, -4.0], [0.0, 0.0]], requires_grad=True)
        (z.norm(dim=1).sum() + z.norm(p=3, dim=1, keepdim=True).sum()).backward()
        u = lib.zeros(2, 3, requires_grad=True)
        lib.nn.functional.normalize(u, dim=1).sum().backward()
        return x.grad.tolist(), y.grad.tolist(), z.grad.tolist(), u.grad.tolist()

    assert_same(run(ember), run(torch))


def test_clip_grad_norm_of_zero_gradients_stays_finite():
    layer = ember.nn.Linear(3, 2)
    (layer(ember.zeros(4, 3)) * 0).sum().backward()
    ember.nn.utils.clip_grad_norm_(layer.parameters(), 1.0)
    assert all(p.grad.tolist() == ember.zeros_like(p).tolist() for p in layer.parameters())


def test_node_names_follow_pytorch(torch):
    def names(lib):
        F = lib.nn.functional
        a = lib.ones(2, 3, requires_grad=True)
        t = lib.tensor([1, 0])
        results = [a * 2, a.sum(), a.mean(), a.view(6), a[0], a.exp(), F.mse_loss(a, a * 0),
                   F.cross_entropy(a, t), F.nll_loss(a, t), F.relu(a), F.linear(a, lib.ones(4, 3), lib.ones(4)),
                   a.norm(), a.sigmoid(), a.t()]
        return [type(r.grad_fn).__name__ if lib is torch else r.grad_fn.name() for r in results]

    assert names(ember) == names(torch)


class _Marker:
    """Lives in a Function's ctx; a weak reference to it tells whether the
    ctx was freed."""


def _exp_function(keep, markers):
    class Exp(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x.exp()
            if keep == "saved":
                ctx.save_for_backward(out)
            else:
                ctx.out = out
            ctx.marker = _Marker()
            markers.append(weakref.ref(ctx.marker))
            return out

        @staticmethod
        def backward(ctx, grad):
            out = ctx.saved_tensors[0] if keep == "saved" else ctx.out
            return grad * out

    return Exp


@pytest.mark.parametrize("keep", ["saved", "attribute"])
@pytest.mark.parametrize("with_backward", [True, False])
def test_a_function_that_keeps_its_output_is_freed(keep, with_backward):
    markers = []
    fn = _exp_function(keep, markers)
    w = ember.randn(4, requires_grad=True)
    for _ in range(20):
        y = fn.apply(w)
        if with_backward:
            y.sum().backward()
    del y
    gc.collect()
    assert len(markers) == 20
    assert all(m() is None for m in markers)


def test_function_output_is_the_object_forward_returned():
    class Keep(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.out = x * 2
            return ctx.out

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    class Ident(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad

    x = ember.ones(2, requires_grad=True)
    captured = {}

    class Capture(Keep):
        @staticmethod
        def forward(ctx, x):
            captured["out"] = Keep.forward(ctx, x)
            return captured["out"]

    y = Capture.apply(x)
    assert y is captured["out"]
    assert y.grad_fn.name() == "CaptureBackward"
    z = Ident.apply(x)
    assert z is not x and x.grad_fn is None and z.grad_fn is not None


def test_function_gradients_are_validated(torch):
    def run(lib, grads):
        class Scripted(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k

            @staticmethod
            def backward(ctx, grad):
                return grads(lib)

        x = lib.ones(3, requires_grad=True)
        Scripted.apply(x, 2.0).sum().backward()
        return x.grad.dtype == lib.float32, x.grad.tolist()

    for grads, error in [(lambda lib: (lib.ones(3),), "incorrect number of gradients"),
                         (lambda lib: (lib.ones(5), None), "invalid gradient at index 0"),
                         (lambda lib: (lib.ones(3), lib.ones(1)), "different than None")]:
        for lib in (ember, torch):
            with pytest.raises(RuntimeError, match=error):
                run(lib, grads)
    for grads in [lambda lib: (lib.ones(2, 3), None), lambda lib: (lib.ones(3, dtype=lib.float64), None, None)]:
        assert run(ember, grads) == run(torch, grads)


def test_hooks_are_checked_and_removable(torch):
    for lib in (ember, torch):
        w = lib.ones(3, requires_grad=True)
        y = w * 1
        y.register_hook(lambda g: g.to(lib.float64))
        with pytest.raises(RuntimeError):
            y.sum().backward()
        y = w * 1
        y.register_hook(lambda g: g[:2])
        with pytest.raises(RuntimeError):
            y.sum().backward()
        w.grad = None
        y = w * 1
        handle = y.register_hook(lambda g: g * 100)
        handle.remove()
        with w.register_hook(lambda g: g * 7):
            pass
        y.sum().backward()
        assert w.grad.tolist() == [1.0, 1.0, 1.0]
