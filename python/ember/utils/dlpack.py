"""torch.utils.dlpack's names: to_dlpack gives a capsule, from_dlpack takes
a capsule or any object with ``__dlpack__``."""

from .._dlpack import from_dlpack


def to_dlpack(tensor):
    """A DLPack capsule lending ``tensor``'s memory (consumed once)."""
    return tensor.__dlpack__()


__all__ = ["from_dlpack", "to_dlpack"]
