"""Fractional max pooling against PyTorch from the same _random_samples:
values, indices and gradients in 2-d (batched and not, output_size and
output_ratio) and 3-d, the modules, and the errors."""

import numpy as np
import pytest

import ember

RNG = np.random.default_rng(0)
CASES = [(2, (2, 3, 9, 11), dict(kernel_size=2, output_size=(4, 5))),
         (2, (1, 2, 10, 10), dict(kernel_size=(3, 2), output_ratio=(0.5, 0.5))),
         (2, (3, 7, 8), dict(kernel_size=2, output_size=3)),
         (3, (1, 2, 6, 7, 8), dict(kernel_size=2, output_size=(3, 4, 5)))]


@pytest.mark.parametrize("dims, shape, arguments", CASES)
def test_windows_values_indices_and_gradients_match_pytorch(torch, dims, shape, arguments):
    x = RNG.standard_normal(shape).astype(np.float32)
    planes = 1 if len(shape) == dims + 1 else shape[0]
    samples = RNG.random((planes, shape[-dims - 1], dims)).astype(np.float32)
    results = []
    for library in (ember, torch):
        pool = getattr(library.nn.functional, f"fractional_max_pool{dims}d")
        tensor = library.tensor(x, requires_grad=True)
        output, indices = pool(tensor, return_indices=True, _random_samples=library.tensor(samples), **arguments)
        (output * library.arange(output.numel(), dtype=library.float32).reshape(output.shape)).sum().backward()
        results.append((output.detach().numpy(), indices.numpy(), tensor.grad.numpy()))
    for ours, theirs in zip(*results):
        assert np.array_equal(ours, theirs)


def test_modules_draw_their_windows_and_name_bad_arguments():
    pool = ember.nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0.5), return_indices=True)
    output, indices = pool(ember.randn(2, 3, 10, 10))
    assert tuple(output.shape) == tuple(indices.shape) == (2, 3, 5, 5)
    assert tuple(ember.nn.FractionalMaxPool3d(2, output_size=2)(ember.randn(1, 2, 5, 5, 5)).shape) == (1, 2, 2, 2, 2)
    with pytest.raises(ValueError, match="requires specifying either an output size, or a pooling ratio"):
        ember.nn.FractionalMaxPool2d(2)
    with pytest.raises(RuntimeError, match="pool size 4 too large relative to input size 5 for output size 3"):
        ember.nn.functional.fractional_max_pool2d(ember.ones(1, 1, 5, 5), 4, output_size=3)
