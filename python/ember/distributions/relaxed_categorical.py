"""The module path torch.distributions.relaxed_categorical: the relaxations live together in relaxed.py."""

from .relaxed import ExpRelaxedCategorical, RelaxedOneHotCategorical

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]
