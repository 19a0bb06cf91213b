"""torch.backends.cudnn's flags. Ember has no cuDNN: is_available() is False
and ``enabled``, ``benchmark``, ``deterministic`` and ``allow_tf32`` are
accepted and change nothing (Ember's convolutions pick no algorithm by
timing)."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None
