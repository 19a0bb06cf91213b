"""ember.Generator: a random stream of its own for the calls that take
``generator=`` (randperm, randint, rand, randn, and the samplers and
random_split of ember.utils.data). See Note [Host generators]."""

import json

from . import _C

# Note [Host generators]
# The core has one random stream per process (a seed and a counter, set by
# ember.manual_seed), and its kernels draw from nothing else. A Generator is
# therefore a stream on the host: NumPy's PCG64 seeded by manual_seed. A call
# given one draws there and copies the values to the tensor's device, so its
# numbers are repeatable from the seed, but they are not the global stream's
# numbers, nor PyTorch's (whose CPU and CUDA generators differ from each other
# too). Where no generator is given, code that needs a host stream (the
# samplers, random_split, a DataLoader's worker seeds) seeds a fresh one from
# 64 bits of the global stream, so that ember.manual_seed makes it repeatable.

# PyTorch's seed of a new generator, so that a fresh ember.Generator has the
# same initial_seed().
_DEFAULT_SEED = 67280421310721
_SEED_RANGE = (-(2**63), 2**64 - 1)


def _numpy_random(caller):
    try:
        import numpy.random
    except ImportError:
        raise ImportError(f"{caller} draws from NumPy's PCG64 generator; install NumPy (pip install numpy)") from None
    return numpy.random


def _check_seed(seed, caller):
    if isinstance(seed, bool) or not hasattr(type(seed), "__index__"):
        raise RuntimeError(f"{caller} expected a long, but got {type(seed).__name__}")
    seed = seed.__index__()
    if not _SEED_RANGE[0] <= seed <= _SEED_RANGE[1]:
        raise ValueError(f"{caller}: the seed {seed} is outside [-2**63, 2**64)")
    return seed % 2**64  # a negative seed wraps, as in PyTorch


class Generator:
    """A random stream with PyTorch's Generator methods (manual_seed, seed,
    initial_seed, get_state, set_state); see Note [Host generators]."""

    def __init__(self, device="cpu"):
        self.device = device if isinstance(device, _C.device) else _C.device(device)
        if self.device.type == "meta":
            raise RuntimeError("Generator: the meta device holds no values to draw")
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed):
        self._initial_seed = _check_seed(seed, "manual_seed")
        random = _numpy_random("ember.Generator")
        self._rng = random.Generator(random.PCG64(self._initial_seed))
        return self

    def seed(self):
        """Seeds the stream from the operating system's entropy; returns the seed."""
        seed = int(_numpy_random("Generator.seed").SeedSequence().generate_state(2).view("uint64")[0])
        self.manual_seed(seed)
        return seed

    def initial_seed(self):
        return self._initial_seed

    def get_state(self):
        """The stream's state as a uint8 tensor that set_state takes back."""
        state = {"initial_seed": self._initial_seed, "pcg64": self._rng.bit_generator.state}
        encoded = json.dumps(state).encode()
        return _C._tensor_from_buffer(encoded, 0, _C.uint8, [len(encoded)])

    def set_state(self, new_state):
        if not isinstance(new_state, _C.Tensor) or new_state.dtype != _C.uint8:
            raise TypeError("RNG state must be an ember.uint8 tensor (from Generator.get_state())")
        try:
            state = json.loads(_C._tensor_bytes(new_state))
            random = _numpy_random("Generator.set_state")
            rng = random.Generator(random.PCG64())
            rng.bit_generator.state = state["pcg64"]
            initial_seed = _check_seed(state["initial_seed"], "set_state")
        except (ValueError, TypeError, KeyError, UnicodeDecodeError) as error:
            raise RuntimeError(f"set_state: the tensor is not a state from Generator.get_state() ({error})") from None
        self._rng, self._initial_seed = rng, initial_seed
        return self

    def __repr__(self):
        return f"<ember.Generator on {self.device}, initial_seed={self._initial_seed}>"


def host_rng(generator, caller):
    """The NumPy stream a call draws from: ``generator``'s own, or one seeded
    from the global stream when it is None (Note [Host generators])."""
    if generator is None:
        random = _numpy_random(caller)
        return random.Generator(random.PCG64(seed_from_global_stream()))
    if not isinstance(generator, Generator):
        raise TypeError(f"{caller}: generator must be an ember.Generator, not {type(generator).__name__}")
    return generator._rng


def seed_from_global_stream():
    """64 random bits from the global stream that ember.manual_seed sets."""
    high, low = (int(u * 2**32) for u in _C._rand([2], _C.float64, _C.device("cpu")).tolist())
    return high << 32 | low
