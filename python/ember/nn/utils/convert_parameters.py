"""parameters_to_vector and vector_to_parameters: a model's parameters as
one flat vector and back."""

from ... import _C


def parameters_to_vector(parameters):
    """Every parameter flattened, in order, into one vector (on one device)."""
    parameters = list(parameters)
    device = parameters[0].device if parameters else None
    for p in parameters:
        if p.device != device:
            raise TypeError(f"Found two parameters on different devices, this is currently not supported: "
                            f"{device} and {p.device}")
    return _C.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copies consecutive pieces of `vec` into the parameters' data, in order."""
    if not isinstance(vec, _C.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    for p in parameters:
        count = p.numel()
        p.data = vec[offset:offset + count].view_as(p).data
        offset += count
