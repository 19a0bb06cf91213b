"""Activation modules: each is its nn.functional counterpart with the
arguments fixed at construction."""

from ... import _factories
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module


class _Elementwise(Module):
    """forward(x) = F.<_function>(x, **self._arguments)."""

    _function = None

    def __init__(self, **arguments):
        super().__init__()
        self._arguments = arguments

    def forward(self, input):
        return type(self)._function(input, **self._arguments)

    def extra_repr(self):
        return ", ".join(f"{key}={value}" for key, value in self._arguments.items())


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class ReLU6(_Elementwise):
    _function = staticmethod(F.relu6)


class LeakyReLU(_Elementwise):
    _function = staticmethod(F.leaky_relu)

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__(negative_slope=negative_slope, inplace=inplace)


class GELU(_Elementwise):
    _function = staticmethod(F.gelu)

    def __init__(self, approximate="none"):
        super().__init__(approximate=approximate)


class SiLU(_Elementwise):
    _function = staticmethod(F.silu)


class ELU(_Elementwise):
    _function = staticmethod(F.elu)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(alpha=alpha, inplace=inplace)


class Softplus(_Elementwise):
    _function = staticmethod(F.softplus)

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__(beta=beta, threshold=threshold)


class Hardtanh(_Elementwise):
    _function = staticmethod(F.hardtanh)

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__(min_val=min_val, max_val=max_val, inplace=inplace)


class Sigmoid(_Elementwise):
    _function = staticmethod(F.sigmoid)


class Tanh(_Elementwise):
    _function = staticmethod(F.tanh)


class Softmax(_Elementwise):
    _function = staticmethod(F.softmax)

    def __init__(self, dim=None):
        super().__init__(dim=-1 if dim is None else dim)


class LogSoftmax(_Elementwise):
    _function = staticmethod(F.log_softmax)

    def __init__(self, dim=None):
        super().__init__(dim=-1 if dim is None else dim)


class MultiheadAttention(Module):
    """PyTorch's nn.MultiheadAttention: the same parameters (in_proj_weight,
    or q/k/v_proj_weight when kdim or vdim differ from embed_dim; in_proj_bias;
    out_proj; bias_k and bias_v), initialisation and forward."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        options = {"device": device, "dtype": dtype}
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_factories.empty(embed_dim, embed_dim, **options))
            self.k_proj_weight = Parameter(_factories.empty(embed_dim, self.kdim, **options))
            self.v_proj_weight = Parameter(_factories.empty(embed_dim, self.vdim, **options))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_factories.empty(3 * embed_dim, embed_dim, **options))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_factories.empty(3 * embed_dim, **options))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **options)
        if add_bias_kv:
            self.bias_k = Parameter(_factories.empty(1, 1, embed_dim, **options))
            self.bias_v = Parameter(_factories.empty(1, 1, embed_dim, **options))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        is_batched = query.dim() == 3
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights, is_causal=is_causal)
        if self.batch_first and is_batched:
            return out.transpose(1, 0), weights
        return out, weights
