"""More of torch's top-level surface against PyTorch: the constants,
asarray, typename, is_storage, get_device, the deterministic debug mode,
the default generator, set_default_tensor_type, quantile and nanquantile
(NaN handling, every interpolation, gradients), and Tensor methods
(angle, real, imag, as_subclass, narrow_copy, new_empty_strided, ...)."""

import array
import warnings

import numpy as np
import pytest

import ember


def name_of(dtype):
    return str(dtype).split(".")[-1]


def top_level_report(torch):
    report = [(torch.pi, torch.e, torch.inf, str(torch.nan), torch.newaxis)]
    values = np.arange(3.0)
    shared = torch.asarray(values)
    shared[0] = 9
    report.append((values.tolist(), name_of(shared.dtype), name_of(torch.asarray(array.array("f", [1, 2])).dtype),
                   name_of(torch.asarray([1, 2]).dtype), tuple(torch.asarray(3).shape)))
    x = torch.ones(2)
    report.append((torch.asarray(x) is x, torch.asarray(x, copy=True) is x,
                   name_of(torch.asarray(x, dtype=torch.float64).dtype)))
    with pytest.raises(ValueError):
        torch.asarray(x, dtype=torch.float64, copy=False)
    report.append((torch.typename(torch.ones(1)), torch.typename(3), torch.is_storage(torch.ones(1).untyped_storage()),
                   torch.is_storage(torch.ones(1)), torch.get_device(torch.ones(1))))
    report.append(torch.get_deterministic_debug_mode())
    torch.set_deterministic_debug_mode("warn")
    report.append((torch.get_deterministic_debug_mode(), torch.are_deterministic_algorithms_enabled(),
                   torch.is_deterministic_algorithms_warn_only_enabled()))
    torch.set_deterministic_debug_mode(0)
    report.append(torch.are_deterministic_algorithms_enabled())
    with pytest.raises(RuntimeError, match="invalid value of debug_mode, expected one of `default`, `warn`, "
                                           "`error`, but got x"):
        torch.set_deterministic_debug_mode("x")
    report.append((torch.is_warn_always_enabled(), torch.set_flush_denormal(False)))
    generator = torch.manual_seed(3)
    report.append((isinstance(generator, torch.Generator), generator is torch.default_generator,
                   torch.default_generator.initial_seed()))
    torch.default_generator.manual_seed(5)
    first = torch.rand(2).tolist()
    torch.manual_seed(5)
    report.append(first == torch.rand(2).tolist())
    state = torch.default_generator.get_state()
    drawn = torch.rand(2).tolist()
    torch.default_generator.set_state(state)
    report.append(drawn == torch.rand(2).tolist())
    report.append(len(torch.randperm(5, generator=torch.default_generator)))
    with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
        torch.set_default_tensor_type(torch.DoubleTensor)
    report.append(name_of(torch.ones(1).dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.set_default_tensor_type("torch.FloatTensor")
    report.append(name_of(torch.ones(1).dtype))
    return report


def quantile_report(torch):
    x = torch.tensor([[1.0, float("nan"), 3.0, 2.0], [4.0, 1.0, 2.0, 3.0], [float("nan")] * 4])
    report = []
    for interpolation in ("linear", "lower", "higher", "nearest", "midpoint"):
        for quantile in (torch.quantile, torch.nanquantile):
            report.append(str(quantile(x, torch.tensor([0.25, 0.5, 0.9]), dim=1,
                                       interpolation=interpolation).tolist()))
            report.append(str(quantile(x[1], 0.3, interpolation=interpolation).tolist()))
    report.append(str(torch.nanquantile(x, 0.5, dim=0, keepdim=True).tolist()))
    report.append(str(torch.quantile(torch.arange(10.0), 0.35).item()))
    report.append(str(x[1].nanquantile(0.5).item()))
    report.append(str(torch.tensor([[1.0, 2.0], [2.0, 5.0]]).cov().tolist())
                  + str(torch.tensor([[1.0, 2.0, 4.0], [2.0, 5.0, 1.0]]).corrcoef().tolist()))
    y = torch.tensor([3.0, 1.0, 2.0, 5.0], requires_grad=True)
    torch.quantile(y, 0.4).backward()
    report.append(str(y.grad.tolist()))
    return report


def tensor_method_report(torch):
    x = torch.tensor([-1.0, 0.0, 2.0, float("nan")])
    report = [(str(x.angle().tolist()), x.real is x, str(torch.angle(torch.tensor([-2, 3])).tolist()),
               str(torch.real(x).tolist()))]
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        x.imag

    class Marked(torch.Tensor):
        pass

    report.append(type(torch.ones(2).as_subclass(Marked)).__name__)
    report.append((tuple(torch.ones(4).unsafe_chunk(2)[0].shape), tuple(torch.ones(4).unsafe_split(3)[1].shape),
                   tuple(torch.ones(3, 4).narrow_copy(1, 1, 2).shape),
                   torch.ones(2).new_empty_strided((2, 3), (1, 2)).stride()))
    report.append((torch.ones(2).is_inference(), torch.ones(2).is_mps))
    report.append((torch.tensor([-2.0, 1.0]).prelu(torch.tensor([0.5])).tolist(),
                   torch.tensor([-0.2, 1.0]).hardshrink().tolist(),
                   torch.tensor([1.0, float("nan"), 3.0]).nanquantile(0.5).item()))
    weight = torch.ones(2, requires_grad=True)
    (weight.as_subclass(Marked) * 2).sum().backward()
    report.append(weight.grad.tolist())
    return report


def test_top_level_names_behave_as_pytorchs(torch):
    assert top_level_report(ember) == top_level_report(torch)


def test_quantiles_match_pytorch(torch):
    assert quantile_report(ember) == quantile_report(torch)


def test_tensor_methods_match_pytorch(torch):
    assert tensor_method_report(ember) == tensor_method_report(torch)
