"""nn.Parameter: a tensor that a Module registers as a learnable parameter."""

from .. import _C


class Parameter(_C.Tensor):
    """Shares ``data``'s memory as a new leaf that requires grad by default."""

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = _C._empty([0], None, _C.device("cpu"))
        super().__init__(data.detach())
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()


    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = Parameter(self.detach().clone(), self.requires_grad)
        return memo[id(self)]
