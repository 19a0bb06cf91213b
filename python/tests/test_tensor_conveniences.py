"""Tensor methods and torch-level names PyTorch programs reach for:
x.cuda(), x.get_device(), x.new(...), sum_to_size, the layout and kind flags,
and torch.conv2d, torch.dropout, torch.layer_norm and friends with torch's
own argument orders, against PyTorch 2.13."""

import pytest

import ember

from helpers import assert_close


def test_device_methods_name_the_missing_device(torch):
    x = ember.ones(2)
    assert x.get_device() == -1 == torch.ones(2).get_device()
    for method in ("cuda", "xpu"):
        if ember.is_device_type_available(method):
            continue
        with pytest.raises(RuntimeError, match=method):
            getattr(x, method)()
    with pytest.raises(RuntimeError, match="must be cuda device"):
        x.cuda("cpu")


def test_new_builds_what_pytorch_builds(torch):
    for library in (torch, ember):
        x = library.ones(2, dtype=library.float64)
        assert x.new().shape == (0,) and x.new().dtype == library.float64
        assert x.new(2, 3).shape == (2, 3)
        assert x.new(library.ones(4, 1).shape).shape == (4, 1)
        assert x.new((4,)).tolist() == [4.0]
        made = x.new([1, 2, 3])
        assert made.dtype == library.float64 and made.tolist() == [1.0, 2.0, 3.0]


def test_flags_and_predicates_match_pytorch(torch):
    for library in (torch, ember):
        x = library.tensor([[1.5, -2.0]])
        assert not x.is_sparse and not x.is_quantized and not x.is_mkldnn and not x.is_nested
        assert not x.is_conj() and not x.is_neg() and x.conj() is x and x.resolve_conj() is x
        assert str(x.layout).endswith("strided") and x.layout is library.strided
        assert x.is_signed() and not library.ones(1, dtype=library.uint8).is_signed()
        assert not library.ones(1, dtype=library.bool).is_signed()
        assert x.is_same_size(library.zeros(1, 2)) and not x.is_same_size(library.zeros(2))
        assert library.tensor([3]).is_nonzero() and not library.tensor([0.0]).is_nonzero()
        assert not x.is_pinned()
        for bad in (library.ones(2), library.ones(0)):
            with pytest.raises(RuntimeError, match="Boolean value of Tensor with"):
                bad.is_nonzero()


def test_sum_to_size_matches_pytorch(torch):
    data = [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]]
    for size in ((3, 2), (1, 2), (3, 1), (1, 1, 1), (1, 3, 2)):
        assert ember.tensor(data).sum_to_size(*size).tolist() == torch.tensor(data).sum_to_size(*size).tolist()
    assert ember.tensor(data).sum_to_size([2]).tolist() == [9.0, 12.0]
    for library in (torch, ember):
        with pytest.raises(RuntimeError, match="is not expandable to size"):
            library.tensor(data).sum_to_size(4, 2)


def test_pin_memory_warns_once_and_keeps_the_values():
    x = ember.arange(4.0)
    with pytest.warns(UserWarning, match="no pinned host memory"):
        assert x.pin_memory() is x


FUNCTIONAL = {
    "conv2d": lambda T, x, w: T.conv2d(x, w, None, 1, 1),
    "conv_transpose2d": lambda T, x, w: T.conv_transpose2d(x, w.transpose(0, 1), None, 2),
    "cosine_similarity": lambda T, x, w: T.cosine_similarity(x, x.flip(1), dim=1),
    "pairwise_distance": lambda T, x, w: T.pairwise_distance(x[0], x[1]),
    "pixel_shuffle": lambda T, x, w: T.pixel_shuffle(x[:, :, :2, :2].repeat(1, 4, 1, 1), 2),
    "dropout (eval)": lambda T, x, w: T.dropout(x, 0.5, False),
    "layer_norm": lambda T, x, w: T.layer_norm(x, [4], None, None, 1e-5, True),
    "group_norm": lambda T, x, w: T.group_norm(x, 1, None, None, 1e-5, True),
    "batch_norm": lambda T, x, w: T.batch_norm(x, T.ones(2), T.zeros(2), T.zeros(2), T.ones(2), False, 0.1, 1e-5,
                                               True),
    "instance_norm": lambda T, x, w: T.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, True),
    "embedding": lambda T, x, w: T.embedding(x.reshape(-1, 4), T.tensor([[0, 2], [1, 1]])),
    "max_pool2d": lambda T, x, w: T.max_pool2d(x, 2),
    "max_pool1d": lambda T, x, w: T.max_pool1d(x[0], 2, 1),
    "avg_pool1d": lambda T, x, w: T.avg_pool1d(x[0], 2),
    "adaptive_max_pool1d": lambda T, x, w: T.adaptive_max_pool1d(x[0], 2)[0],
    "selu": lambda T, x, w: T.selu(x),
    "hardshrink": lambda T, x, w: T.hardshrink(x, 0.5),
    "rsub": lambda T, x, w: T.rsub(x, 1.0, alpha=2),
}


@pytest.mark.parametrize("call", FUNCTIONAL.values(), ids=FUNCTIONAL.keys())
def test_torch_level_functional_names_take_torchs_arguments(call, torch):
    x_data = [[[[0.5 * (i - j) + k for j in range(4)] for i in range(4)] for k in range(2)] for _ in range(2)]
    w_data = [[[[0.25 * (i + j) - o for j in range(3)] for i in range(3)] for _ in range(2)] for o in range(2)]
    ours = call(ember, ember.tensor(x_data), ember.tensor(w_data))
    theirs = call(torch, torch.tensor(x_data), torch.tensor(w_data))
    assert_close(ours, theirs, rtol=1e-5, atol=1e-5)
