"""Tensors a compiled function makes and keeps (Note [Escaped tensors]): a
mask a module caches on itself gets its real value in inference and
training traces and when a training trace is abandoned at a graph break;
outputs, their view bases and gradients are not mistaken for kept tensors,
so such functions trace once."""

import ember
import ember.nn as nn


class CachesAMask(nn.Module):
    def __init__(self, break_graph=False):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.mask = None
        self.break_graph = break_graph

    def forward(self, x):
        hidden = self.lin(x)
        if self.mask is None or self.mask.size(0) != x.shape[0]:
            self.mask = ember.log(ember.tril(ember.ones(x.shape[0], x.shape[0])))
        if self.break_graph and bool((self.mask == 0).any()):
            hidden = hidden * 2
        return hidden + self.mask.sum(1, keepdim=True).clamp(min=-1e4)


def _run(model, x, calls=3, train=True):
    outputs = []
    for _ in range(calls):
        y = model(x)
        if train:
            y.sum().backward()
        outputs.append(y.detach())
        assert not ember._C._is_tracing(model.mask), "the kept mask is a real tensor"
    return outputs


def test_a_kept_mask_gets_its_value_in_inference_training_and_abandoned_traces():
    x = ember.randn(3, 4)
    for break_graph in (False, True):
        for train in (False, True):
            ember.manual_seed(0)
            eager = CachesAMask(break_graph)
            ember.manual_seed(0)
            compiled = CachesAMask(break_graph)
            compiled.compile()
            with ember.set_grad_enabled(train):
                expected = _run(eager, x, train=train)
                got = _run(compiled, x, train=train)
            for a, b in zip(got, expected):
                assert ember.allclose(a, b, atol=1e-6)
            assert ember.equal(compiled.mask, eager.mask)
            if train:
                for a, b in zip(compiled.parameters(), eager.parameters()):
                    assert ember.allclose(a.grad, b.grad, atol=1e-5)


def test_returned_views_and_gradients_are_not_taken_for_kept_tensors():
    weight = ember.randn(4, 6, requires_grad=True)

    def transposed(x):
        return (x @ weight).relu().t()

    def rows(x):
        return (x * 2).sin()[1:]

    for fn, needs_grad in ((transposed, True), (rows, False)):
        compiled = ember.compile(fn)
        with ember.set_grad_enabled(needs_grad):
            for _ in range(3):
                y = compiled(ember.randn(5, 4))
                if needs_grad:
                    y.sum().backward()
        assert len(compiled._ember_compiled.variants[0].graphs) in (1, 2), "traced once (a training trace is two)"
