"""nn.init's orthogonal_, eye_, dirac_, sparse_ and the deprecated names,
and round(decimals=), against PyTorch 2.13 and the properties each
initializer promises."""

import warnings

import numpy
import pytest

import ember

from helpers import assert_close, linear_with


@pytest.mark.parametrize("shape, gain", [((3, 5), 1.0), ((6, 3), 2.0), ((4, 2, 3), 1.0)])
def test_orthogonal_rows_or_columns(shape, gain):
    w = ember.nn.init.orthogonal_(ember.empty(*shape), gain=gain)
    flat = w.reshape(shape[0], -1)
    product = flat @ flat.t() if flat.shape[0] <= flat.shape[1] else flat.t() @ flat
    assert_close(product, ember.eye(product.shape[0]) * gain ** 2, rtol=1e-5, atol=1e-5)


def test_eye_dirac_and_sparse_match_pytorch(torch):
    for library in (torch, ember):
        init = library.nn.init
        assert init.eye_(library.empty(2, 3)).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    ours = ember.nn.init.dirac_(ember.empty(4, 2, 3, 3), groups=2)
    theirs = torch.nn.init.dirac_(torch.empty(4, 2, 3, 3), groups=2)
    assert ours.tolist() == theirs.tolist()
    ours = ember.nn.init.dirac_(ember.empty(3, 5, 2))
    assert ours.tolist() == torch.nn.init.dirac_(torch.empty(3, 5, 2)).tolist()
    sparse = ember.nn.init.sparse_(ember.empty(10, 4), 0.3)
    assert (sparse == 0).sum(0).tolist() == [3, 3, 3, 3]
    for library in (torch, ember):
        with pytest.raises(ValueError):
            library.nn.init.eye_(library.empty(2, 2, 2))
        with pytest.raises(ValueError):
            library.nn.init.dirac_(library.empty(3, 3))


def test_deprecated_names_warn_and_initialize():
    with pytest.warns(FutureWarning, match="nn.init.xavier_uniform is now deprecated"):
        w = ember.nn.init.xavier_uniform(ember.zeros(4, 4))
    assert (w != 0).any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ember.nn.init.constant(ember.zeros(2), 3.0).tolist() == [3.0, 3.0]


@pytest.mark.parametrize("values, decimals", [
    ([1.2345, -2.5551, 0.125, 7.0], 2), ([1.25, 2.5, -0.35], 1), ([1234.5, -56.0, 150.0], -2),
    ([0.5, 1.5, 2.5], 0)])
def test_round_with_decimals_matches_pytorch(values, decimals, torch):
    for dtype in ("float32", "float64"):
        ours = ember.tensor(values, dtype=getattr(ember, dtype))
        theirs = torch.tensor(values, dtype=getattr(torch, dtype))
        assert ember.round(ours, decimals=decimals).tolist() == torch.round(theirs, decimals=decimals).tolist()
        assert ours.round(decimals=decimals).tolist() == theirs.round(decimals=decimals).tolist()
        ours.round_(decimals=decimals), theirs.round_(decimals=decimals)
        assert ours.tolist() == theirs.tolist()
    with pytest.raises(RuntimeError):
        torch.round(torch.tensor([1, 2]), decimals=1)
    with pytest.raises(RuntimeError, match="decimals is only supported for floating"):
        ember.round(ember.tensor([1, 2]), decimals=1)


def test_parameter_vectors_and_split_clipping_match_pytorch(torch):
    results = {}
    for library in (torch, ember):
        model = linear_with(library, [[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]], [0.1, -0.2])
        vector = library.nn.utils.parameters_to_vector(model.parameters())
        library.nn.utils.vector_to_parameters(vector * 2, model.parameters())
        model(library.ones(4, 3)).pow(2).sum().backward()
        grads = [p.grad for p in model.parameters()]
        total = library.nn.utils.get_total_norm(grads, 2.0)
        library.nn.utils.clip_grads_with_norm_(model.parameters(), 1.0, total)
        results[library] = (vector.tolist(), model.weight.tolist(), float(total),
                            [g.tolist() for g in grads])
    ours, theirs = results[ember], results[torch]
    assert ours[0] == theirs[0] and ours[1] == theirs[1]
    assert ours[2] == pytest.approx(theirs[2], rel=1e-6)
    for a, b in zip(ours[3], theirs[3]):
        numpy.testing.assert_allclose(a, b, rtol=1e-6)
