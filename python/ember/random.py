"""torch.random: the seed and state of the global random stream.

The stream is counter-based (Philox), one for the process and every device,
so its whole state is its seed and the offset of its next draw.
get_rng_state() gives those 16 bytes as a uint8 tensor (seed, then offset,
little-endian); PyTorch's CPU state is 5056 bytes of its Mersenne Twister,
so neither library reads the other's. ember.Generator objects keep streams
of their own (Note [Host generators])."""

import contextlib
import os

from . import _C
from ._generator import Generator

_STATE_BYTES = 16


def get_rng_state():
    """The global stream's state: a uint8 tensor of 16 bytes."""
    from ._factories import tensor

    seed, offset = _C._random_state()
    return tensor(list(seed.to_bytes(8, "little") + offset.to_bytes(8, "little")), dtype=_C.uint8)


def set_rng_state(new_state):
    """Makes the global stream draw on from a state get_rng_state() gave."""
    if not isinstance(new_state, _C.Tensor):
        raise TypeError(f"set_rng_state(): expected a Tensor, but got {type(new_state).__name__}")
    if new_state.dtype != _C.uint8 or new_state.dim() != 1 or new_state.numel() != _STATE_BYTES:
        raise RuntimeError(f"set_rng_state(): expected the 1-d uint8 tensor of {_STATE_BYTES} bytes that "
                           f"get_rng_state() gives, but got {new_state.dtype} of shape {list(new_state.shape)}")
    data = bytes(new_state.tolist())
    _C._set_random_state(int.from_bytes(data[:8], "little"), int.from_bytes(data[8:], "little"))


def initial_seed():
    """The seed the global stream was last seeded with."""
    return _C.initial_seed()


class _DefaultGenerator(Generator):
    """torch.default_generator: the global stream itself, which ember.manual_seed
    seeds. A call given it draws from a host stream seeded from the global
    one, as a call given no generator does (Note [Host generators])."""

    def __init__(self):
        self.device = _C.device("cpu")

    def manual_seed(self, seed):
        _C.manual_seed(seed)
        return self

    def seed(self):
        return seed()

    def initial_seed(self):
        return _C.initial_seed()

    def get_state(self):
        return get_rng_state()

    def set_state(self, new_state):
        set_rng_state(new_state)
        return self

    @property
    def _rng(self):
        from ._generator import host_rng

        return host_rng(None, "default_generator")

    def __repr__(self):
        return "<ember.Generator: the default generator (the global stream)>"


default_generator = _DefaultGenerator()


def manual_seed(seed):
    """Seeds the global stream of every device; returns default_generator, as torch.manual_seed does."""
    _C.manual_seed(seed)
    return default_generator


def seed():
    """Seeds the global stream from the operating system's entropy; returns the seed."""
    value = int.from_bytes(os.urandom(8), "little") >> 1
    manual_seed(value)
    return value


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, device_type="cuda"):
    """Restores the global stream's state on leaving the block, so that draws
    inside it leave the draws after it unchanged. One stream serves every
    device, so `devices` and `device_type` change nothing."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
