"""torch.utils.tensorboard: SummaryWriter, which writes TensorBoard's event
files through the `tensorboard` package (as PyTorch's does; install it with
`pip install tensorboard`)."""

try:
    import tensorboard  # noqa: F401
except ImportError:
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above; install it with "
                      "`pip install tensorboard`") from None

from .writer import FileWriter, SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
