"""ember.autograd.gradcheck: analytic gradients against central finite
differences, as torch.autograd.gradcheck compares them."""

from .. import _C
from .grad_mode import enable_grad, no_grad


class GradcheckError(RuntimeError):
    """The analytic and numerical Jacobians of a function disagree."""


def _outputs(func, inputs):
    result = func(*inputs)
    return [result] if isinstance(result, _C.Tensor) else [r for r in result if isinstance(r, _C.Tensor)]


def _flat_values(tensors):
    import numpy

    return numpy.concatenate([t.detach().cpu().numpy().astype(numpy.float64).reshape(-1) for t in tensors]
                             or [numpy.zeros(0)])


def _numerical_jacobian(func, inputs, differentiable, eps):
    """Column j: d(outputs) / d(input element j), by central differences."""
    import numpy

    columns = []
    for k in differentiable:
        base = inputs[k].detach().clone()
        flat = base.reshape(-1)
        for j in range(flat.numel()):
            value = float(flat[j].item())
            shifted = []
            for step in (eps, -eps):
                flat[j] = value + step
                trial = list(inputs)
                trial[k] = base
                with no_grad():
                    shifted.append(_flat_values(_outputs(func, trial)))
            flat[j] = value
            columns.append((shifted[0] - shifted[1]) / (2 * eps))
    return numpy.stack(columns, axis=1) if columns else numpy.zeros((0, 0))


def _analytic_jacobian(func, inputs, differentiable):
    """Row i: the gradient of output element i with respect to each input element."""
    import numpy

    from . import grad

    outputs = _outputs(func, inputs)
    targets = [inputs[k] for k in differentiable]
    rows = []
    for out_index, output in enumerate(outputs):
        if not output.requires_grad:
            rows.extend(numpy.zeros(sum(t.numel() for t in targets)) for _ in range(output.numel()))
            continue
        for i in range(output.numel()):
            seed = _C._zeros(list(output.shape), output.dtype, output.device)
            seed.reshape(-1)[i] = 1
            grads = grad([output], targets, [seed], retain_graph=True, allow_unused=True)
            rows.append(numpy.concatenate([
                (g.detach().cpu().numpy().reshape(-1) if g is not None else numpy.zeros(t.numel()))
                for g, t in zip(grads, targets)]))
    width = sum(t.numel() for t in targets)
    return numpy.stack(rows) if rows else numpy.zeros((0, width))


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """True when func's gradients with respect to the inputs that require grad
    (float64 tensors, for a meaningful check) match central finite differences
    within atol + rtol * |numerical|; otherwise raises GradcheckError (or
    returns False with raise_exception=False). It needs NumPy."""
    import numpy

    inputs = (inputs,) if isinstance(inputs, _C.Tensor) else tuple(inputs)
    differentiable = [k for k, x in enumerate(inputs) if isinstance(x, _C.Tensor) and x.requires_grad]
    if not differentiable:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    for k in differentiable:
        if inputs[k].dtype != _C.float64:
            raise ValueError(f"gradcheck: input {k} is {inputs[k].dtype}; finite differences need float64 inputs")
    analytic = _analytic_jacobian(func, inputs, differentiable)
    numerical = _numerical_jacobian(func, inputs, differentiable, eps).reshape(analytic.shape)
    mismatch = numpy.abs(analytic - numerical) > atol + rtol * numpy.abs(numerical)
    if mismatch.any():
        row, column = (int(v) for v in numpy.argwhere(mismatch)[0])
        message = (f"Jacobian mismatch for output element {row} with respect to input element {column}: "
                   f"analytic {analytic[row, column]!r}, numerical {numerical[row, column]!r}")
        if raise_exception:
            raise GradcheckError(message)
        return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True):
    """gradcheck of the first derivative: the vector-Jacobian product of func
    with `grad_outputs` (random float64 ones by default), differentiated with
    respect to the inputs and those grad_outputs, as
    torch.autograd.gradgradcheck checks second derivatives."""
    from . import grad
    from .._factories import randn

    inputs = (inputs,) if isinstance(inputs, _C.Tensor) else tuple(inputs)
    differentiable = [k for k, x in enumerate(inputs) if isinstance(x, _C.Tensor) and x.requires_grad]
    if grad_outputs is None:
        outputs = [o for o in _outputs(func, inputs) if o.requires_grad]
        grad_outputs = [randn(list(o.shape), dtype=o.dtype, device=o.device).requires_grad_() for o in outputs]
    grad_outputs = (grad_outputs,) if isinstance(grad_outputs, _C.Tensor) else tuple(grad_outputs)

    def first_derivative(*arguments):
        # The finite differences call this without grad and with plain tensors; the derivative needs both.
        primals = [x.detach().requires_grad_() if k in differentiable and not x.requires_grad else x
                   for k, x in enumerate(arguments[:len(inputs)])]
        with enable_grad():
            outputs = [o for o in _outputs(func, primals) if o.requires_grad]
            found = grad(outputs, [primals[k] for k in differentiable], list(arguments[len(inputs):]),
                         create_graph=True, allow_unused=True)
        return tuple(g for g in found if g is not None)

    return gradcheck(first_derivative, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
