"""The fused backward kernels of softmax, log_softmax, layer_norm and
cross_entropy against torch: every layout the kernels take a different path
for (last dim, other dims, short and long lines, views), dtypes, special
values, the kernels' presence in a profile, and second derivatives, which
take the formulas instead."""

import numpy
import pytest

import ember
from ember.profiler import profile

F = ember.nn.functional
TOLERANCE = {"float32": 2e-5, "float64": 1e-12, "bfloat16": 2e-2}


def pair(torch, shape, dtype, seed, scale=3.0):
    values = numpy.random.default_rng(seed).normal(size=shape) * scale
    x = ember.tensor(values.ravel().tolist(), dtype=getattr(ember, dtype)).reshape(list(shape)).requires_grad_()
    tx = torch.tensor(values, dtype=getattr(torch, dtype)).requires_grad_()
    return x, tx


def close(got, want, dtype, scale=1.0):
    tol = TOLERANCE[dtype] * scale
    assert list(got.shape) == list(want.shape)
    numpy.testing.assert_allclose(numpy.array(got.detach().float().tolist()).reshape(want.shape),
                                  want.detach().float().numpy(), rtol=tol, atol=tol, equal_nan=True)


def op_names(fn):
    with profile() as prof:
        fn()
    return {avg.key for avg in prof.key_averages()}


SOFTMAX_CASES = [
    ((64, 1024), -1), ((7, 3), 1), ((33, 1031), 1), ((4096, 16), -1), ((5, 70000), -1),
    ((300, 8), 0), ((2, 9, 300), 1), ((3, 4, 5), 0), ((2, 3, 600), -1), ((16,), 0),
]


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape, dim", SOFTMAX_CASES)
def test_softmax_backward_matches_torch(torch, name, shape, dim):
    """Against torch in float64 on the same float32 values: over a long line float32 sums differ by order, and
    torch's own float32 gradient is further from the exact one than the tolerance."""
    x, tx = pair(torch, shape, "float32", 0)
    g, tg = pair(torch, shape, "float32", 1)
    getattr(ember, name)(x, dim).backward(g)
    exact = tx.detach().double().requires_grad_()
    getattr(torch, name)(exact, dim).backward(tg.double())
    close(x.grad, exact.grad, "float32")


@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_backward_dtypes(torch, name, dtype):
    for shape, dim in [((9, 257), 1), ((40, 6), 0)]:
        x, tx = pair(torch, shape, dtype, 2)
        g, tg = pair(torch, shape, dtype, 3)
        getattr(ember, name)(x, dim).backward(g)
        getattr(torch, name)(tx, dim).backward(tg)
        # Both read the rounded output; bfloat16 log_softmax's
        # dy - exp(out) * sum(dy) cancels, and the two round it differently.
        close(x.grad, tx.grad, dtype, 2)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_backward_of_views_and_broadcast_gradients(torch, name):
    x, tx = pair(torch, (12, 20), "float32", 4)
    # A transposed input takes the strided path; the summed loss hands the
    # kernel an expanded gradient, made contiguous first.
    getattr(ember, name)(x.t()[::2], 1).sum().backward()
    getattr(torch, name)(tx.t()[::2], 1).sum().backward()
    close(x.grad, tx.grad, "float32")


def test_softmax_backward_special_values(torch):
    values = [[0.0, float("-inf"), 1.0, 2.0], [float("-inf"), 5.0, 5.0, -3.0], [1e30, 1e30, 0.0, -1e30]]
    x = ember.tensor(values, requires_grad=True)
    tx = torch.tensor(values, requires_grad=True)
    g = [[1.0, 2.0, -1.0, 0.5]] * 3
    ember.softmax(x, -1).backward(ember.tensor(g))
    torch.softmax(tx, -1).backward(torch.tensor(g))
    close(x.grad, tx.grad, "float32")


def test_softmax_backward_kernels_run(torch):
    for name, kernel in [("softmax", "softmax_backward"), ("log_softmax", "log_softmax_backward")]:
        x = ember.randn(8, 32, requires_grad=True)
        assert kernel in op_names(lambda: getattr(ember, name)(x, -1).sum().backward())


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_second_derivative_matches_torch(torch, name):
    x, tx = pair(torch, (3, 5), "float64", 5)
    w = numpy.random.default_rng(6).normal(size=(3, 5))
    (g,) = ember.autograd.grad((getattr(ember, name)(x, 1) * ember.tensor(w.tolist(), dtype=ember.float64)).sum(),
                               x, create_graph=True)
    (h,) = ember.autograd.grad((g * g).sum(), x)
    (tg,) = torch.autograd.grad((getattr(torch, name)(tx, 1) * torch.tensor(w)).sum(), tx, create_graph=True)
    (th,) = torch.autograd.grad((tg * tg).sum(), tx)
    close(h, th, "float64")


LAYER_NORM_CASES = [((4096, 1024), (1024,)), ((3, 8), (8,)), ((2, 3, 5), (5,)), ((4, 6, 7), (6, 7)),
                    ((1, 100000), (100000,)), ((1000, 33), (33,)), ((0, 16), (16,))]


@pytest.mark.parametrize("shape, normalized", LAYER_NORM_CASES)
def test_layer_norm_backward_matches_torch(torch, shape, normalized):
    x, tx = pair(torch, shape, "float32", 7)
    w, tw = pair(torch, normalized, "float32", 8, scale=1.0)
    b, tb = pair(torch, normalized, "float32", 9, scale=1.0)
    g, tg = pair(torch, shape, "float32", 10, scale=1.0)
    F.layer_norm(x, normalized, w, b).backward(g)
    torch.nn.functional.layer_norm(tx, normalized, tw, tb).backward(tg)
    rows = max(1, int(numpy.prod(shape[:len(shape) - len(normalized)])))
    close(x.grad, tx.grad, "float32", 10)
    # dweight and dbias sum over the rows: their rounding grows with them.
    close(w.grad, tw.grad, "float32", max(10, rows ** 0.5))
    close(b.grad, tb.grad, "float32", max(10, rows ** 0.5))


@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_layer_norm_backward_dtypes(torch, dtype):
    x, tx = pair(torch, (50, 96), dtype, 11)
    w, tw = pair(torch, (96,), dtype, 12, scale=1.0)
    b, tb = pair(torch, (96,), dtype, 13, scale=1.0)
    F.layer_norm(x, (96,), w, b).sum().backward()
    # The reference is float64 from the same (rounded) values: torch's
    # bfloat16 dweight loses more to cancellation than the float32 sums here.
    tx, tw, tb = (t.detach().double().requires_grad_() for t in (tx, tw, tb))
    torch.nn.functional.layer_norm(tx, (96,), tw, tb).sum().backward()
    close(x.grad, tx.grad, dtype, 2)
    close(w.grad, tw.grad, dtype, 2)
    close(b.grad, tb.grad, dtype, 2)


def test_layer_norm_backward_without_affine_and_through_the_module(torch):
    x, tx = pair(torch, (6, 40), "float32", 14)
    F.layer_norm(x, (40,)).pow(2).sum().backward()
    torch.nn.functional.layer_norm(tx, (40,)).pow(2).sum().backward()
    close(x.grad, tx.grad, "float32", 10)
    module, reference = ember.nn.LayerNorm(40), torch.nn.LayerNorm(40)
    x.grad = None
    tx.grad = None
    module(x).pow(2).sum().backward()
    reference(tx).pow(2).sum().backward()
    close(x.grad, tx.grad, "float32", 10)
    close(module.weight.grad, reference.weight.grad, "float32", 10)
    close(module.bias.grad, reference.bias.grad, "float32", 10)


def test_layer_norm_backward_result_does_not_depend_on_threads():
    x = ember.randn(777, 300, requires_grad=True)
    w = ember.randn(300, requires_grad=True)
    g = ember.randn(777, 300)
    results = []
    before = ember.get_num_threads()
    try:
        for threads in (1, 2):
            ember.set_num_threads(threads)
            x.grad = w.grad = None
            F.layer_norm(x, (300,), w).backward(g)
            results.append((x.grad.tolist(), w.grad.tolist()))
    finally:
        ember.set_num_threads(before)
    assert results[0] == results[1]


def test_layer_norm_backward_kernel_runs():
    x = ember.randn(8, 32, requires_grad=True)
    assert "layer_norm_backward" in op_names(lambda: F.layer_norm(x, (32,)).sum().backward())


def test_layer_norm_second_derivative_matches_torch(torch):
    x, tx = pair(torch, (3, 6), "float64", 15)
    w, tw = pair(torch, (6,), "float64", 16)
    (g,) = ember.autograd.grad(F.layer_norm(x, (6,), w).pow(3).sum(), x, create_graph=True)
    (h,) = ember.autograd.grad(g.sum(), w)
    (tg,) = torch.autograd.grad(torch.nn.functional.layer_norm(tx, (6,), tw).pow(3).sum(), tx, create_graph=True)
    (th,) = torch.autograd.grad(tg.sum(), tw)
    close(h, th, "float64", 100)


CROSS_ENTROPY_CASES = [
    dict(), dict(reduction="sum"), dict(reduction="none"), dict(label_smoothing=0.1),
    dict(ignore_index=3), dict(reduction="none", ignore_index=0, label_smoothing=0.3),
]


@pytest.mark.parametrize("options", CROSS_ENTROPY_CASES)
@pytest.mark.parametrize("rows, classes", [(4096, 1000), (7, 5), (3, 3000)])
def test_cross_entropy_backward_matches_torch(torch, rows, classes, options):
    x, tx = pair(torch, (rows, classes), "float32", 17)
    labels = numpy.random.default_rng(18).integers(0, min(classes, 5), size=rows).tolist()
    loss = F.cross_entropy(x, ember.tensor(labels), **options)
    tloss = torch.nn.functional.cross_entropy(tx, torch.tensor(labels), **options)
    if options.get("reduction") == "none":
        weights = numpy.random.default_rng(19).normal(size=rows).tolist()
        loss.backward(ember.tensor(weights))
        tloss.backward(torch.tensor(weights))
    else:
        (loss * 2.5).backward()
        (tloss * 2.5).backward()
    close(x.grad, tx.grad, "float32")


def test_cross_entropy_backward_dtypes_and_views(torch):
    for dtype in ["float64", "bfloat16"]:
        x, tx = pair(torch, (30, 11), dtype, 20)
        labels = list(range(11)) * 2 + list(range(8))
        F.cross_entropy(x, ember.tensor(labels), label_smoothing=0.2).backward()
        torch.nn.functional.cross_entropy(tx, torch.tensor(labels), label_smoothing=0.2).backward()
        close(x.grad, tx.grad, dtype)
    x, tx = pair(torch, (11, 30), "float32", 21)
    labels = [i % 11 for i in range(30)]
    F.cross_entropy(x.t(), ember.tensor(labels)).backward()
    torch.nn.functional.cross_entropy(tx.t(), torch.tensor(labels)).backward()
    close(x.grad, tx.grad, "float32")


def test_cross_entropy_backward_with_every_row_ignored(torch):
    x, tx = pair(torch, (4, 6), "float32", 22)
    labels = [-100] * 4
    F.cross_entropy(x, ember.tensor(labels)).backward()
    torch.nn.functional.cross_entropy(tx, torch.tensor(labels)).backward()
    close(x.grad, tx.grad, "float32")


def test_cross_entropy_backward_kernel_runs():
    x = ember.randn(8, 32, requires_grad=True)
    target = ember.tensor([1, 2, 3, 4, 5, 6, 7, 0])
    assert "cross_entropy_backward" in op_names(lambda: F.cross_entropy(x, target).backward())
