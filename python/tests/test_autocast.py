"""ember.autocast and ember.amp.GradScaler against torch.autocast and
torch.amp.GradScaler on the CPU: the dtype each op computes in, values and
gradients, nesting, the thread state functions, compiled functions, and loss
scaling step for step."""

import warnings

import numpy
import pytest

import ember
import ember.nn.functional as F
from helpers import assert_close

RNG = numpy.random.default_rng(11)
def assert_close_in_bfloat16(actual, expected):
    """Within bfloat16's rounding of values of expected's magnitude: sums of
    bfloat16 products round differently in each library's kernels."""
    scale = max(1.0, float(expected.detach().float().abs().max()))
    assert_close(actual, expected.detach(), rtol=2e-2, atol=2e-2 * scale)


def arrays(*shapes):
    return [RNG.standard_normal(shape).astype(numpy.float32) for shape in shapes]


def both(torch, values, grad=False):
    return ([ember.tensor(v).requires_grad_(grad) for v in values],
            [torch.tensor(v).requires_grad_(grad) for v in values])


# (name, function of a library's module, shapes of its float32 inputs)
CASES = [
    ("linear", lambda lib, f, x, w, b: f.linear(x, w, b), [(4, 6), (3, 6), (3,)]),
    ("linear 3-d", lambda lib, f, x, w, b: f.linear(x, w, b), [(2, 4, 6), (3, 6), (3,)]),
    ("matmul", lambda lib, f, a, b: lib.matmul(a, b), [(2, 3, 5), (5, 4)]),
    ("@", lambda lib, f, a, b: a @ b, [(3, 5), (5, 2)]),
    ("mm", lambda lib, f, a, b: lib.mm(a, b), [(3, 5), (5, 2)]),
    ("bmm", lambda lib, f, a, b: lib.bmm(a, b), [(2, 3, 5), (2, 5, 2)]),
    ("addmm", lambda lib, f, c, a, b: lib.addmm(c, a, b), [(3, 2), (3, 5), (5, 2)]),
    ("baddbmm", lambda lib, f, c, a, b: lib.baddbmm(c, a, b), [(2, 3, 2), (2, 3, 5), (2, 5, 2)]),
    ("conv2d", lambda lib, f, x, w, b: f.conv2d(x, w, b, padding=1), [(2, 3, 6, 6), (4, 3, 3, 3), (4,)]),
    ("conv1d", lambda lib, f, x, w, b: f.conv1d(x, w, b), [(2, 3, 8), (4, 3, 3), (4,)]),
    ("scaled_dot_product_attention", lambda lib, f, q, k, v: f.scaled_dot_product_attention(q, k, v),
     [(2, 2, 5, 4), (2, 2, 5, 4), (2, 2, 5, 4)]),
    ("mse_loss", lambda lib, f, a, b: f.mse_loss(a, b), [(4, 3), (4, 3)]),
    ("l1_loss", lambda lib, f, a, b: f.l1_loss(a, b), [(4, 3), (4, 3)]),
    ("huber_loss", lambda lib, f, a, b: f.huber_loss(a, b), [(4, 3), (4, 3)]),
    ("kl_div", lambda lib, f, a, b: f.kl_div(a, b.abs(), reduction="batchmean"), [(4, 3), (4, 3)]),
    ("relu", lambda lib, f, x: f.relu(x), [(4, 3)]),
    ("softmax", lambda lib, f, x: f.softmax(x, -1), [(4, 3)]),
    ("sum", lambda lib, f, x: x.sum(), [(4, 3)]),
]


def low_precision_inputs(name):
    """The inputs of the float32-list cases come in bfloat16, as a model's activations would."""
    return name.endswith("loss") or name in ("kl_div", "relu", "softmax", "sum")


@pytest.mark.parametrize("name,fn,shapes", CASES, ids=[c[0] for c in CASES])
def test_each_op_computes_in_pytorchs_dtype(torch, name, fn, shapes):
    ours, theirs = both(torch, arrays(*shapes), grad=True)
    if low_precision_inputs(name):
        ours_in, theirs_in = [t.to(ember.bfloat16) for t in ours], [t.to(torch.bfloat16) for t in theirs]
    else:
        ours_in, theirs_in = ours, theirs
    with ember.autocast("cpu"):
        out = fn(ember, F, *ours_in)
    with torch.autocast("cpu"):
        expected = fn(torch, torch.nn.functional, *theirs_in)
    assert str(out.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
    assert_close_in_bfloat16(out.float(), expected.float())
    weights = RNG.standard_normal(tuple(expected.shape)).astype(numpy.float32)
    (out.float() * ember.tensor(weights)).sum().backward()
    (expected.float() * torch.tensor(weights)).sum().backward()
    for mine, reference in zip(ours, theirs):
        assert mine.grad.dtype == ember.float32
        assert_close_in_bfloat16(mine.grad, reference.grad)


def test_float64_and_integer_tensors_are_never_cast():
    x64, w64 = ember.randn(3, 4, dtype=ember.float64), ember.randn(2, 4, dtype=ember.float64)
    with ember.autocast("cpu"):
        assert F.linear(x64, w64).dtype == ember.float64
        assert (ember.arange(6).reshape(2, 3) @ ember.arange(6).reshape(3, 2)).dtype == ember.int64


def test_a_region_of_another_device_type_leaves_cpu_ops_alone():
    a, b = ember.randn(3, 4), ember.randn(4, 2)
    with ember.autocast("meta"):
        assert ember.is_autocast_enabled("meta") and not ember.is_autocast_enabled("cpu")
        assert (a @ b).dtype == ember.float32
        assert (ember.empty(3, 4, device="meta") @ ember.empty(4, 2, device="meta")).dtype == ember.float16


def test_a_device_type_without_a_plugin_runs_without_autocast(torch):
    if ember.cuda.is_available():
        pytest.skip("a cuda plugin is loaded: this is the machine without one")
    with pytest.warns(UserWarning, match="Disabling autocast"):
        region = ember.autocast("cuda")
    with region:
        assert not ember.is_autocast_enabled("cuda") and not ember.is_autocast_enabled()
    assert ember.get_autocast_dtype("cuda") == ember.float16
    assert not ember.amp.is_autocast_available("nowhere") and ember.amp.is_autocast_available("cpu")


def test_nesting_disabling_and_exceptions_restore_the_state(torch):
    a, b = ember.randn(3, 4), ember.randn(4, 2)
    assert not ember.is_autocast_enabled("cpu")
    with ember.autocast("cpu", dtype=ember.float16):
        assert ember.get_autocast_dtype("cpu") == ember.float16
        assert (a @ b).dtype == ember.float16
        with ember.autocast("cpu", enabled=False):
            assert not ember.is_autocast_enabled("cpu")
            assert (a @ b).dtype == ember.float32
        with ember.autocast("cpu", dtype=ember.bfloat16):
            assert (a @ b).dtype == ember.bfloat16
        assert (a @ b).dtype == ember.float16
        with pytest.raises(ZeroDivisionError):
            with ember.autocast("cpu", enabled=False):
                1 / 0
        assert ember.is_autocast_enabled("cpu")
    assert not ember.is_autocast_enabled("cpu")
    assert ember.get_autocast_dtype("cpu") == ember.bfloat16 == getattr(ember, str(
        torch.get_autocast_dtype("cpu")).split(".")[1])


def test_the_thread_state_functions_follow_pytorch():
    a, b = ember.randn(3, 4), ember.randn(4, 2)
    ember.set_autocast_enabled("cpu", True)
    try:
        ember.set_autocast_dtype("cpu", ember.float16)
        assert (a @ b).dtype == ember.float16
    finally:
        ember.set_autocast_enabled("cpu", False)
        ember.set_autocast_dtype("cpu", ember.bfloat16)
    assert (a @ b).dtype == ember.float32
    with pytest.raises(ValueError, match="float16 or bfloat16"):
        ember.set_autocast_dtype("cpu", ember.float32)
    ember.clear_autocast_cache()


def test_a_decorated_function_runs_in_the_region():
    @ember.autocast("cpu")
    def product(a, b):
        return a @ b

    assert product(ember.randn(2, 3), ember.randn(3, 2)).dtype == ember.bfloat16
    assert not ember.is_autocast_enabled("cpu")


def test_bad_regions_are_refused_or_disabled_as_in_pytorch(torch):
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'nowhere'"):
        ember.autocast("nowhere")
    with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
        ember.autocast(ember.device("cpu"))
    with pytest.warns(UserWarning, match="not supported. Disabling autocast"):
        region = ember.autocast("cpu", dtype=ember.float32)
    with region:
        assert not ember.is_autocast_enabled("cpu")
    with pytest.warns(UserWarning, match="Disabling autocast"):
        torch.autocast("cpu", dtype=torch.float32)


def test_a_weight_is_cast_once_per_region_and_again_after_it_changes():
    layer = ember.nn.Linear(4, 3)
    x = ember.randn(2, 4)
    with ember.autocast("cpu"):
        first, again = layer(x), layer(x)
        assert ember.equal(first, again)
        with ember.no_grad():
            layer.weight.add_(1.0)
        changed = layer(x)
    with ember.no_grad():
        expected = F.linear(x.to(ember.bfloat16), layer.weight.to(ember.bfloat16), layer.bias.to(ember.bfloat16))
    assert ember.equal(changed, expected)


def test_per_device_amp_modules_bind_their_device_type(torch):
    with ember.cpu.amp.autocast():
        assert ember.is_autocast_enabled("cpu") and ember.get_autocast_dtype("cpu") == ember.bfloat16
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scaler = ember.cuda.amp.GradScaler()
    if ember.cuda.is_available():
        assert scaler.is_enabled()
    else:
        assert not scaler.is_enabled() and "Disabling" in str(caught[-1].message)
        assert scaler.scale(ember.ones(1)).item() == 1.0 and scaler.get_scale() == 1.0 and scaler.state_dict() == {}


def test_custom_fwd_casts_inputs_and_custom_bwd_sees_the_forwards_state():
    seen = {}

    class Square(ember.autograd.Function):
        @staticmethod
        @ember.amp.custom_fwd(device_type="cpu", cast_inputs=ember.float32)
        def forward(ctx, x):
            seen["forward"] = (x.dtype, ember.is_autocast_enabled("cpu"))
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @ember.amp.custom_bwd(device_type="cpu")
        def backward(ctx, grad):
            seen["backward"] = ember.is_autocast_enabled("cpu")
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    x = ember.randn(3, dtype=ember.bfloat16, requires_grad=True)
    with ember.autocast("cpu"):
        y = Square.apply(x)
    y.sum().backward()
    assert seen["forward"] == (ember.float32, False) and y.dtype == ember.float32
    assert seen["backward"] is True and x.grad.dtype == ember.bfloat16


def test_a_compiled_function_recompiles_when_autocast_changes():
    def product(a, b):
        return (a @ b).relu()

    compiled = ember.compile(product)
    a, b = ember.randn(4, 5), ember.randn(5, 3)
    assert compiled(a, b).dtype == ember.float32
    with ember.autocast("cpu"):
        out = compiled(a, b)
        assert out.dtype == ember.bfloat16
        assert ember.equal(out, product(a, b))
    assert compiled(a, b).dtype == ember.float32


def mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))


def copy_weights(model, reference):
    for ours, theirs in zip(model.parameters(), reference.parameters()):
        with ember.no_grad():
            ours.copy_(ember.tensor(theirs.detach().numpy()))


def test_grad_scaler_matches_pytorch_step_for_step(torch):
    reference = mlp(torch)
    model = mlp(ember)
    copy_weights(model, reference)
    settings = {"init_scale": 2.0**10, "growth_interval": 2}
    ours, theirs = ember.amp.GradScaler("cpu", **settings), torch.amp.GradScaler("cpu", **settings)
    optimizer = ember.optim.SGD(model.parameters(), lr=0.1)
    reference_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    x, y = arrays((6, 4), (6, 2))
    for step in range(5):
        for net, opt, scaler, lib in ((model, optimizer, ours, ember), (reference, reference_optimizer, theirs, torch)):
            opt.zero_grad()
            loss = lib.nn.functional.mse_loss(net(lib.tensor(x)), lib.tensor(y))
            if step == 2:
                loss = loss * float("inf")  # an overflow: the step is skipped and the scale backs off
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            scaler.step(opt)
            scaler.update()
        assert ours.get_scale() == theirs.get_scale()
        assert ours._get_growth_tracker() == theirs._get_growth_tracker()
        for mine, reference_param in zip(model.parameters(), reference.parameters()):
            assert_close(mine, reference_param.detach(), rtol=1e-5, atol=1e-6)
    assert ours.state_dict() == theirs.state_dict()
    restored = ember.amp.GradScaler("cpu")
    restored.load_state_dict(ours.state_dict())
    assert restored.state_dict() == ours.state_dict()


def test_grad_scaler_misuse_gets_pytorchs_errors():
    model = mlp(ember)
    optimizer = ember.optim.SGD(model.parameters(), lr=0.1)
    scaler = ember.amp.GradScaler("cpu")
    with pytest.raises(RuntimeError, match="did not use scaler.scale"):
        scaler.step(optimizer)
    scaler.scale(model(ember.randn(2, 4)).sum()).backward()
    scaler.unscale_(optimizer)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(optimizer)
    scaler.step(optimizer)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(optimizer)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(optimizer, closure=lambda: None)
    scaler.update()
    with pytest.raises(AssertionError, match="No inf checks were recorded"):
        scaler.update()
    with pytest.raises(ValueError, match="outputs must be a Tensor"):
        scaler.scale("loss")
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        scaler.load_state_dict({})
    half = ember.nn.Linear(2, 1).to(ember.float16)
    half_optimizer = ember.optim.SGD(half.parameters(), lr=0.1)
    scaler.scale(half(ember.randn(3, 2, dtype=ember.float16)).float().sum()).backward()
    with pytest.raises(ValueError, match="Attempting to unscale FP16 gradients"):
        scaler.unscale_(half_optimizer)


def test_mixed_precision_training_follows_pytorch(torch):
    """The recipe of PyTorch's AMP examples, on the CPU in bfloat16: the loss
    curve stays within bfloat16's rounding of PyTorch's."""
    reference = mlp(torch)
    model = mlp(ember)
    copy_weights(model, reference)
    optimizer = ember.optim.Adam(model.parameters(), lr=1e-2)
    reference_optimizer = torch.optim.Adam(reference.parameters(), lr=1e-2)
    x, y = arrays((16, 4), (16, 2))
    for _ in range(5):
        losses = []
        for net, opt, lib in ((model, optimizer, ember), (reference, reference_optimizer, torch)):
            opt.zero_grad()
            with lib.autocast("cpu", dtype=lib.bfloat16):
                loss = lib.nn.functional.mse_loss(net(lib.tensor(x)), lib.tensor(y))
            assert loss.dtype == lib.float32
            loss.backward()
            opt.step()
            losses.append(loss.item())
        assert losses[0] == pytest.approx(losses[1], rel=2e-2)


def test_older_per_device_spellings(torch):
    for lib in (ember, torch):
        assert not lib.is_autocast_cpu_enabled()
        with lib.autocast("cpu", dtype=lib.bfloat16):
            assert lib.is_autocast_cpu_enabled() and lib.get_autocast_cpu_dtype() == lib.bfloat16
        lib.set_autocast_cpu_dtype(lib.float16)
        assert lib.get_autocast_cpu_dtype() == lib.float16
        lib.set_autocast_cpu_dtype(lib.bfloat16)
        lib.set_autocast_cache_enabled(False)
        assert not lib.is_autocast_cache_enabled()
        lib.set_autocast_cache_enabled(True)
        assert lib.is_autocast_cache_enabled() and lib.get_autocast_gpu_dtype() == lib.float16
