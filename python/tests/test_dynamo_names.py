"""torch._dynamo's and torch.compiler's names over ember.compiler:
graph_break breaks the graph, is_compiling and is_exporting say what is
capturing, optimize compiles, explain takes both call forms, and the
hints for PyTorch's bytecode tracer are accepted."""

import ember
import ember._dynamo as dynamo
from ember import compiler


def test_graph_break_is_compiling_and_is_exporting():
    seen = []

    def f(x):
        seen.append((compiler.is_compiling(), compiler.is_exporting()))
        y = x.sin()
        dynamo.graph_break()
        return y.cos()

    x = ember.randn(4)
    report = dynamo.explain(f)(x)
    assert report.graph_break_count == 1 and report.graph_count == 2
    assert dynamo.explain(f, x).graph_break_count == 1
    assert (True, False) in seen and not compiler.is_compiling() and not dynamo.is_compiling()

    class Tripling(ember.nn.Module):
        def forward(self, x):
            return x * (3 if compiler.is_exporting() else 2)

    assert ember.export.export(Tripling(), (ember.ones(2),)).module()(ember.ones(2)).tolist() == [3.0, 3.0]
    assert Tripling()(ember.ones(2)).tolist() == [2.0, 2.0] and not compiler.is_exporting()


def test_optimize_and_hints():
    doubled = dynamo.optimize("inductor")(lambda a: a * 2)
    assert doubled(ember.ones(3)).tolist() == [2.0] * 3 and hasattr(doubled, "_ember_compiled")
    assert dynamo.optimize("inductor", disable=True)(len) is len

    def g(a):
        return a + 1

    assert compiler.allow_in_graph(g) is g and compiler.nested_compile_region()(g) is g
    assert compiler.substitute_in_graph(len)(g) is g and compiler.is_dynamo_compiling() is False
    previous = dynamo.config.cache_size_limit
    dynamo.config.cache_size_limit = 16
    dynamo.config.cache_size_limit = previous
    compiler.cudagraph_mark_step_begin()
    dynamo.reset()


def test_mark_dynamic_and_mark_static_choose_the_dims_a_variant_takes_as_dynamic():
    f = compiler.compile(lambda a: a * 2)
    x = ember.randn(5, 3)
    dynamo.mark_dynamic(x, 0, min=2, max=16)
    f(x)
    for n in (7, 9):
        assert f(ember.randn(n, 3)).shape == (n, 3)
    fn = f._ember_compiled
    assert fn.recompile_reasons == [] and fn.variants[0].guard.describe()[0].startswith("a: cpu ember.float32 [s0, 3]")
    g = compiler.compile(lambda a: a * 2)
    for n in (5, 6, 7):
        y = ember.randn(n, 3)
        dynamo.mark_static(y)
        g(y)
    assert g._ember_compiled.recompile_reasons == ["a: size of dim 0 changed 5 -> 6", "a: size of dim 0 changed 6 -> 7"]
    z = ember.randn(4, 6)
    dynamo.maybe_mark_dynamic(z, [0, 1])
    h = compiler.compile(lambda a: a + 1)
    h(z)
    assert "[s0, s1]" in h._ember_compiled.variants[0].guard.describe()[0]
