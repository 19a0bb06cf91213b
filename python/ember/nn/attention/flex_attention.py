"""torch.nn.attention.flex_attention, run eagerly: attention whose scores a
`score_mod(score, b, h, q_idx, kv_idx)` rewrites and a
`mask_mod(b, h, q_idx, kv_idx)` (through a BlockMask) masks.

PyTorch's eager path vmaps the mods over the four indices; Ember calls
them once with the indices as broadcasting tensors ([B,1,1,1], [1,H,1,1],
[1,1,L,1], [1,1,1,S]), which gives the same values for the mods flex
attention accepts (tensor expressions without Python branches on values,
indexing captured tensors with the indices). The scores are materialized,
as in PyTorch's eager path; gradients flow through the ops."""

import math

from ... import _C
from ..._factories import arange, zeros

__all__ = ["BlockMask", "flex_attention", "create_block_mask", "create_mask", "and_masks", "or_masks", "noop_mask"]


def noop_mask(b, h, q_idx, kv_idx):
    """Masks nothing."""
    return q_idx.new_ones((), dtype=_C.bool)


def and_masks(*mask_mods):
    if not all(callable(mod) for mod in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def combined(b, h, q_idx, kv_idx):
        result = noop_mask(b, h, q_idx, kv_idx)
        for mod in mask_mods:
            result = result & mod(b, h, q_idx, kv_idx)
        return result

    return combined


def or_masks(*mask_mods):
    if not all(callable(mod) for mod in mask_mods):
        raise RuntimeError(f"All inputs should be callable mask_mods: {mask_mods}")

    def combined(b, h, q_idx, kv_idx):
        result = ~noop_mask(b, h, q_idx, kv_idx)
        for mod in mask_mods:
            result = result | mod(b, h, q_idx, kv_idx)
        return result

    return combined


def _indices(batch, heads, q_len, kv_len, device):
    """The four index tensors, shaped to broadcast against [B, H, L, S] scores."""
    return (arange(batch, device=device).reshape(-1, 1, 1, 1), arange(heads, device=device).reshape(1, -1, 1, 1),
            arange(q_len, device=device).reshape(1, 1, -1, 1), arange(kv_len, device=device).reshape(1, 1, 1, -1))


def create_mask(mod_fn, B, H, Q_LEN, KV_LEN, device=None):  # noqa: N803  (PyTorch's names)
    """The dense [B, H, Q_LEN, KV_LEN] boolean mask of a mask_mod (B or H None: 1)."""
    shape = (B or 1, H or 1, Q_LEN, KV_LEN)
    mask = mod_fn(*_indices(*shape, device or "cpu"))
    return (zeros(shape, dtype=_C.bool, device=device or "cpu") | mask).to(_C.bool)


class BlockMask:
    """A mask_mod with the sequence lengths it covers; `to_dense()` gives
    which BLOCK_SIZE blocks hold any unmasked position, `sparsity()` the
    percentage of blocks fully masked."""

    def __init__(self, mask_mod, batch, heads, q_len, kv_len, block_size, device):
        self.mask_mod = mask_mod
        self.seq_lengths = (q_len, kv_len)
        self.BLOCK_SIZE = block_size
        self._batch, self._heads, self._device = batch, heads, device

    @property
    def shape(self):
        return (self._batch or 1, self._heads or 1, *self.seq_lengths)

    def _dense_mask(self):
        return create_mask(self.mask_mod, self._batch, self._heads, *self.seq_lengths, device=self._device)

    def to_dense(self):
        q_block, kv_block = self.BLOCK_SIZE
        mask = self._dense_mask()
        q_blocks, kv_blocks = -(-self.seq_lengths[0] // q_block), -(-self.seq_lengths[1] // kv_block)
        padded = zeros((*mask.shape[:2], q_blocks * q_block, kv_blocks * kv_block), dtype=_C.bool,
                       device=mask.device)
        padded[..., :mask.shape[2], :mask.shape[3]] = mask
        blocks = padded.reshape(*mask.shape[:2], q_blocks, q_block, kv_blocks, kv_block)
        return blocks.any(-1).any(-2).to(_C.int32)

    def sparsity(self):
        dense = self.to_dense()
        return 100.0 * (1 - dense.sum().item() / dense.numel())

    def __repr__(self):
        return f"BlockMask(shape={self.shape}, BLOCK_SIZE={self.BLOCK_SIZE}, sparsity={self.sparsity():.2f}%)"


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device=None, BLOCK_SIZE=128, _compile=False,  # noqa: N803
                      separate_full_blocks=True, compute_dq_write_order=False, dq_kv_order=True):
    block = (BLOCK_SIZE, BLOCK_SIZE) if isinstance(BLOCK_SIZE, int) else tuple(BLOCK_SIZE)
    return BlockMask(mask_mod, B, H, Q_LEN, KV_LEN, block, device or "cpu")


def _check(query, key, value, enable_gqa, block_mask):
    if query.dim() != 4 or key.dim() != 4 or value.dim() != 4:
        raise ValueError(f"flex_attention: query, key and value must be 4-d [B, H, L, E], got shapes "
                         f"{list(query.shape)}, {list(key.shape)} and {list(value.shape)}")
    if query.shape[-1] != key.shape[-1] or key.shape[:3] != value.shape[:3]:
        raise ValueError(f"flex_attention: query {list(query.shape)}, key {list(key.shape)} and value "
                         f"{list(value.shape)} do not fit together (query and key share E; key and value B, H, S)")
    heads, kv_heads = query.shape[1], key.shape[1]
    if heads != kv_heads and not enable_gqa:
        raise ValueError(f"Expect query and key/value to have the same number of heads but got Hq={heads} and "
                         f"Hkv={kv_heads}. Try setting enable_gqa=True for GQA.")
    if heads % kv_heads:
        raise ValueError(f"Expect number of query heads to be a multiple of kv heads for GQA but got Hq={heads} and "
                         f"Hkv={kv_heads}.")
    if block_mask is not None and tuple(block_mask.seq_lengths) != (query.shape[2], key.shape[2]):
        raise ValueError(f"block_mask was created for block_mask.shape={block_mask.shape} but got "
                         f"q_len={query.shape[2]} and kv_len={key.shape[2]}.")


def flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None, enable_gqa=False,
                   return_lse=False, kernel_options=None, *, return_aux=None):
    """softmax(mask(score_mod(Q K^T * scale))) V, and with return_lse the
    rows' log-sum-exp (natural log). Fully masked rows give zeros and a
    log-sum-exp of -inf, as in PyTorch."""
    _check(query, key, value, enable_gqa, block_mask)
    group = query.shape[1] // key.shape[1]
    if group > 1:
        key, value = key.repeat_interleave(group, 1), value.repeat_interleave(group, 1)
    working = _C.float64 if query.dtype == _C.float64 else _C.float32
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = (query.to(working) @ key.to(working).transpose(-2, -1)) * scale
    indices = _indices(*scores.shape, scores.device)
    if score_mod is not None:
        scores = score_mod(scores, *indices)
    if block_mask is not None:
        kept = block_mask.mask_mod(*indices)
        scores = _C.where(kept, scores, float("-inf"))
    masked_rows = (scores == float("-inf")).all(-1, keepdim=True)
    # A fully masked row would make softmax NaN and its gradient too: it is softmaxed as zeros, then zeroed.
    safe = _C.where(masked_rows, 0.0, scores)
    weights = _C.where(masked_rows, 0.0, safe.softmax(-1))
    out = weights.to(query.dtype) @ value.to(query.dtype)
    if not return_lse:
        return out
    lse = _C.where(masked_rows.squeeze(-1), float("-inf"), safe.logsumexp(-1))
    return out, lse
