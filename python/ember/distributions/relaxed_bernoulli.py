"""The module path torch.distributions.relaxed_bernoulli: the relaxations live together in relaxed.py."""

from .relaxed import LogitRelaxedBernoulli, RelaxedBernoulli

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]
