"""Tensor basics: construction, metadata, views, conversion, repr."""

import pytest

import ember
from helpers import assert_close


def test_tensor_infers_dtype_like_pytorch(torch):
    for data in ([1, 2, 3], [1.0, 2], [True, False], [[1, 2], [3, 4]], 3.5, 7, True, [[]]):
        assert str(ember.tensor(data).dtype) == str(torch.tensor(data).dtype).replace("torch", "ember")
        assert tuple(ember.tensor(data).shape) == tuple(torch.tensor(data).shape)


def test_numpy_scalars_keep_their_kind(np):
    assert ember.tensor([np.bool_(True), np.False_]).dtype is ember.bool
    assert ember.tensor([np.int16(3)]).dtype is ember.int64
    assert ember.tensor([np.float32(0.5)]).dtype is ember.float32
    assert (ember.ones(2, dtype=ember.int8) + np.int64(1)).dtype is ember.int8


def test_tensor_with_dtype_and_ragged_input():
    t = ember.tensor([[1, 2], [3, 4]], dtype=ember.float64)
    assert t.dtype is ember.float64
    assert t.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(ValueError, match="length"):
        ember.tensor([[1, 2], [3]])
    with pytest.raises(TypeError, match="str"):
        ember.tensor(["a"])


def test_metadata(device):
    t = ember.zeros(2, 3, 4, device=device)
    assert t.shape == (2, 3, 4) and isinstance(t.shape, ember.Size)
    assert repr(t.shape) == "ember.Size([2, 3, 4])"
    assert t.size() == (2, 3, 4) and t.size(1) == 3 and t.size(-1) == 4
    assert t.ndim == 3 and t.dim() == 3 and t.numel() == 24 and len(t) == 2
    assert t.stride() == (12, 4, 1) and t.is_contiguous()
    assert t.dtype is ember.float32 and t.device == ember.device(device)
    assert t.T.shape == (4, 3, 2)
    assert t.mT.shape == (2, 4, 3) and not t.mT.is_contiguous()
    assert t.element_size() == 4 and t.nbytes == 96


def test_dtype_and_device_objects():
    assert repr(ember.float32) == "ember.float32" and ember.float is ember.float32 and ember.long is ember.int64
    assert ember.float16.is_floating_point and not ember.int32.is_floating_point and ember.int8.itemsize == 1
    cpu = ember.device("cpu")
    assert repr(cpu) == "device(type='cpu')" and str(cpu) == "cpu" and cpu.type == "cpu" and cpu.index is None
    assert cpu == ember.device("cpu") and hash(cpu) == hash(ember.device("cpu"))
    assert ember.promote_types(ember.int8, ember.uint8) is ember.int16
    with pytest.raises(RuntimeError):
        ember.device("nosuchdevice")


def test_repr_matches_pytorch(torch):
    cases = [[1.0, 2.5], [[1, 2], [3, 4]], [True, False], [1e-8, 1e8], 3.0]
    for data in cases:
        assert repr(ember.tensor(data)) == repr(torch.tensor(data))
    x = ember.ones(2, requires_grad=True)
    assert repr(x) == "tensor([1., 1.], requires_grad=True)"
    assert "grad_fn=<" in repr(x * 2)
    assert repr(ember.tensor([1, 2], dtype=ember.int8)) == "tensor([1, 2], dtype=ember.int8)"


def test_views_share_memory(device):
    base = ember.arange(12, device=device).reshape(3, 4)
    for view in (base.view(4, 3), base.view((2, 6)), base.transpose(0, 1), base.t(), base[1], base.unsqueeze(0),
                 base.flatten(), base.narrow(1, 1, 2), base.permute(1, 0), base.expand(2, 3, 4)):
        assert view.is_alias_of(base)
    assert base.unsqueeze(1).squeeze(1).shape == (3, 4)
    assert ember.zeros(1, 3, 1).squeeze().shape == (3,)
    assert ember.zeros(1, 3, 1).squeeze((0, 2)).shape == (3,)
    with pytest.raises(RuntimeError, match=r"view: shape '\[5, 3\]' is invalid"):
        base.view(5, 3)


def test_conversions(device):
    t = ember.tensor([1.5, -2.5], device=device)
    assert t.to(ember.int32).tolist() == [1, -2]
    assert t.int().dtype is ember.int32 and t.double().dtype is ember.float64 and t.long().dtype is ember.int64
    assert t.to(device) is not None and t.to("cpu", ember.float64).dtype is ember.float64
    assert t.to(dtype=ember.float16).dtype is ember.float16
    assert t.to(ember.zeros(1, dtype=ember.int64)).dtype is ember.int64
    copy = t.to(ember.float32, copy=True)
    copy.fill_(0)
    assert t.tolist() == [1.5, -2.5]
    assert ember.tensor(2.5).item() == 2.5 and isinstance(ember.tensor(3).item(), int)
    assert float(ember.tensor([4.0])) == 4.0 and int(ember.tensor(7)) == 7
    assert bool(ember.tensor(1)) and not bool(ember.tensor(0.0))
    assert [1, 2, 3][ember.tensor(1)] == 2
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(ember.ones(2))
    assert f"{ember.tensor(0.123456):.3f}" == "0.123"
    assert [v.item() for v in ember.tensor([5, 6])] == [5, 6]


def test_repeat_any_all_match_pytorch(torch):
    data = [[0, 1, 2], [3, 0, 5]]
    e, t = ember.tensor(data), torch.tensor(data)
    assert_close(e.repeat(2, 1, 3), t.repeat(2, 1, 3))
    assert_close(e.any(), t.any())
    assert_close(e.all(1), t.all(1))
    assert_close(e.any(0, keepdim=True), t.any(0, keepdim=True))
    assert_close(e.new_zeros(2), t.new_zeros(2))


def test_meta_device_has_shapes_not_data():
    t = ember.empty(3, 4, device="meta")
    assert (t @ ember.empty(4, 5, device="meta")).shape == (3, 5)
    with pytest.raises(RuntimeError):
        t.__dlpack__()
    # Moving to the meta device keeps shapes, strides' contiguity and dtypes; moving back fails.
    x = ember.randn(2, 3)
    m = x.to("meta")
    assert (m.device.type, tuple(m.shape), m.dtype) == ("meta", (2, 3), ember.float32)
    assert x.to("meta", ember.float64).dtype == ember.float64
    assert ember.nn.Linear(3, 4).to("meta").weight.device.type == "meta"
    with pytest.raises(RuntimeError, match="meta"):
        m.to("cpu")


def _swap_data_trace(lib, nn):
    """What `p.data = ...` leaves behind on a Parameter, in either library."""
    lib.manual_seed(0)
    p = nn.Parameter(lib.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]))
    (p * p).sum().backward()
    new = p.data * 2
    p.data = new
    after_swap = (isinstance(p, nn.Parameter), p.requires_grad, p.is_leaf, p.data_ptr() == new.data_ptr(),
                  p.grad.tolist(), p.tolist())
    p.grad = None
    (p * p).sum().backward()
    p.data = lib.arange(4.0)[1:].view(3, 1).t()  # another shape and non-contiguous strides
    return after_swap, p.grad.tolist(), (tuple(p.shape), p.stride(), p.storage_offset(), p.tolist())


def test_data_assignment_swaps_storage_like_pytorch(torch):
    assert _swap_data_trace(ember, ember.nn) == _swap_data_trace(torch, torch.nn)


def test_data_assignment_shares_storage_with_dtype_and_shape():
    x = ember.zeros(2, 3)
    counts = ember.arange(5)
    x.data = counts
    assert x.dtype is ember.int64 and x.shape == (5,) and x.data_ptr() == counts.data_ptr()
    counts.add_(1)  # one storage: a change through either tensor shows in both
    assert x.tolist() == [1, 2, 3, 4, 5]
    with pytest.raises(RuntimeError, match="floating point data, got int64"):
        ember.ones(2, requires_grad=True).data = counts


def test_data_assignment_reaches_modules_and_optimizers():
    lin = ember.nn.Linear(3, 2)
    optimizer = ember.optim.SGD(lin.parameters(), lr=0.5)
    lin.weight.data = ember.ones(2, 3)
    lin.bias.data = ember.zeros(2)
    lin(ember.ones(1, 3)).sum().backward()
    optimizer.step()
    assert lin.weight.tolist() == [[0.5] * 3] * 2 and lin.bias.tolist() == [-0.5, -0.5]
