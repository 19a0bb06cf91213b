"""torch.random's state functions, set_float32_matmul_precision and the
inter-op thread count, as PyTorch programs use them at their start and in
their checkpoints."""

import pytest

import ember


def test_a_saved_state_replays_the_same_numbers():
    ember.manual_seed(1234)
    assert ember.initial_seed() == 1234
    ember.rand(5)
    state = ember.get_rng_state()
    assert state.dtype == ember.uint8 and state.shape == (16,)
    first = ember.randn(7).tolist()
    ember.rand(3)
    ember.set_rng_state(state)
    assert ember.randn(7).tolist() == first
    assert ember.random.get_rng_state().tolist() != state.tolist()  # the draw moved the stream on


def test_fork_rng_leaves_the_draws_after_it_unchanged():
    ember.manual_seed(7)
    expected = ember.rand(4).tolist()
    ember.manual_seed(7)
    with ember.random.fork_rng():
        ember.rand(100)
    assert ember.rand(4).tolist() == expected


def test_seed_picks_a_new_seed_and_reports_it():
    value = ember.seed()
    assert ember.initial_seed() == value
    numbers = ember.rand(3).tolist()
    ember.manual_seed(value)
    assert ember.rand(3).tolist() == numbers


@pytest.mark.parametrize("bad, error", [
    (lambda: ember.zeros(16), RuntimeError),
    (lambda: ember.zeros(15, dtype=ember.uint8), RuntimeError),
    (lambda: [0] * 16, TypeError),
])
def test_set_rng_state_refuses_what_get_rng_state_did_not_give(bad, error):
    before = ember.get_rng_state().tolist()
    with pytest.raises(error, match="set_rng_state"):
        ember.set_rng_state(bad())
    assert ember.get_rng_state().tolist() == before


def test_float32_matmul_precision_follows_pytorch(torch):
    for library in (torch, ember):
        before = library.get_float32_matmul_precision()
        try:
            assert before == "highest"
            library.set_float32_matmul_precision("high")
            assert library.get_float32_matmul_precision() == "high"
            assert library.backends.cuda.matmul.allow_tf32
            library.set_float32_matmul_precision("highest")
            assert not library.backends.cuda.matmul.allow_tf32
        finally:
            library.set_float32_matmul_precision(before)
    with pytest.raises(RuntimeError, match="'highest', 'high' or 'medium'"):
        ember.set_float32_matmul_precision("fast")


def test_interop_threads_are_kept():
    before = ember.get_num_interop_threads()
    assert before >= 1
    ember.set_num_interop_threads(3)
    assert ember.get_num_interop_threads() == 3
    with pytest.raises(RuntimeError, match="positive number of threads"):
        ember.set_num_interop_threads(0)
    ember.set_num_interop_threads(before)


def test_the_default_device_is_the_threads_own_and_a_with_block_restores_it(torch):
    import threading

    for library in (torch, ember):
        assert library.get_default_device() == library.device("cpu")
        library.set_default_device("meta")
        try:
            assert library.zeros(2).device.type == "meta"
            assert library.nn.Linear(2, 2).weight.device.type == "meta"
            assert library.ones(2, device="cpu").device.type == "cpu"
            seen = []
            worker = threading.Thread(target=lambda: seen.append(library.zeros(1).device.type))
            worker.start()
            worker.join()
            assert seen == ["cpu"]
        finally:
            library.set_default_device(None)
        assert library.zeros(1).device.type == "cpu"
        with library.device("meta"):
            assert library.randn(3).device.type == "meta"
            with library.device("cpu"):
                assert library.arange(3).device.type == "cpu"
            assert library.empty(1).device.type == "meta"
        assert library.tensor([1.0]).device.type == "cpu"
