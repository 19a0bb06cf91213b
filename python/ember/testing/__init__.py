"""ember.testing: assert_close, with torch.testing's rules and messages."""

from ._comparison import assert_close

__all__ = ["assert_close"]
