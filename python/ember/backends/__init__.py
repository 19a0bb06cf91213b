"""ember.backends: the switches PyTorch keeps in torch.backends, so that
programs setting them run. Each submodule says which it honours; Ember has
no cuDNN, MPS or einsum path, and those flags are accepted and change
nothing (docs/python.md, Backend flags)."""

from . import cpu, cuda, cudnn, mkldnn, mps, openmp, opt_einsum

__all__ = ["cpu", "cuda", "cudnn", "mkldnn", "mps", "openmp", "opt_einsum"]
