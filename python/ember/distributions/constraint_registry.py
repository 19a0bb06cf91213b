"""biject_to and transform_to: registries from a constraint to a transform
from unconstrained reals onto it, with PyTorch's mapping. biject_to(c) is a
bijection (optimizing its input is a reparameterization of a parameter in
c, and its log-det-Jacobian is usable in densities); transform_to(c) only
needs to reach c (SoftmaxTransform for the simplex, and the matrix
constraints, which biject_to leaves out). Lookup is by the constraint's
exact type."""

import numbers

from . import constraints, transforms


class ConstraintRegistry:
    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        """Registers factory(constraint) -> Transform for a Constraint
        subclass (or the type of a constraint given); a decorator without factory."""
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, constraints.Constraint):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, but got "
                            f"{constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        factory = self._registry.get(type(constraint))
        if factory is None:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints")
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _register_both(*constraint_types):
    def decorate(factory):
        for constraint_type in constraint_types:
            biject_to.register(constraint_type, factory)
            transform_to.register(constraint_type, factory)
        return factory
    return decorate


@_register_both(constraints.real)
def _to_real(constraint):
    return transforms.identity_transform


@_register_both(constraints.greater_than, constraints.greater_than_eq)
def _to_greater_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


@_register_both(constraints.less_than)
def _to_less_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


@_register_both(constraints.interval, constraints.half_open_interval)
def _to_interval(constraint):
    low, high = constraint.lower_bound, constraint.upper_bound
    if isinstance(low, numbers.Number) and low == 0 and isinstance(high, numbers.Number) and high == 1:
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(), transforms.AffineTransform(low, high - low)])


@biject_to.register(constraints.simplex)
def _biject_to_simplex(constraint):
    return transforms.StickBreakingTransform()


@transform_to.register(constraints.simplex)
def _transform_to_simplex(constraint):
    return transforms.SoftmaxTransform()


@transform_to.register(constraints.lower_cholesky)
def _transform_to_lower_cholesky(constraint):
    return transforms.LowerCholeskyTransform()


@transform_to.register(constraints.positive_definite)
@transform_to.register(constraints.positive_semidefinite)
def _transform_to_positive_definite(constraint):
    return transforms.PositiveDefiniteTransform()


@_register_both(constraints.corr_cholesky)
def _to_corr_cholesky(constraint):
    return transforms.CorrCholeskyTransform()


def _register_structured(registry):
    """The constraints built from others map to the transform built from the registry's transforms for those."""
    @registry.register(constraints.independent)
    def _to_independent(constraint):
        return transforms.IndependentTransform(registry(constraint.base_constraint),
                                               constraint.reinterpreted_batch_ndims)

    @registry.register(constraints.cat)
    def _to_cat(constraint):
        return transforms.CatTransform([registry(c) for c in constraint.cseq], constraint.dim, constraint.lengths)

    @registry.register(constraints.stack)
    def _to_stack(constraint):
        return transforms.StackTransform([registry(c) for c in constraint.cseq], constraint.dim)


_register_structured(biject_to)
_register_structured(transform_to)
