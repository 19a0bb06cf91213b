"""Dropout over whole channels (dropout1d/2d/3d), and alpha dropout for
SELU networks, as torch.nn.functional gives them."""

import warnings

__all__ = ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _check_p(p):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(input, p, shape):
    return input.detach().new_empty(shape).bernoulli_(1 - p)


def _feature_dropout(input, p, training, inplace):
    """Zeroes whole (batch, channel) slices: the mask has the input's first
    two sizes and 1 for the others, as PyTorch's feature_dropout."""
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    if not training or p == 0:
        return input
    mask = _keep_mask(input, p, list(input.shape[:2]) + [1] * (input.dim() - 2))
    scale = 0.0 if p == 1 else 1.0 / (1 - p)
    out = input * mask * scale
    return input.copy_(out) if inplace else out


def _unbatched_feature_dropout(input, p, training, inplace):
    """Feature dropout of one sample: its first dim is the channels."""
    out = _feature_dropout(input.unsqueeze(0), p, training, inplace)
    return input if inplace else out.squeeze(0)


def _warn_dims(name, input, expected, spatial):
    warnings.warn(f"{name}: Received a {input.dim()}-D input to {name}, which is deprecated and will result in an "
                  f"error in a future release. To retain the behavior and silence this warning, please use dropout "
                  f"instead. Note that {name} exists to provide channel-wise dropout on inputs with {spatial} "
                  f"spatial dimensions, a channel dimension, and an optional batch dimension (i.e. {expected} "
                  f"inputs).", stacklevel=3)


def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    if input.dim() == 2:
        return _unbatched_feature_dropout(input, p, training, inplace)
    return _feature_dropout(input, p, training, inplace)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """As PyTorch 2.13: a 3-D input is read as (N, C, L), with a warning,
    and other ranks are deprecated but dropped by their first two dims."""
    _check_p(p)
    if input.dim() not in (3, 4):
        _warn_dims("dropout2d", input, "3D or 4D", 2)
    if input.dim() == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a "
                      "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
                      "please switch to using dropout1d instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    if input.dim() not in (4, 5):
        _warn_dims("dropout3d", input, "4D or 5D", 3)
    if input.dim() != 5:
        return _unbatched_feature_dropout(input, p, training, inplace)
    return _feature_dropout(input, p, training, inplace)


def _alpha(name, input, p, training, inplace, mask_shape):
    _check_p(p)
    if not training or p == 0:
        return input
    if p == 1:
        out = input * 0
        return input.copy_(out) if inplace else out
    # Dropped units take SELU's saturation value, and an affine map keeps
    # the mean and variance (Klambauer et al.).
    saturation = -_SELU_ALPHA * _SELU_SCALE
    a = (1 / ((1 - p) * (1 + p * saturation * saturation))) ** 0.5
    b = -a * saturation * p
    keep = _keep_mask(input, p, mask_shape)
    out = (input * keep + saturation * (1 - keep)) * a + b
    return input.copy_(out) if inplace else out


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha("alpha_dropout", input, p, training, inplace, list(input.shape))


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    shape = list(input.shape[:2]) + [1] * max(input.dim() - 2, 0)
    return _alpha("feature_alpha_dropout", input, p, training, inplace, shape)

