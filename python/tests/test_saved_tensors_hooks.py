"""torch.autograd.graph's hooks: saved_tensors_hooks packs every tensor
autograd saves (catalogue ops and custom Functions, outputs included) and
unpacks it in backward; save_on_cpu; disable_saved_tensors_hooks;
register_multi_grad_hook. Against PyTorch 2.13 where the two can be
compared."""

import threading

import pytest

import ember

from helpers import assert_close


def _run(lib, log):
    def pack(t):
        log.append(("pack", tuple(t.shape)))
        return t * 1  # a copy, as offloading hooks keep one

    def unpack(t):
        log.append(("unpack", tuple(t.shape)))
        return t

    a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = lib.tensor([[0.5], [1.5]], requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (a * b).sin().sum()
    y.backward()
    return a.grad, b.grad


def test_hooks_pack_what_ops_save_and_backward_unpacks_it(torch):
    ours_log = []
    ours, theirs = _run(ember, ours_log), _run(torch, [])
    for o, t in zip(ours, theirs):
        assert_close(o, t)
    # Which tensors an op saves is its own choice; each one packed is unpacked once by the backward.
    packed = sorted(shape for kind, shape in ours_log if kind == "pack")
    assert packed and packed == sorted(shape for kind, shape in ours_log if kind == "unpack")
    assert ours_log.index(("unpack", packed[0])) > max(i for i, (kind, _) in enumerate(ours_log) if kind == "pack")


def test_a_custom_functions_saved_output_is_packed_and_keeps_its_history():
    packed = []

    class Exp(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            out = x.exp()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx, grad):
            out, = ctx.saved_tensors
            return grad * out

    x = ember.tensor([0.0, 1.0], requires_grad=True)
    with ember.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t.clone(), lambda t: t):
        y = Exp.apply(x)
    assert len(packed) == 1 and packed[0].grad_fn is None
    first, = ember.autograd.grad(y.sum(), x, create_graph=True)
    assert_close(first, ember.tensor([1.0, 2.718281828]), rtol=1e-6)
    second, = ember.autograd.grad(first.sum(), x)
    assert_close(second, first.detach())


def test_save_on_cpu_gives_the_same_gradients():
    w = ember.randn(4, 3, requires_grad=True)
    x = ember.randn(5, 4)
    with ember.autograd.graph.save_on_cpu():
        loss = (x @ w).tanh().pow(2).sum()
    loss.backward()
    expected, = ember.autograd.grad((x @ w).tanh().pow(2).sum(), w)
    assert_close(w.grad, expected)


def test_innermost_hooks_win_and_errors_leave_no_hooks_behind():
    log = []
    a = ember.ones(2, requires_grad=True)
    with ember.autograd.graph.saved_tensors_hooks(lambda t: log.append("outer") or t, lambda t: t):
        with ember.autograd.graph.saved_tensors_hooks(lambda t: log.append("inner") or t, lambda t: t):
            (a * a).sum()
        (a * a).sum()
    assert log == ["inner", "inner", "outer", "outer"]

    def failing_pack(t):
        raise ValueError("pack failed on purpose")

    with pytest.raises(ValueError, match="pack failed on purpose"):
        with ember.autograd.graph.saved_tensors_hooks(failing_pack, lambda t: t):
            a * a
    log.clear()
    (a * a).sum().backward()
    assert log == [] and a.grad.tolist() == [2.0, 2.0]

    with ember.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: "not a tensor"):
        y = (a * a).sum()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor"):
        y.backward()


def test_hooks_belong_to_their_thread():
    log = []
    a = ember.ones(2, requires_grad=True)
    with ember.autograd.graph.saved_tensors_hooks(lambda t: log.append("packed") or t, lambda t: t):
        other = threading.Thread(target=lambda: (a * a).sum())
        other.start()
        other.join()
    assert log == []


def test_disable_saved_tensors_hooks_refuses_new_hooks(torch):
    for lib in (ember, torch):
        with lib.autograd.graph.disable_saved_tensors_hooks("no hooks in this block"):
            with pytest.raises(RuntimeError, match="no hooks in this block"):
                with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            pass


@pytest.mark.parametrize("mode", ["all", "any"])
def test_register_multi_grad_hook(torch, mode):
    calls = {}
    for lib in (ember, torch):
        seen = calls.setdefault(lib.__name__, [])
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0], requires_grad=True)
        c = lib.tensor([4.0], requires_grad=True)

        def hook(grads, seen=seen):
            seen.append([None if g is None else g.tolist() for g in grads] if mode == "all" else grads.tolist())

        handle = lib.autograd.graph.register_multi_grad_hook((a, b, c), hook, mode=mode)
        ((a * 2).sum() + (b * 5).sum()).backward()
        (c * 7).sum().backward()
        handle.remove()
        (a * 2).sum().backward()
    assert calls["ember"] == calls["torch"]
