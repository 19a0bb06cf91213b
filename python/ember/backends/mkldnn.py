"""torch.backends.mkldnn: whether oneDNN (formerly MKL-DNN) runs the CPU's
matrix products and convolutions. Ember's CPU plugin always uses it, so
is_available() is True once that plugin is loaded, and ``enabled = False``
changes nothing."""

from .. import _plugins

enabled = True


def is_available():
    return any(info.loaded and info.name == "cpu" for info in _plugins.plugins())
