"""nanmedian, mode, unique_consecutive, cumulative_trapezoid, the
select/slice/diagonal scatters and the conjugate transposes of real tensors,
against PyTorch 2.13, with gradients where PyTorch has them."""

import pytest

import ember

from helpers import assert_close

NAN = float("nan")


@pytest.mark.parametrize("call", [
    lambda T: T.nanmedian(T.tensor([[1.0, NAN, 3.0, 2.0], [NAN, NAN, NAN, NAN], [5.0, 4.0, 1.0, 2.0]]), 1).values,
    lambda T: T.nanmedian(T.tensor([[1.0, NAN, 3.0, 2.0], [7.0, 6.0, NAN, NAN]]), 1).indices,
    lambda T: T.nanmedian(T.tensor([[1.0, NAN], [3.0, 2.0]]), 0, keepdim=True).values,
    lambda T: T.nanmedian(T.tensor([4.0, NAN, 1.0, 3.0])),
    lambda T: T.nanmedian(T.tensor([NAN, NAN])),
    lambda T: T.mode(T.tensor([[1, 2, 2, 3, 3], [4, 4, 1, 1, 0]]), 1).values,
    lambda T: T.mode(T.tensor([[1, 2, 2, 3, 3], [4, 4, 1, 1, 0]]), 1).indices,
    lambda T: T.mode(T.tensor([2, 2, 5, 5, 5, 1, 1, 1])).indices,
    lambda T: T.tensor([[3.0, 1.0], [3.0, 2.0], [1.0, 2.0]]).mode(0, keepdim=True).values,
    lambda T: T.unique_consecutive(T.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True, return_counts=True)[2],
    lambda T: T.unique_consecutive(T.tensor([[1, 1], [1, 1], [2, 3]]), dim=0),
    lambda T: T.tensor([[1, 1, 2], [3, 3, 3]]).unique_consecutive(return_inverse=True)[1],
    lambda T: T.select_scatter(T.zeros(2, 3), T.ones(3), 0, 1),
    lambda T: T.slice_scatter(T.zeros(4, 2), T.ones(2, 2), 0, 1, 4, 2),
    lambda T: T.zeros(3, 4).slice_scatter(T.ones(3, 2), dim=1, start=2),
    lambda T: T.diagonal_scatter(T.zeros(3, 3), T.ones(2), 1),
    lambda T: T.cumulative_trapezoid(T.tensor([1.0, 2.0, 4.0, 7.0])),
    lambda T: T.cumulative_trapezoid(T.tensor([[1.0, 2.0, 4.0]]), T.tensor([0.0, 1.0, 3.0])),
    lambda T: T.cumulative_trapezoid(T.tensor([1.0, 2.0, 4.0]), dx=0.5),
    lambda T: T.arange(6.0).reshape(2, 3).mH,
    lambda T: T.adjoint(T.arange(24.0).reshape(2, 3, 4)),
    lambda T: T.arange(6.0).reshape(2, 3).H,
    lambda T: T.tensor([[2.0, 0.0], [0.0, 4.0], [0.0, 0.0]]).pinverse(),
], ids=["nanmedian", "nanmedian-indices", "nanmedian-keepdim", "nanmedian-all", "nanmedian-all-nan", "mode",
        "mode-indices", "mode-last-index", "mode-keepdim", "unique_consecutive-counts", "unique_consecutive-dim",
        "unique_consecutive-inverse", "select_scatter", "slice_scatter", "slice_scatter-method",
        "diagonal_scatter", "cumulative_trapezoid", "cumulative_trapezoid-x", "cumulative_trapezoid-dx", "mH",
        "adjoint", "H", "pinverse"])
def test_values_match_pytorch(call, torch):
    assert_close(call(ember), call(torch))  # NaNs in the same places count as equal


def test_scatters_send_gradients_to_both_operands(torch):
    grads = {}
    for library in (torch, ember):
        base = library.arange(9.0).reshape(3, 3).requires_grad_()
        row = library.tensor([1.0, 2.0, 3.0], requires_grad=True)
        diagonal = library.tensor([5.0, 6.0], requires_grad=True)
        out = library.select_scatter(base, row, 0, 2)
        out = library.diagonal_scatter(out, diagonal, -1)
        (out * library.arange(9.0).reshape(3, 3)).sum().backward()
        grads[library] = (base.grad.tolist(), row.grad.tolist(), diagonal.grad.tolist())
    assert grads[ember] == grads[torch]
