"""One direction of one LSTM layer over a padded sequence, as one autograd
node with a hand-written backward, where the backend has no lstm_layer
kernel (and in ember.export's programs, whose graph check takes no
lstm_layer).

Recorded op by op, the recurrence's backward pays one small product per
step for weight_hh's gradient and a dozen pointwise ops per step for the
gates. Here the forward keeps each step's gate activations, the backward
turns them into per-step factors with a few ops over the whole sequence
before it walks back (two pointwise ops, a cat and one product per step),
and weight_hh's gradient is one product over all steps at the end, as
oneDNN's and cuDNN's LSTM backward passes do.

Gates are PyTorch's order (input, forget, cell, output); x_proj already
holds the input projection and both biases."""

from ... import _C
from ...autograd.function import Function


def _recurrence(x_proj, h, c, w_hh, reverse):
    """The forward recurrence, with whatever recording the caller's grad
    mode implies. Returns the per-step outputs in time order, the per-step
    values the backward needs, and the final state."""
    hidden = c.shape[-1]
    steps = x_proj.shape[0]
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    w_t = w_hh.t()
    outputs, sigmoids, cells, c_prevs, tanh_cs, h_prevs = ([None] * steps for _ in range(6))
    for t in order:
        gates = x_proj[t] + _C.mm(h, w_t)
        s = gates.sigmoid()
        g = gates[:, 2 * hidden:3 * hidden].tanh()
        c_prevs[t], h_prevs[t] = c, h
        c = s[:, hidden:2 * hidden] * c + s[:, :hidden] * g
        tanh_c = c.tanh()
        h = s[:, 3 * hidden:] * tanh_c
        outputs[t], sigmoids[t], cells[t], tanh_cs[t] = h, s, g, tanh_c
    return outputs, (sigmoids, cells, c_prevs, tanh_cs, h_prevs), h, c


class LSTMLayer(Function):
    """apply(x_proj [T, B, 4H], h0 [B, H], c0 [B, H], w_hh [4H, H], reverse)
    -> (output [T, B, H], h_T, c_T)."""

    @staticmethod
    def forward(ctx, x_proj, h0, c0, w_hh, reverse):
        outputs, saved, h, c = _recurrence(x_proj, h0, c0, w_hh, reverse)
        ctx.reverse = reverse
        ctx.save_for_backward(x_proj, h0, c0, w_hh, *(_C.stack(values, 0) for values in saved))
        return _C.stack(outputs, 0), h, c

    @staticmethod
    def backward(ctx, grad_out, grad_h, grad_c):
        x_proj, h0, c0, w_hh, *saved = ctx.saved_tensors
        if _C.is_grad_enabled():
            # create_graph: the saved values are recomputed, recorded, so
            # that the gradient below can be differentiated again.
            saved = [_C.stack(values, 0) for values in _recurrence(x_proj, h0, c0, w_hh, ctx.reverse)[1]]
        sigmoids, cells, c_prevs, tanh_cs, h_prevs = saved
        hidden = h0.shape[-1]
        steps = x_proj.shape[0]
        slope = sigmoids - sigmoids * sigmoids
        i, f, o = sigmoids[..., :hidden], sigmoids[..., hidden:2 * hidden], sigmoids[..., 3 * hidden:]
        # Per step, the gates' gradient is [dc, dc, dc, dh] times these
        # factors: each gate's derivative times what it multiplied.
        factors = _C.cat([cells * slope[..., :hidden], c_prevs * slope[..., hidden:2 * hidden],
                          i * (1 - cells * cells), tanh_cs * slope[..., 3 * hidden:]], -1)
        through_tanh = o * (1 - tanh_cs * tanh_cs)
        forget = f.contiguous()
        dh = grad_h if grad_h is not None else h0.new_zeros(h0.shape)
        dc = grad_c if grad_c is not None else c0.new_zeros(c0.shape)
        grad_gates = [None] * steps
        for t in (range(steps) if ctx.reverse else range(steps - 1, -1, -1)):
            if grad_out is not None:
                dh = dh + grad_out[t]
            dc = dc + dh * through_tanh[t]
            gates = _C.cat([dc, dc, dc, dh], 1) * factors[t]
            grad_gates[t] = gates
            dc = dc * forget[t]
            dh = _C.mm(gates, w_hh)
        grad_x_proj = _C.stack(grad_gates, 0)
        grad_w_hh = None
        if ctx.needs_input_grad[3]:
            grad_w_hh = _C.mm(grad_x_proj.reshape(-1, 4 * hidden).t(), h_prevs.reshape(-1, hidden))
        return grad_x_proj, dh, dc, grad_w_hh, None
