"""ember.distributions: probability distributions with PyTorch's names and
formulas (torch.distributions): sample, rsample (reparameterized, so
gradients flow to the parameters), log_prob, entropy, mean, variance."""

from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .independent import Independent
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Independent", "MultivariateNormal", "Normal", "Uniform",
           "constraints", "kl_divergence", "register_kl"]
