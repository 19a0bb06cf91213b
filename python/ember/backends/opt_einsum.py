"""torch.backends.opt_einsum's flags. ember.einsum chooses its own order of
contractions (Note [Einsum by pairs]), so ``enabled`` and ``strategy`` are
accepted and change nothing;
is_available() says whether the opt_einsum package is installed, and
``strategy`` is "auto" then and None otherwise, as in PyTorch."""

import importlib.util


def is_available():
    return importlib.util.find_spec("opt_einsum") is not None


enabled = True
strategy = "auto" if is_available() else None
