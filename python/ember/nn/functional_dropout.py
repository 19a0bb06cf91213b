"""Dropout over whole channels (dropout1d/2d/3d), and alpha dropout for
SELU networks, as torch.nn.functional gives them."""

__all__ = ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _check_p(name, p):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{name}: dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(input, p, shape):
    return input.detach().new_empty(shape).bernoulli_(1 - p)


def _feature_dropout(name, input, p, training, inplace, spatial):
    _check_p(name, p)
    if input.dim() not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"{name}: expected {spatial + 1}D or {spatial + 2}D input, but got input of size "
                           f"{list(input.shape)}")
    if not training or p == 0:
        return input
    batched = input.dim() == spatial + 2
    lead = list(input.shape[:2]) if batched else list(input.shape[:1])
    mask = _keep_mask(input, p, lead + [1] * spatial)
    scale = 0.0 if p == 1 else 1.0 / (1 - p)
    out = input * mask * scale
    return input.copy_(out) if inplace else out


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout("dropout1d", input, p, training, inplace, 1)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout("dropout2d", input, p, training, inplace, 2)


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout("dropout3d", input, p, training, inplace, 3)


def _alpha(name, input, p, training, inplace, mask_shape):
    _check_p(name, p)
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

