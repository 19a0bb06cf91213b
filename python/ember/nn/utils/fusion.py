"""torch.nn.utils.fusion: a convolution or linear layer followed by a batch
norm in eval mode, folded into one layer with the norm's statistics and
affine parameters in its weight and bias (for inference)."""

import copy

from ... import _factories
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b, transpose=False):
    """(weight, bias) of the convolution that computes bn(conv(x)) with bn's running statistics."""
    dtype = conv_w.dtype
    if conv_b is None:
        conv_b = _factories.zeros_like(bn_rm)
    if bn_w is None:
        bn_w = _factories.ones_like(bn_rm)
    if bn_b is None:
        bn_b = _factories.zeros_like(bn_rm)
    inverse_std = (bn_rv + bn_eps).rsqrt()
    shape = [1] * conv_w.dim()
    shape[1 if transpose else 0] = -1
    weight = (conv_w * (bn_w * inverse_std).reshape(shape)).to(dtype)
    bias = ((conv_b - bn_rm) * inverse_std * bn_w + bn_b).to(conv_b.dtype)
    return Parameter(weight, conv_w.requires_grad), Parameter(bias, conv_b.requires_grad)


def fuse_conv_bn_eval(conv, bn, transpose=False):
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def fuse_linear_bn_weights(linear_w, linear_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    """(weight, bias) of the linear layer that computes bn(linear(x)) with bn's running statistics."""
    if linear_b is None:
        linear_b = _factories.zeros_like(bn_rm)
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    weight = linear_w * scale.unsqueeze(-1)
    bias = (linear_b - bn_rm) * scale + bn_b
    return Parameter(weight, linear_w.requires_grad), Parameter(bias, linear_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features must equal bn.num_features or bn.num_features must be "
                             "equal to 1")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused
