"""torch's top-level names that programs still call: the in-place forms
(torch.relu_(x)), the pre-linalg factorizations (torch.qr, torch.lu, ...),
torch.range, gradient, vander, frexp, histogram, empty_permuted,
Tensor.set_ and to_dense, and the small modules (backends.cpu,
utils.collect_env, nn.modules.utils, nn.utils.skip_init); against PyTorch
2.13."""

import math
import warnings

import numpy
import pytest

import ember
from ember._functional_names import INPLACE_METHODS

from helpers import assert_close

RNG = numpy.random.default_rng(5)


def _argument_for(name):
    if name in ("gcd_", "lcm_"):
        return numpy.array([4, 6, 9]), (numpy.array([6, 4, 3]),)
    if name in ("acosh_", "arccosh_"):
        return numpy.array([1.5, 2.0, 3.0], dtype=numpy.float32), ()
    if name in ("acos_", "asin_", "atanh_", "arccos_", "arcsin_", "arctanh_", "logit_", "erf_", "erfc_"):
        return numpy.array([0.1, -0.4, 0.7], dtype=numpy.float32), ()
    if name in ("log_", "log2_", "log10_", "log1p_", "sqrt_", "rsqrt_", "reciprocal_"):
        return numpy.array([0.5, 2.0, 3.0], dtype=numpy.float32), ()
    extra = {"clamp_": (-0.5, 0.5), "clamp_max_": (0.2,), "clamp_min_": (0.2,), "clip_": (-0.5, 0.5),
             "fill_": (2.5,), "ldexp_": (numpy.array([1.0, 2.0, -1.0], dtype=numpy.float32),),
             "xlogy_": (numpy.array([1.0, 2.0, 3.0], dtype=numpy.float32),)}
    return numpy.array([0.3, -1.7, 2.2], dtype=numpy.float32), extra.get(name, ())


@pytest.mark.parametrize("name", [n for n in INPLACE_METHODS if n not in ("index_put_", "resize_as_", "detach_")])
def test_top_level_inplace_functions(torch, name):
    value, extra = _argument_for(name)
    results = []
    for lib in (ember, torch):
        target = lib.tensor(value)
        args = [lib.tensor(e) if isinstance(e, numpy.ndarray) else e for e in extra]
        returned = getattr(lib, name)(target, *args)
        assert returned is target or returned.data_ptr() == target.data_ptr()
        results.append(target)
    assert_close(results[0], results[1], rtol=1e-6)


def test_top_level_inplace_activations_and_dropout(torch):
    for name, args in (("celu_", (0.7,)), ("selu_", ()), ("threshold_", (0.1, -2.0)), ("dropout_", (0.0, True))):
        results = []
        for lib in (ember, torch):
            target = lib.tensor([-1.0, 0.05, 2.0])
            getattr(lib, name)(target, *args)
            results.append(target)
        assert_close(results[0], results[1], rtol=1e-6)


def test_range_gradient_vander_frexp(torch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in ((0, 4), (1, 2, 0.25), (3, 0, -1), (0.5, 0.5)):
            assert_close(ember.range(*args), torch.range(*args))
        with pytest.raises(RuntimeError, match="inconsistent with step sign"):
            ember.range(0, 3, -1)
    values = RNG.standard_normal((4, 5)).astype(numpy.float32)
    coordinates = numpy.array([0.0, 0.5, 1.5, 1.75, 3.0], dtype=numpy.float32)
    cases = [dict(), dict(spacing=2.0), dict(dim=1, edge_order=2), dict(spacing=[0.5, 3.0], edge_order=2),
             dict(spacing=(coordinates,), dim=1), dict(spacing=(coordinates,), dim=-1, edge_order=2)]
    for case in cases:
        ours_case = {k: (tuple(ember.tensor(c) for c in v) if k == "spacing" and isinstance(v, tuple) else v)
                     for k, v in case.items()}
        theirs_case = {k: (tuple(torch.tensor(c) for c in v) if k == "spacing" and isinstance(v, tuple) else v)
                       for k, v in case.items()}
        ours, theirs = ember.gradient(ember.tensor(values), **ours_case), torch.gradient(torch.tensor(values),
                                                                                         **theirs_case)
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            assert_close(o, t, rtol=1e-5, atol=1e-5)
    assert_close(ember.gradient(ember.tensor([1, 4, 9, 16]))[0], torch.gradient(torch.tensor([1, 4, 9, 16]))[0])
    with pytest.raises(RuntimeError, match="at least edge_order\\+1"):
        ember.gradient(ember.ones(2), edge_order=2)
    for kwargs in (dict(), dict(N=4), dict(N=2, increasing=True), dict(N=0)):
        assert_close(ember.vander(ember.tensor([1, 2, 3]), **kwargs), torch.vander(torch.tensor([1, 2, 3]), **kwargs))
    special = numpy.array([0.0, -0.0, numpy.inf, -numpy.inf, numpy.nan, 1e-40, -3.0, 1.0, 0.75, 1024.0, 7e30],
                          dtype=numpy.float32)
    for dtype in ("float32", "float64"):
        ours = ember.frexp(ember.tensor(special.astype(dtype)))
        theirs = torch.frexp(torch.tensor(special.astype(dtype)))
        assert_close(ours.mantissa, theirs.mantissa, rtol=0, atol=0)
        assert_close(ours.exponent, theirs.exponent, rtol=0, atol=0)
    subnormal_and_huge = [5e-324, 2.2e-308, 1.7e308]
    tiny = ember.frexp(ember.tensor(subnormal_and_huge, dtype=ember.float64))
    assert list(zip(tiny.mantissa.tolist(), tiny.exponent.tolist())) == [math.frexp(v) for v in subnormal_and_huge]
    with pytest.raises(RuntimeError, match="only supports floating-point dtypes, got int64"):
        ember.frexp(ember.tensor([1, 2]))


def test_histogram(torch):
    values = RNG.standard_normal(200).astype(numpy.float32)
    weights = RNG.random(200).astype(numpy.float32)
    edges = numpy.array([-2.0, -0.5, 0.0, 0.1, 2.5], dtype=numpy.float32)
    cases = [((10,), {}), ((4,), {"range": (-1.0, 1.0)}), ((6,), {"density": True}),
             ((5,), {"weight": weights}), ((edges,), {"weight": weights, "density": True})]
    for args, kwargs in cases:
        ours = ember.histogram(ember.tensor(values), *[ember.tensor(a) if isinstance(a, numpy.ndarray) else a
                                                      for a in args],
                               **{k: ember.tensor(v) if isinstance(v, numpy.ndarray) else v for k, v in kwargs.items()})
        theirs = torch.histogram(torch.tensor(values), *[torch.tensor(a) if isinstance(a, numpy.ndarray) else a
                                                        for a in args],
                                 **{k: torch.tensor(v) if isinstance(v, numpy.ndarray) else v
                                    for k, v in kwargs.items()})
        assert_close(ours.hist, theirs.hist, rtol=1e-5, atol=1e-6)
        assert_close(ours.bin_edges, theirs.bin_edges, rtol=1e-6)
    assert ember.tensor([1.0, 2.0, 1.0]).histogram(4, range=(0.0, 3.0)).hist.tolist() == [0.0, 2.0, 1.0, 0.0]
    with pytest.raises(RuntimeError, match="float"):
        ember.histogram(ember.tensor([1, 2]), 3)


def test_pre_linalg_factorizations(torch):
    a = RNG.standard_normal((4, 3)).astype(numpy.float64)
    square = RNG.standard_normal((3, 3)).astype(numpy.float64)
    spd = square @ square.T + 3 * numpy.eye(3)
    b = RNG.standard_normal((3, 2)).astype(numpy.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lib, out in ((ember, []), (torch, [])):
            t = lib.tensor
            q, r = lib.qr(t(a))
            out.append(q @ r)
            out.append(lib.qr(t(a), some=False).Q.abs())
            out.append(lib.cholesky(t(spd)))
            out.append(t(spd).cholesky(upper=True))
            out.append(lib.cholesky_inverse(lib.cholesky(t(spd))))
            lu, pivots = lib.lu(t(square))
            out.extend([lu, pivots])
            out.append(lib.lu_solve(t(b), lu, pivots))
            out.append(t(b).lu_solve(lu, pivots))
            for upper, transpose, unit in ((True, False, False), (False, True, False), (True, True, True)):
                solved = lib.triangular_solve(t(b), t(spd).triu() if upper else t(spd).tril(), upper=upper,
                                              transpose=transpose, unitriangular=unit)
                out.extend([solved.solution, solved.cloned_coefficient])
            if lib is ember:
                ours = out
            else:
                theirs = out
    for o, t in zip(ours, theirs):
        assert_close(o, t, rtol=1e-9, atol=1e-10)
    with pytest.warns(UserWarning, match="torch.qr is deprecated in favor of torch.linalg.qr"):
        import ember._linalg_legacy as legacy
        legacy._warned.discard("qr")
        ember.qr(ember.eye(2))


def test_empty_permuted_set_and_to_dense(torch):
    for lib in (ember, torch):
        assert lib.empty_permuted((2, 3, 4), (0, 2, 1)).stride() == (12, 1, 3)
        assert lib.empty_permuted((2, 3), (1, 0), dtype=lib.float64).stride() == (1, 2)
        source = lib.arange(6.0)
        target = lib.zeros(2)
        assert target.set_(source) is target and target.data_ptr() == source.data_ptr()
        source[0] = 7.0
        assert target.tolist() == [7.0, 1.0, 2.0, 3.0, 4.0, 5.0]
        viewed = lib.zeros(1).set_(source, 1, (2, 2), (2, 1))
        assert viewed.tolist() == [[1.0, 2.0], [3.0, 4.0]]
        assert lib.zeros(3).set_().shape == (0,)
        assert lib.zeros(2).set_(source.untyped_storage(), 0, (3,)).tolist() == [7.0, 1.0, 2.0]
        dense = lib.ones(2, 2)
        assert dense.to_dense() is dense
        with pytest.raises(RuntimeError):
            lib.zeros(2, requires_grad=True).set_(source)
    with pytest.raises(RuntimeError, match="Could not set tensor of type float32 to a tensor of type int64"):
        ember.zeros(2).set_(ember.arange(3))
    with pytest.raises(RuntimeError, match="not a permutation"):
        ember.empty_permuted((2, 3), (0, 0))


def test_small_modules_programs_import(torch):
    assert ember.backends.cpu.get_cpu_capability() == torch.backends.cpu.get_cpu_capability()
    report = ember.utils.collect_env.get_pretty_env_info()
    assert report.startswith("ember: ") and "Plugins:" in report
    assert ember.nn.modules.utils._pair(3) == (3, 3)
    layer = ember.nn.utils.skip_init(ember.nn.Linear, 4, 5)
    assert layer.weight.shape == (5, 4) and layer.weight.device.type == "cpu"
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg"):
        ember.nn.utils.skip_init(lambda: None)
    conv, bn = ember.nn.Conv2d(3, 4, 3).eval(), ember.nn.BatchNorm2d(4).eval()
    bn.running_mean.uniform_()
    x = ember.randn(1, 3, 6, 6)
    assert_close(ember.nn.utils.fuse_conv_bn_eval(conv, bn)(x), bn(conv(x)), rtol=1e-4, atol=1e-5)
    assert ember.distributed.is_backend_available("gloo") == ember.distributed.is_gloo_available()
    assert not ember.distributed.is_mpi_available()
    assert ember.distributed.group.WORLD is None
    assert ember.distributed.get_node_local_rank(fallback_rank=3) == 3


def test_fill_with_a_zero_dim_tensor(torch):
    results = []
    for lib in (ember, torch):
        value = lib.tensor(2.5, requires_grad=True)
        target = lib.zeros(2, 3)
        filled = target.clone().fill_(value)
        (filled * lib.arange(6.0).reshape(2, 3)).sum().backward()
        results.append([filled.detach(), value.grad, lib.zeros(1, dtype=lib.int64).fill_(lib.tensor(7))])
    for ours, theirs in zip(*results):
        assert_close(ours, theirs)
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor but got tensor with 1 "
                                           "dimensions"):
        ember.zeros(2).fill_(ember.ones(1))
