"""nn.Transformer and its encoder/decoder layers against PyTorch from the
same weights (dropout 0, so both compute the same function)."""

import pytest

import ember
from helpers import assert_close


def to_ember(t, requires_grad=False):
    out = ember.tensor(t.detach().numpy())
    return out.requires_grad_() if requires_grad else out


def copy_state(ember_module, torch_module):
    ember_module.load_state_dict({k: to_ember(v) for k, v in torch_module.state_dict().items()})


def check_parameter_grads(mine, theirs):
    named = dict(mine.named_parameters())
    assert sorted(named) == sorted(name for name, _ in theirs.named_parameters())
    for name, p in theirs.named_parameters():
        assert_close(named[name].grad, p.grad, rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("options", [
    {},
    {"norm_first": True},
    {"activation": "gelu", "batch_first": True},
    {"activation": "callable", "bias": False},
])
def test_encoder_layer_matches_pytorch(torch, options):
    torch.manual_seed(0)
    theirs_options, mine_options = dict(options), dict(options)
    if options.get("activation") == "callable":
        theirs_options["activation"] = torch.nn.functional.silu
        mine_options["activation"] = ember.nn.functional.silu
    theirs = torch.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, **theirs_options)
    mine = ember.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, **mine_options)
    copy_state(mine, theirs)
    shape = (2, 6, 16) if options.get("batch_first") else (6, 2, 16)
    x = torch.randn(*shape, requires_grad=True)
    padding = torch.zeros(2, 6, dtype=torch.bool)
    padding[1, 4:] = True
    expected = theirs(x, src_key_padding_mask=padding)
    expected.sum().backward()
    ex = to_ember(x, True)
    out = mine(ex, src_key_padding_mask=to_ember(padding))
    out.sum().backward()
    assert_close(out, expected, rtol=1e-4, atol=1e-5)
    assert_close(ex.grad, x.grad, rtol=1e-4, atol=1e-5)
    check_parameter_grads(mine, theirs)


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_matches_pytorch(torch, norm_first):
    torch.manual_seed(1)
    theirs = torch.nn.TransformerDecoderLayer(16, 2, 24, dropout=0.0, norm_first=norm_first)
    mine = ember.nn.TransformerDecoderLayer(16, 2, 24, dropout=0.0, norm_first=norm_first)
    copy_state(mine, theirs)
    tgt, memory = torch.randn(5, 3, 16, requires_grad=True), torch.randn(7, 3, 16, requires_grad=True)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(5)
    expected = theirs(tgt, memory, tgt_mask=mask, tgt_is_causal=True)
    expected.sum().backward()
    et, em = to_ember(tgt, True), to_ember(memory, True)
    out = mine(et, em, tgt_mask=to_ember(mask), tgt_is_causal=True)
    out.sum().backward()
    assert_close(out, expected, rtol=1e-4, atol=1e-5)
    assert_close(et.grad, tgt.grad, rtol=1e-4, atol=1e-5)
    assert_close(em.grad, memory.grad, rtol=1e-4, atol=1e-5)
    check_parameter_grads(mine, theirs)


def test_transformer_matches_pytorch(torch):
    torch.manual_seed(2)
    theirs = torch.nn.Transformer(16, 4, 2, 2, 32, dropout=0.0, batch_first=True)
    mine = ember.nn.Transformer(16, 4, 2, 2, 32, dropout=0.0, batch_first=True)
    assert sorted(mine.state_dict()) == sorted(theirs.state_dict())
    copy_state(mine, theirs)
    src, tgt = torch.randn(2, 6, 16), torch.randn(2, 5, 16)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(5)
    memory_padding = torch.tensor([[False] * 6, [False] * 4 + [True] * 2])
    expected = theirs(src, tgt, tgt_mask=mask, memory_key_padding_mask=memory_padding)
    expected.square().mean().backward()
    out = mine(to_ember(src), to_ember(tgt), tgt_mask=to_ember(mask),
               memory_key_padding_mask=to_ember(memory_padding))
    (out * out).mean().backward()
    assert_close(out, expected, rtol=1e-4, atol=1e-5)
    check_parameter_grads(mine, theirs)


def test_encoder_stack_with_final_norm_and_causal_mask(torch):
    torch.manual_seed(3)
    layer = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    theirs = torch.nn.TransformerEncoder(layer, 3, norm=torch.nn.LayerNorm(8), enable_nested_tensor=False)
    mine = ember.nn.TransformerEncoder(ember.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 3,
                                       norm=ember.nn.LayerNorm(8))
    copy_state(mine, theirs)
    x = torch.randn(5, 2, 8)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(5)
    assert_close(mine(to_ember(x), mask=to_ember(mask)), theirs(x, mask=mask), rtol=1e-4, atol=1e-5)


def test_square_subsequent_mask(torch):
    assert_close(ember.nn.Transformer.generate_square_subsequent_mask(4),
                 torch.nn.Transformer.generate_square_subsequent_mask(4))
    mask = ember.nn.Transformer.generate_square_subsequent_mask(3, dtype=ember.float64)
    assert mask.dtype == ember.float64


def test_transformer_errors():
    model = ember.nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(RuntimeError, match="batch number of src and tgt must be equal"):
        model(ember.randn(4, 2, 8), ember.randn(3, 3, 8))
    with pytest.raises(RuntimeError, match="feature number of src and tgt must be equal to d_model"):
        model(ember.randn(4, 2, 6), ember.randn(3, 2, 6))
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        ember.nn.TransformerEncoderLayer(8, 2, activation="tanh")
