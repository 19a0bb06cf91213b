"""autograd.forward_ad (dual tensors) against PyTorch 2.13's forward mode:
the same tangents through elementwise ops, products, reductions and
networks, None where no dual reaches, and PyTorch's errors."""

import numpy
import pytest

import ember

from helpers import assert_close

RNG = numpy.random.default_rng(4)


def _tangents(lib, program):
    fwAD = lib.autograd.forward_ad
    x, tx = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    w, tw = RNG.standard_normal((4, 2)), RNG.standard_normal((4, 2))
    with fwAD.dual_level():
        dual_x = fwAD.make_dual(lib.tensor(x), lib.tensor(tx))
        dual_w = fwAD.make_dual(lib.tensor(w), lib.tensor(tw))
        results = program(lib, dual_x, dual_w)
        return [fwAD.unpack_dual(r) for r in results]


PROGRAMS = [
    lambda lib, x, w: [x.sin() * x, (x @ w).tanh()],
    lambda lib, x, w: [lib.nn.functional.softmax(x, -1), x.sum(0), x.pow(3).mean()],
    lambda lib, x, w: [lib.nn.functional.gelu(x @ w) + (x @ w).exp(), x[1:, ::2] * 2],
    lambda lib, x, w: [lib.ones(2), x.detach() * 2],
]


@pytest.mark.parametrize("program", range(len(PROGRAMS)))
def test_tangents_match_pytorchs_forward_mode(torch, program):
    state = RNG.bit_generator.state
    ours = _tangents(ember, PROGRAMS[program])
    RNG.bit_generator.state = state
    theirs = _tangents(torch, PROGRAMS[program])
    for (primal, tangent), (their_primal, their_tangent) in zip(ours, theirs):
        assert_close(primal, their_primal, rtol=1e-12)
        assert (tangent is None) == (their_tangent is None)
        if tangent is not None:
            assert_close(tangent, their_tangent, rtol=1e-10, atol=1e-12)


def test_dual_tensors_unpack_to_their_tangent_and_errors(torch):
    fwAD = ember.autograd.forward_ad
    with pytest.raises(RuntimeError, match="no level exists"):
        fwAD.make_dual(ember.ones(2), ember.ones(2))
    with fwAD.dual_level():
        tangent = ember.tensor([1.0, 2.0])
        dual = fwAD.make_dual(ember.zeros(2), tangent)
        assert fwAD.unpack_dual(dual).tangent is tangent
        with pytest.raises(RuntimeError, match="different size"):
            fwAD.make_dual(ember.ones(2), ember.ones(3))
        with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
            fwAD.enter_dual_level()
    assert fwAD.unpack_dual(dual * 2).tangent is None, "a level's tangents end with it"
