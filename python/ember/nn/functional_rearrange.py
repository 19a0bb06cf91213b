"""Rearranging channels and space: pixel_shuffle, pixel_unshuffle and
channel_shuffle, as views and one copy."""

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"]


def _check_batched(name, input, least=3):
    if input.dim() < least:
        raise RuntimeError(f"{name} expects input to have at least {least} dimensions, but got input with "
                           f"{input.dim()} dimension(s)")


def pixel_shuffle(input, upscale_factor):
    _check_batched("pixel_shuffle", input)
    r = upscale_factor
    *batch, c, h, w = input.shape
    if r <= 0 or c % (r * r) != 0:
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension ({c}) to be divisible by the "
                           f"square of upscale_factor ({r}), but input.size(-3)={c} is not divisible by {r * r}")
    out_c = c // (r * r)
    x = input.reshape(list(batch) + [out_c, r, r, h, w])
    n = len(batch)
    x = x.permute(list(range(n)) + [n, n + 3, n + 1, n + 4, n + 2])
    return x.reshape(list(batch) + [out_c, h * r, w * r])


def pixel_unshuffle(input, downscale_factor):
    _check_batched("pixel_unshuffle", input)
    r = downscale_factor
    *batch, c, h, w = input.shape
    if r <= 0 or h % r != 0 or w % r != 0:
        raise RuntimeError(f"pixel_unshuffle expects height ({h}) and width ({w}) to be divisible by "
                           f"downscale_factor ({r})")
    n = len(batch)
    x = input.reshape(list(batch) + [c, h // r, r, w // r, r])
    x = x.permute(list(range(n)) + [n, n + 2, n + 4, n + 1, n + 3])
    return x.reshape(list(batch) + [c * r * r, h // r, w // r])


def channel_shuffle(input, groups):
    _check_batched("channel_shuffle", input)
    c = input.shape[1]
    if groups <= 0 or c % groups != 0:
        raise RuntimeError(f"channel_shuffle: number of channels ({c}) must be divisible by groups ({groups})")
    rest = list(input.shape[2:])
    x = input.reshape([input.shape[0], groups, c // groups] + rest)
    return x.transpose(1, 2).reshape(list(input.shape))


native_channel_shuffle = channel_shuffle
