"""torch.version: the release, and the GPU toolkits built in. Ember's
core is built without any; its GPU support comes from plugins loaded at
run time (ember.plugins() names them), so cuda, hip, rocm and xpu are
None here, as in a CPU-only PyTorch."""

from ._C import __version__

cuda = None
hip = None
rocm = None
xpu = None
debug = False
