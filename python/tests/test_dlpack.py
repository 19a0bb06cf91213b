"""Zero-copy exchange with NumPy and PyTorch, both ways, through DLPack."""

import gc

import pytest

import ember
from helpers import assert_close

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_numpy_round_trip_shares_memory(np, dtype):
    array = (np.arange(6) % 2 if dtype == "bool" else np.arange(6)).astype(dtype).reshape(2, 3)
    t = ember.from_numpy(array)
    assert str(t.dtype) == f"ember.{dtype}" and t.shape == (2, 3)
    assert t.tolist() == array.tolist()
    back = t.numpy()
    assert back.dtype == array.dtype and back.flags.writeable
    assert np.shares_memory(back, array)


def test_writes_show_on_both_sides(np):
    array = np.zeros((2, 3), dtype=np.float32)
    t = ember.from_numpy(array)
    t[0, 1] = 5
    array[1, 2] = 7
    assert t.tolist() == [[0, 5, 0], [0, 0, 7]]
    view = t.numpy()
    view[0, 0] = -1
    assert array[0, 0] == -1


def test_strided_views_cross_without_copies(np, torch):
    array = np.arange(24, dtype=np.float64).reshape(4, 6)[::2, 1::2]
    t = ember.from_numpy(array)
    assert t.stride() == (12, 2) and t.tolist() == array.tolist()
    transposed = ember.arange(12.0).reshape(3, 4).T
    assert_close(torch.from_dlpack(transposed), transposed.numpy())
    assert torch.from_dlpack(transposed).stride() == transposed.stride()


@pytest.mark.parametrize("dtype", DTYPES + ["bfloat16"])
def test_pytorch_round_trip_shares_memory(torch, dtype):
    source = torch.arange(6).to(getattr(torch, dtype))
    e = ember.from_dlpack(source)
    assert str(e.dtype) == f"ember.{dtype}" and e.data_ptr() == source.data_ptr()
    back = torch.from_dlpack(e)
    assert back.dtype == source.dtype and back.data_ptr() == source.data_ptr()
    if dtype != "bool":
        e[0] = 3
        assert source[0].item() == 3


def test_memory_outlives_the_producer(np, torch):
    t = ember.from_numpy(np.arange(4.0))
    gc.collect()
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
    source = ember.arange(3.0)
    consumer = torch.from_dlpack(source)
    del source
    gc.collect()
    assert consumer.tolist() == [0.0, 1.0, 2.0]


def test_protocol_details(torch):
    t = ember.ones(2)
    assert t.__dlpack_device__() == (1, 0)
    assert type(t.__dlpack__()).__name__ == "PyCapsule"
    copied = torch.from_dlpack(t.__dlpack__(copy=True))
    copied[0] = 5
    assert t.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="requires grad"):
        ember.ones(2, requires_grad=True).__dlpack__()
    with pytest.raises(ValueError, match="capsule"):
        capsule = t.__dlpack__()
        ember.from_dlpack(capsule)
        ember.from_dlpack(capsule)  # a consumed capsule


def test_from_numpy_refuses_read_only_and_negative_strides(np):
    array = np.arange(3.0)
    array.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        ember.from_numpy(array)
    with pytest.raises(ValueError, match="negative strides"):
        ember.from_numpy(np.arange(3.0)[::-1])
    assert ember.tensor(np.arange(3.0)[::-1]).tolist() == [2.0, 1.0, 0.0]


def test_read_only_producer_gives_a_tensor_that_refuses_writes(np, tmp_path):
    path = tmp_path / "weights.bin"
    np.arange(6, dtype=np.float32).tofile(path)
    mapped = np.memmap(path, dtype=np.float32, mode="r", shape=(2, 3))
    t = ember.from_dlpack(mapped)
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]] and (t + 1).tolist() == [[1, 2, 3], [4, 5, 6]]
    for write in (lambda: t.add_(1), lambda: t.fill_(0), lambda: t.copy_(ember.zeros(2, 3)),
                  lambda: t[0].mul_(2), lambda: t.__setitem__((1, 2), 9.0), lambda: t.T.zero_()):
        with pytest.raises(RuntimeError, match="read-only tensor"):
            write()
    assert mapped.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert not t.numpy().flags.writeable and np.shares_memory(t.numpy(), mapped)
    with pytest.raises(BufferError, match="read-only"):
        t.__dlpack__()  # a legacy capsule cannot say it is read-only
    copy = t.clone()
    copy.add_(1)
    assert copy.tolist() == [[1, 2, 3], [4, 5, 6]]


def test_numpy_conversions(np):
    t = ember.tensor([[1, 2], [3, 4]], dtype=ember.int16)
    assert np.asarray(t).dtype == np.int16 and np.array(t, dtype=np.float32).dtype == np.float32
    with pytest.raises(RuntimeError, match="requires grad"):
        ember.ones(2, requires_grad=True).numpy()
    assert ember.ones(2, requires_grad=True).numpy(force=True).tolist() == [1.0, 1.0]


def test_utils_dlpack_names(torch):
    from ember.utils.dlpack import from_dlpack, to_dlpack

    source = ember.arange(4.0)
    consumer = torch.utils.dlpack.from_dlpack(to_dlpack(source))
    assert consumer.data_ptr() == source.data_ptr()
    assert from_dlpack(torch.utils.dlpack.to_dlpack(consumer)).data_ptr() == source.data_ptr()
