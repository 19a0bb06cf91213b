"""Switches PyTorch programs set or read: the attention backends
(backends.cuda's sdp flags, nn.attention.sdpa_kernel), backends.openmp,
is_inference_mode_enabled and onnx.is_in_onnx_export, against PyTorch."""

import io

import pytest

import ember


def switch_report(torch):
    from importlib import import_module

    attention = import_module(torch.__name__ + ".nn.attention")
    flags = torch.backends.cuda
    report = [[int(b) for b in attention.SDPBackend.__members__.values()], flags.flash_sdp_enabled()]
    with attention.sdpa_kernel([attention.SDPBackend.MATH]):
        report.append((flags.flash_sdp_enabled(), flags.math_sdp_enabled(), flags.mem_efficient_sdp_enabled()))
    report.append((flags.flash_sdp_enabled(), flags.mem_efficient_sdp_enabled()))
    with attention.sdpa_kernel(attention.SDPBackend.FLASH_ATTENTION):
        report.append((flags.flash_sdp_enabled(), flags.math_sdp_enabled()))
    with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend"):
        with attention.sdpa_kernel("math"):
            pass
    flags.enable_mem_efficient_sdp(False)
    report.append(flags.mem_efficient_sdp_enabled())
    flags.enable_mem_efficient_sdp(True)
    with pytest.warns(FutureWarning, match="sdp_kernel\\(\\)` is deprecated"):
        with flags.sdp_kernel(enable_flash=False):
            report.append(flags.flash_sdp_enabled())
    report.append(flags.flash_sdp_enabled())
    report.append(torch.is_inference_mode_enabled())
    with torch.inference_mode():
        report.append(torch.is_inference_mode_enabled())
        with torch.inference_mode(False):
            report.append(torch.is_inference_mode_enabled())
    report.append((torch.is_inference_mode_enabled(), torch.backends.openmp.is_available(),
                   torch.onnx.is_in_onnx_export()))
    return report


def test_switches_behave_as_pytorchs(torch):
    assert switch_report(ember) == switch_report(torch)


def test_a_model_sees_that_onnx_export_captures_it():
    pytest.importorskip("onnx", reason="ember.onnx.export needs the onnx package (pip install onnx)")
    seen = []

    class Branching(ember.nn.Module):
        def forward(self, x):
            seen.append(ember.onnx.is_in_onnx_export())
            return x * 2

    ember.onnx.export(Branching(), (ember.ones(2),), io.BytesIO())
    assert True in seen and not ember.onnx.is_in_onnx_export()


def test_version_module_says_no_toolkit_is_built_in():
    # A CPU-only PyTorch's answers: the GPU plugins are not built into the core.
    assert ember.version.__version__ == ember.__version__
    assert (ember.version.cuda, ember.version.hip, ember.version.rocm, ember.version.xpu) == (None,) * 4
    assert ember.version.debug is False
