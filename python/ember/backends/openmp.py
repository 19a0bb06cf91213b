"""torch.backends.openmp: whether OpenMP is there. Ember's CPU plugin runs
its own thread pool, and oneDNN, which it calls, is built with OpenMP in
Debian's package, so it is available once that plugin is loaded."""

from .. import _plugins


def is_available():
    return any(info.loaded and info.name == "cpu" for info in _plugins.plugins())
