"""ember.distributions: probability distributions with PyTorch's names and
formulas (torch.distributions): sample, rsample (reparameterized, so
gradients flow to the parameters), log_prob, entropy, mean, variance."""

from . import constraints
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Chi2, Gamma
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .geometric import Geometric
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from . import transforms
from .transformed_distribution import LogNormal, TransformedDistribution
from .transforms import AffineTransform, ComposeTransform, ExpTransform, SigmoidTransform, TanhTransform, Transform
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from .studentT import StudentT
from .uniform import Uniform

__all__ = ["AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ComposeTransform",
           "Dirichlet", "Distribution", "ExpTransform", "Exponential", "Gamma", "Geometric", "Gumbel", "HalfNormal",
           "Independent", "Laplace", "LogNormal", "MixtureSameFamily", "Multinomial", "MultivariateNormal", "Normal",
           "OneHotCategorical", "Poisson", "RelaxedBernoulli", "RelaxedOneHotCategorical", "SigmoidTransform",
           "StudentT", "TanhTransform", "Transform", "TransformedDistribution", "Uniform", "constraints",
           "kl_divergence", "register_kl", "transforms"]
