"""F.scaled_dot_product_attention and nn.MultiheadAttention against PyTorch
from the same inputs and weights: values, gradients and errors."""

import numpy
import pytest

import ember
import ember.nn.functional as F
from helpers import assert_close


def to_ember(t, requires_grad=False):
    out = ember.tensor(t.detach().numpy())
    return out.requires_grad_() if requires_grad else out


def copy_state(ember_module, torch_module):
    ember_module.load_state_dict({k: to_ember(v) for k, v in torch_module.state_dict().items()})


def random_mask(torch, kind, shape):
    if kind == "bool":
        mask = torch.rand(*shape) > 0.3
        mask[..., 0] = True  # every query sees a key
        return mask
    return torch.randn(*shape) if kind == "float" else None


# float32 runs the CPU plugin's blocked kernel (blocks of 64 queries by 256
# keys: the sizes cross block edges); float64 the decomposition.
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape, mask_kind, mask_shape, causal, scale", [
    ((2, 3, 70, 300, 16, 8), None, None, False, None),
    ((1, 2, 130, 130, 32, 32), None, None, True, None),
    ((1, 2, 20, 70, 8, 8), None, None, True, 0.3),
    ((1, 2, 100, 600, 16, 8), None, None, True, None),  # key blocks no query sees
    ((1, 2, 300, 70, 8, 8), None, None, True, None),
    ((2, 2, 65, 260, 8, 8), "bool", (2, 1, 65, 260), False, None),
    ((2, 2, 33, 20, 8, 4), "float", (33, 20), False, 0.5),
    ((2, 2, 9, 5, 4, 4), "float", (2, 2, 9, 5), False, None),
    ((2, 2, 9, 5, 4, 4), "bool", (2, 1, 1, 5), False, None),
])
def test_sdpa_matches_pytorch(torch, dtype, shape, mask_kind, mask_shape, causal, scale):
    torch.manual_seed(0)
    n, h, length, keys, dim, value_dim = shape
    tdtype = getattr(torch, dtype)
    q = torch.randn(n, h, length, dim, dtype=tdtype, requires_grad=True)
    k = torch.randn(n, h, keys, dim, dtype=tdtype, requires_grad=True)
    v = torch.randn(n, h, keys, value_dim, dtype=tdtype, requires_grad=True)
    mask = random_mask(torch, mask_kind, mask_shape) if mask_shape else None
    if mask is not None and mask.is_floating_point():
        mask = mask.to(tdtype)
    expected = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal,
                                                                scale=scale)
    grad = torch.randn_like(expected)
    expected.backward(grad)
    eq, ek, ev = (to_ember(t, True) for t in (q, k, v))
    out = F.scaled_dot_product_attention(eq, ek, ev, attn_mask=None if mask is None else to_ember(mask),
                                         is_causal=causal, scale=scale)
    out.backward(to_ember(grad))
    tol = {"rtol": 1e-4, "atol": 1e-5} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-12}
    assert_close(out, expected, **tol)
    for mine, theirs in ((eq, q), (ek, k), (ev, v)):
        assert_close(mine.grad, theirs.grad, **tol)


# The float32 kernel reads the right operand of each product in panels of 32
# columns: in place when rows are contiguous and whole panels wide (head dim
# 64, here also with rows H * E apart, as heads split from [N, L, H, E]
# give), else packed (head dims 40 and 80 end inside a panel).
@pytest.mark.parametrize("dim, value_dim", [(64, 64), (40, 80), (80, 40)])
@pytest.mark.parametrize("causal", [False, True])
def test_sdpa_heads_split_from_the_sequence_layout(torch, dim, value_dim, causal):
    torch.manual_seed(2)
    n, h, length, keys = 2, 3, 37, 300
    q = torch.randn(n, length, h, dim).transpose(1, 2).requires_grad_()
    k = torch.randn(n, keys, h, dim).transpose(1, 2).requires_grad_()
    v = torch.randn(n, keys, h, value_dim).transpose(1, 2).requires_grad_()
    mask = None if causal else torch.randn(length, keys)
    expected = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
    grad = torch.randn_like(expected)
    expected.backward(grad)
    eq, ek, ev = (to_ember(t.detach().transpose(1, 2).contiguous()).transpose(1, 2).requires_grad_()
                  for t in (q, k, v))
    assert eq.stride()[2] == h * dim
    out = F.scaled_dot_product_attention(eq, ek, ev, attn_mask=None if mask is None else to_ember(mask),
                                         is_causal=causal)
    out.backward(to_ember(grad))
    assert_close(out, expected, rtol=1e-4, atol=1e-5)
    for mine, theirs in ((eq, q), (ek, k), (ev, v)):
        assert_close(mine.grad, theirs.grad, rtol=1e-4, atol=1e-5)


def test_sdpa_batch_shapes_and_gqa(torch):
    torch.manual_seed(1)
    cases = [
        ((5, 4), (3, 4), (3, 6), {}),                          # unbatched
        ((2, 5, 4), (2, 3, 4), (2, 3, 6), {}),                 # 3-d
        ((2, 3, 2, 5, 4), (2, 3, 2, 7, 4), (2, 3, 2, 7, 4), {}),  # 5-d, folded batch dims
        ((2, 4, 5, 4), (1, 4, 6, 4), (1, 4, 6, 4), {}),        # broadcast batch
        ((1, 4, 5, 4), (1, 2, 6, 4), (1, 2, 6, 4), {"enable_gqa": True}),
    ]
    for qs, ks, vs, options in cases:
        q, k, v = (torch.randn(*s, requires_grad=True) for s in (qs, ks, vs))
        expected = torch.nn.functional.scaled_dot_product_attention(q, k, v, **options)
        expected.sum().backward()
        eq, ek, ev = (to_ember(t, True) for t in (q, k, v))
        out = F.scaled_dot_product_attention(eq, ek, ev, **options)
        out.sum().backward()
        assert_close(out, expected, rtol=1e-4, atol=1e-5)
        for mine, theirs in ((eq, q), (ek, k), (ev, v)):
            assert_close(mine.grad, theirs.grad, rtol=1e-4, atol=1e-5)


def test_sdpa_query_that_sees_no_key_gives_zeros(torch):
    q, k, v = torch.randn(1, 1, 3, 4, requires_grad=True), torch.randn(1, 1, 2, 4), torch.randn(1, 1, 2, 4)
    mask = torch.tensor([[True, True], [False, False], [True, False]])
    expected = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    expected.sum().backward()
    eq = to_ember(q, True)
    out = F.scaled_dot_product_attention(eq, to_ember(k), to_ember(v), attn_mask=to_ember(mask))
    out.sum().backward()
    assert_close(out, expected, rtol=1e-5, atol=1e-6)
    assert_close(eq.grad, q.grad, rtol=1e-5, atol=1e-6)
    assert not numpy.isnan(out.detach().numpy()).any()


def test_sdpa_mask_gradient_and_second_order(torch):
    q, k, v = (torch.randn(2, 4, 3, dtype=torch.float32, requires_grad=True) for _ in range(3))
    mask = torch.randn(4, 4, requires_grad=True)
    expected = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    (gq,) = torch.autograd.grad(expected.sum(), q, create_graph=True)
    (gmask,) = torch.autograd.grad(gq.square().sum(), mask)
    eq, ek, ev, emask = (to_ember(t, True) for t in (q, k, v, mask))
    out = F.scaled_dot_product_attention(eq, ek, ev, attn_mask=emask)
    (egq,) = ember.autograd.grad(out.sum(), eq, create_graph=True)
    (egmask,) = ember.autograd.grad((egq * egq).sum(), emask)
    assert_close(egq, gq, rtol=1e-4, atol=1e-5)
    assert_close(egmask, gmask, rtol=1e-4, atol=1e-5)


def test_sdpa_dropout_keeps_expected_value():
    ember.manual_seed(0)
    q, k, v = ember.randn(1, 1, 4, 8), ember.randn(1, 1, 16, 8), ember.randn(1, 1, 16, 8)
    plain = F.scaled_dot_product_attention(q, k, v)
    dropped = ember.stack([F.scaled_dot_product_attention(q, k, v, dropout_p=0.5) for _ in range(400)]).mean(0)
    assert not ember.equal(F.scaled_dot_product_attention(q, k, v, dropout_p=0.5), plain)
    assert_close(dropped, plain, rtol=0, atol=0.15)


def test_sdpa_saved_output_modified_in_place_is_an_error():
    q, k, v = (ember.randn(1, 1, 4, 8, requires_grad=True) for _ in range(3))
    out = F.scaled_dot_product_attention(q, k, v)
    out.detach().add_(1)  # the kernel's output, saved for its backward
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


@pytest.mark.parametrize("args, kwargs, match", [
    (((2, 5, 4), (2, 3, 4), (2, 3, 6)), {"is_causal": True, "attn_mask": "ones"}, "attn_mask should not be set"),
    (((2, 5, 4), (2, 3, 5), (2, 3, 6)), {}, "same embedding size"),
    (((2, 5, 4), (2, 3, 4), (2, 4, 6)), {}, "same sequence length"),
    (((1, 4, 5, 4), (1, 2, 3, 4), (1, 2, 3, 4)), {}, "cannot be broadcast"),
    (((1, 4, 5, 4), (1, 3, 3, 4), (1, 3, 3, 4)), {"enable_gqa": True}, "multiple of the key/value heads"),
    (((2, 5, 4), (2, 3, 4), (2, 3, 6)), {"attn_mask": "wrong shape"}, "does not broadcast"),
])
def test_sdpa_errors(torch, args, kwargs, match):
    tensors = [torch.randn(*s) for s in args]
    if kwargs.get("attn_mask") == "ones":
        kwargs = dict(kwargs, attn_mask=torch.ones(5, 3))
    elif kwargs.get("attn_mask") == "wrong shape":
        kwargs = dict(kwargs, attn_mask=torch.ones(4, 3))
    with pytest.raises(RuntimeError):
        torch.nn.functional.scaled_dot_product_attention(*tensors, **kwargs)
    kwargs = {key: to_ember(value) if hasattr(value, "detach") else value for key, value in kwargs.items()}
    with pytest.raises(RuntimeError, match=match):
        F.scaled_dot_product_attention(*[to_ember(t) for t in tensors], **kwargs)


def test_sdpa_dtype_errors():
    q = ember.randn(2, 3, 4)
    with pytest.raises(RuntimeError, match="same dtype"):
        F.scaled_dot_product_attention(q, q.double(), q)
    with pytest.raises(RuntimeError, match="attn_mask dtype"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=ember.ones(3, 3, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="floating point"):
        F.scaled_dot_product_attention(q.long(), q.long(), q.long())
    with pytest.raises(ValueError, match="dropout_p"):
        F.scaled_dot_product_attention(q, q, q, dropout_p=1.5)


MHA_OPTIONS = [{}, {"batch_first": True}, {"kdim": 6, "vdim": 5}, {"add_bias_kv": True, "add_zero_attn": True},
               {"bias": False}]


@pytest.mark.parametrize("options", MHA_OPTIONS)
@pytest.mark.parametrize("need_weights, average", [(True, True), (True, False), (False, True)])
def test_multihead_attention_matches_pytorch(torch, options, need_weights, average):
    torch.manual_seed(2)
    theirs = torch.nn.MultiheadAttention(8, 2, **options)
    mine = ember.nn.MultiheadAttention(8, 2, **options)
    assert sorted(mine.state_dict()) == sorted(theirs.state_dict())
    copy_state(mine, theirs)
    length, source, batch = 5, 7, 3
    first = (lambda a, b: (b, a)) if options.get("batch_first") else (lambda a, b: (a, b))
    q = torch.randn(*first(length, batch), 8, requires_grad=True)
    k = torch.randn(*first(source, batch), options.get("kdim", 8), requires_grad=True)
    v = torch.randn(*first(source, batch), options.get("vdim", 8), requires_grad=True)
    padding = torch.rand(batch, source) > 0.7
    padding[:, 0] = False
    attn_mask = torch.randn(length, source)
    out, weights = theirs(q, k, v, key_padding_mask=padding, attn_mask=attn_mask, need_weights=need_weights,
                          average_attn_weights=average)
    out.sum().backward()
    eq, ek, ev = (to_ember(t, True) for t in (q, k, v))
    my_out, my_weights = mine(eq, ek, ev, key_padding_mask=to_ember(padding), attn_mask=to_ember(attn_mask),
                              need_weights=need_weights, average_attn_weights=average)
    my_out.sum().backward()
    assert_close(my_out, out, rtol=1e-4, atol=1e-5)
    if need_weights:
        assert_close(my_weights, weights, rtol=1e-4, atol=1e-6)
    else:
        assert my_weights is None
    for mine_t, theirs_t in ((eq, q), (ek, k), (ev, v)):
        assert_close(mine_t.grad, theirs_t.grad, rtol=1e-4, atol=1e-5)
    for name, p in theirs.named_parameters():
        assert_close(dict(mine.named_parameters())[name].grad, p.grad, rtol=1e-4, atol=1e-5)


def test_multihead_attention_unbatched_causal_and_bool_masks(torch):
    torch.manual_seed(3)
    theirs = torch.nn.MultiheadAttention(8, 4)
    mine = ember.nn.MultiheadAttention(8, 4)
    copy_state(mine, theirs)
    x = torch.randn(6, 8)
    causal = torch.nn.Transformer.generate_square_subsequent_mask(6)
    expected, _ = theirs(x, x, x, attn_mask=causal, is_causal=True, need_weights=False)
    ex = to_ember(x)
    out, _ = mine(ex, ex, ex, attn_mask=ember.nn.Transformer.generate_square_subsequent_mask(6), is_causal=True,
                  need_weights=False)
    assert_close(out, expected, rtol=1e-4, atol=1e-5)
    blocked = torch.triu(torch.ones(6, 6, dtype=torch.bool), 1)
    expected, weights = theirs(x, x, x, attn_mask=blocked)
    out, my_weights = mine(ex, ex, ex, attn_mask=to_ember(blocked))
    assert_close(out, expected, rtol=1e-4, atol=1e-5)
    assert_close(my_weights, weights, rtol=1e-4, atol=1e-6)


def test_multihead_attention_errors():
    with pytest.raises(AssertionError, match="divisible by num_heads"):
        ember.nn.MultiheadAttention(10, 3)
    mha = ember.nn.MultiheadAttention(8, 2)
    x = ember.randn(4, 2, 8)
    with pytest.raises(RuntimeError, match="Need attn_mask"):
        mha(x, x, x, is_causal=True)
    with pytest.raises(RuntimeError, match="2D attn_mask"):
        mha(x, x, x, attn_mask=ember.zeros(3, 4))
    with pytest.raises(AssertionError, match="embedding dimension of 8"):
        mha(ember.randn(4, 2, 6), x, x)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shapes", [
    ((1, 2, 3, 4), (1, 2, 0, 4), (1, 2, 0, 5)),  # no keys: zeros
    ((1, 2, 0, 4), (1, 2, 3, 4), (1, 2, 3, 5)),  # no queries
    ((1, 2, 3, 0), (1, 2, 4, 0), (1, 2, 4, 5)),  # empty embedding
    ((1, 2, 3, 4), (1, 2, 4, 4), (1, 2, 4, 0)),  # empty values
])
def test_sdpa_empty_dims_match_pytorch(torch, dtype, shapes):
    tensors = [torch.randn(*s, dtype=getattr(torch, dtype), requires_grad=True) for s in shapes]
    expected = torch.nn.functional.scaled_dot_product_attention(*tensors)
    expected.sum().backward()
    mine = [to_ember(t, True) for t in tensors]
    out = F.scaled_dot_product_attention(*mine)
    out.sum().backward()
    assert_close(out, expected)
    for a, b in zip(mine, tensors):
        assert_close(a.grad, b.grad)


def test_sdpa_keys_broadcast_along_the_sequence(torch):
    # An expanded key has rows of stride 0, which the kernel's products cannot read in place.
    q, row, v = torch.randn(1, 2, 5, 4), torch.randn(1, 2, 1, 4), torch.randn(1, 2, 6, 3)
    k = row.expand(1, 2, 6, 4)
    expected = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    assert_close(F.scaled_dot_product_attention(to_ember(q), to_ember(row).expand(1, 2, 6, 4), to_ember(v)),
                 expected, rtol=1e-5, atol=1e-6)
