"""ember.jit: model code written for TorchScript runs as Python, with the
values PyTorch's scripted and traced forms give."""

import pytest

import ember

from helpers import assert_close


class Gate(ember.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale: ember.jit.Final[float] = 2.0

    @ember.jit.unused
    def debug(self):
        raise RuntimeError("never called")

    @ember.jit.ignore(drop=True)
    def describe(self):
        return "gate"

    def forward(self, x):
        if ember.jit.is_scripting():
            raise AssertionError("is_scripting() must be false")
        kept = ember.jit.annotate(list, [])
        kept.append(x * self.scale)
        return ember.jit.wait(ember.jit.fork(ember.sigmoid, kept[0]))


@ember.jit.script
def fused_gelu(x):
    return x * 0.5 * (1.0 + ember.erf(x / 1.41421))


def test_scripted_and_traced_code_gives_pythons_values(torch):
    x_data = [[-1.0, 0.5], [2.0, -0.25]]
    x = ember.tensor(x_data)
    module = Gate()
    assert ember.jit.script(module) is module
    traced = ember.jit.trace(module, x)
    assert traced is module and module.describe() == "gate"
    assert traced(x).tolist() == ember.sigmoid(x * 2.0).tolist()
    expected = torch.tensor(x_data) * 0.5 * (1.0 + torch.erf(torch.tensor(x_data) / 1.41421))
    assert_close(fused_gelu(x), expected)
    assert not isinstance(module, ember.jit.ScriptModule) and not ember.jit.is_tracing()


def test_archives_name_what_to_use_instead():
    with pytest.raises(NotImplementedError, match="ember.save"):
        ember.jit.save(Gate(), "gate.pt")
    with pytest.raises(NotImplementedError, match="ember.export.save"):
        ember.jit.load("gate.pt")
    with pytest.raises(RuntimeError, match="example_inputs"):
        ember.jit.trace(fused_gelu)
