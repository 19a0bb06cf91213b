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
        return ", ".join(f"{key}={value!r}" for key, value in self._arguments.items())


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


class CELU(_Elementwise):
    _function = staticmethod(F.celu)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(alpha=alpha, inplace=inplace)


class SELU(_Elementwise):
    _function = staticmethod(F.selu)

    def __init__(self, inplace=False):
        super().__init__(inplace=inplace)


class Mish(_Elementwise):
    _function = staticmethod(F.mish)

    def __init__(self, inplace=False):
        super().__init__(inplace=inplace)


class Hardswish(_Elementwise):
    _function = staticmethod(F.hardswish)

    def __init__(self, inplace=False):
        super().__init__(inplace=inplace)


class Hardsigmoid(_Elementwise):
    _function = staticmethod(F.hardsigmoid)

    def __init__(self, inplace=False):
        super().__init__(inplace=inplace)


class Softsign(_Elementwise):
    _function = staticmethod(F.softsign)


class Tanhshrink(_Elementwise):
    _function = staticmethod(F.tanhshrink)


class LogSigmoid(_Elementwise):
    _function = staticmethod(F.logsigmoid)


class Softshrink(_Elementwise):
    _function = staticmethod(F.softshrink)

    def __init__(self, lambd=0.5):
        super().__init__(lambd=lambd)


class Hardshrink(_Elementwise):
    _function = staticmethod(F.hardshrink)

    def __init__(self, lambd=0.5):
        super().__init__(lambd=lambd)


class GLU(_Elementwise):
    _function = staticmethod(F.glu)

    def __init__(self, dim=-1):
        super().__init__(dim=dim)


class Threshold(_Elementwise):
    _function = staticmethod(F.threshold)

    def __init__(self, threshold, value, inplace=False):
        super().__init__(threshold=threshold, value=value, inplace=inplace)


class Softmin(_Elementwise):
    _function = staticmethod(F.softmin)

    def __init__(self, dim=None):
        super().__init__(dim=dim)


class Softmax2d(Module):
    """Softmax over the channels of a (C, H, W) or (N, C, H, W) input."""

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected a 3D or 4D input, got {input.dim()}D")
        return F.softmax(input, -3)


class PReLU(Module):
    """max(0, x) + weight * min(0, x), one learnt slope or one per channel."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = Parameter(_factories.full((num_parameters,), init, device=device, dtype=dtype))

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Leaky ReLU with a random slope in [lower, upper] per element while
    training, their mean in evaluation."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")


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
