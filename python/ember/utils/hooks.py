"""torch.utils.hooks: RemovableHandle, the handle hook registrations return."""

from ..nn.modules.module import RemovableHandle

__all__ = ["RemovableHandle"]
