"""RNN, LSTM and GRU (and their cells) with PyTorch's parameters, names,
initialisation, options and results.

A layer projects its whole input sequence through weight_ih in one product
up front (with both biases, except GRU's hidden bias, which its reset gate
scales); each step then costs one product with weight_hh and the gates'
pointwise ops. A packed sequence runs each step on the sequences still
going: its batch shrinks step by step (grows, for the reverse direction).
A padded LSTM layer without projections is the catalogue's lstm_layer
where the backend has its kernels (input projection included)."""

import math
import numbers
import warnings

from ... import _C, _factories
from ..._C import _nn
from ...autograd.function import Function
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from ._lstm_layer import LSTMLayer
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# --- one step of each cell: x_part is the step's input projection, h the
# state (a tensor, or (h, c) for LSTM); returns the new state.

def _lstm_step(x_part, state, w_hh, b_hh, w_hr):
    h, c = state
    gates = x_part + _C.mm(h, w_hh.t())
    if b_hh is not None:
        gates = gates + b_hh
    hidden = c.shape[-1]
    in_forget = gates[:, :2 * hidden].sigmoid()
    cell = gates[:, 2 * hidden:3 * hidden].tanh()
    out = gates[:, 3 * hidden:].sigmoid()
    c = in_forget[:, hidden:] * c + in_forget[:, :hidden] * cell
    h = out * c.tanh()
    if w_hr is not None:
        h = _C.mm(h, w_hr.t())
    return h, c


def _gru_step(x_part, h, w_hh, b_hh, w_hr):
    h_part = _C.mm(h, w_hh.t())
    if b_hh is not None:
        h_part = h_part + b_hh
    hidden = h.shape[-1]
    reset_update = (x_part[:, :2 * hidden] + h_part[:, :2 * hidden]).sigmoid()
    new = (x_part[:, 2 * hidden:] + reset_update[:, :hidden] * h_part[:, 2 * hidden:]).tanh()
    update = reset_update[:, hidden:]
    return new + update * (h - new)


def _tanh_step(x_part, h, w_hh, b_hh, w_hr):
    pre = x_part + _C.mm(h, w_hh.t())
    return (pre + b_hh if b_hh is not None else pre).tanh()


def _relu_step(x_part, h, w_hh, b_hh, w_hr):
    pre = x_part + _C.mm(h, w_hh.t())
    return _C.relu(pre + b_hh if b_hh is not None else pre)


_STEPS = {"LSTM": _lstm_step, "GRU": _gru_step, "RNN_TANH": _tanh_step, "RNN_RELU": _relu_step}


class _Steps(Function):
    """x.unbind(0) whose backward stacks the steps' gradients once: the
    gradient of each select on its own would be a zeros tensor of x's whole
    size per step."""

    @staticmethod
    def forward(ctx, x):
        ctx.like = x
        return tuple(x.unbind(0))

    @staticmethod
    def backward(ctx, *grads):
        zeros = None
        parts = []
        for g in grads:
            if g is None:
                zeros = ctx.like[0].new_zeros(ctx.like.shape[1:]) if zeros is None else zeros
                g = zeros
            parts.append(g)
        return _C.stack(parts, 0)


def _rows(state, end, start=0):
    if isinstance(state, tuple):
        return tuple(s[start:end] for s in state)
    return state[start:end]


def _cat_rows(parts):
    if isinstance(parts[0], tuple):
        return tuple(_C.cat(list(p), 0) for p in zip(*parts))
    return _C.cat(parts, 0)


def _run_direction(step, x_proj, state, weights, batch_sizes, reverse):
    """Runs one direction of one layer. x_proj is [T, B, G] (padded input) or
    the packed rows [sum(batch_sizes), G]; returns the outputs in the same
    layout and the final state."""
    w_hh, b_hh, w_hr = weights
    # A trace records the layer's forward and its backward formula too: step
    # by step, the joint graph's recurrence through the autograd of each gate
    # costs a compile ten times as long and a step five times eager's.
    if batch_sizes is None and step is _lstm_step and b_hh is None and w_hr is None:
        out, h, c = LSTMLayer.apply(x_proj, state[0], state[1], w_hh, reverse)
        return out, (h, c)
    if batch_sizes is None:
        steps = range(x_proj.shape[0] - 1, -1, -1) if reverse else range(x_proj.shape[0])
        outputs = [None] * x_proj.shape[0]
        x_steps = _Steps.apply(x_proj) if x_proj.requires_grad else x_proj.unbind(0)
        for t in steps:
            state = step(x_steps[t], state, w_hh, b_hh, w_hr)
            outputs[t] = state[0] if isinstance(state, tuple) else state
        return _C.stack(outputs, 0), state
    starts = [0]
    for size in batch_sizes[:-1]:
        starts.append(starts[-1] + size)
    outputs = [None] * len(batch_sizes)
    if not reverse:
        finished = []
        active = state
        for t, size in enumerate(batch_sizes):
            rows = active[0].shape[0] if isinstance(active, tuple) else active.shape[0]
            if size < rows:
                finished.append(_rows(active, rows, size))
                active = _rows(active, size)
            active = step(x_proj[starts[t]:starts[t] + size], active, w_hh, b_hh, w_hr)
            outputs[t] = active[0] if isinstance(active, tuple) else active
        final = _cat_rows([active] + finished[::-1]) if finished else active
        return _C.cat(outputs, 0), final
    initial = state
    active = _rows(initial, 0)
    for t in range(len(batch_sizes) - 1, -1, -1):
        size = batch_sizes[t]
        rows = active[0].shape[0] if isinstance(active, tuple) else active.shape[0]
        if size > rows:
            active = _cat_rows([active, _rows(initial, size, rows)]) if rows else _rows(initial, size)
        active = step(x_proj[starts[t]:starts[t] + size], active, w_hh, b_hh, w_hr)
        outputs[t] = active[0] if isinstance(active, tuple) else active
    return _C.cat(outputs, 0), active


class RNNBase(Module):
    """The parameters and the layer loop RNN, LSTM and GRU share."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool)):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        options = {"device": device, "dtype": dtype}
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                suffix = "_reverse" if direction == 1 else ""
                params = [("weight_ih_l{}{}", (gate_size, layer_input_size)),
                          ("weight_hh_l{}{}", (gate_size, real_hidden_size))]
                if bias:
                    params += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    params.append(("weight_hr_l{}{}", (proj_size, hidden_size)))
                names = []
                for pattern, shape in params:
                    name = pattern.format(layer, suffix)
                    setattr(self, name, Parameter(_factories.empty(*shape, **options)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """PyTorch packs the weights for cuDNN here; Ember's layers read them
        where they are."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # --- checks, with PyTorch's messages

    def check_input(self, input, batch_sizes):
        if input.dtype != self._flat_weights[0].dtype:
            raise ValueError(f"input must have the type {self._flat_weights[0].dtype}, got type {input.dtype}")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")

    def get_expected_hidden_size(self, input, batch_sizes):
        mini_batch = int(batch_sizes[0]) if batch_sizes is not None else input.shape[0 if self.batch_first else 1]
        num_directions = 2 if self.bidirectional else 1
        hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, hidden)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.shape) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.shape)))

    # --- the layer loop

    def _layer_weights(self, layer, direction):
        names = self._all_weights[layer * (2 if self.bidirectional else 1) + direction]
        params = dict(zip(("w_ih", "w_hh"), (getattr(self, n) for n in names[:2])))
        params["b_ih"] = getattr(self, names[2]) if self.bias else None
        params["b_hh"] = getattr(self, names[3]) if self.bias else None
        params["w_hr"] = getattr(self, names[-1]) if self.proj_size > 0 else None
        return params

    def _input_projection(self, x, p):
        """x @ w_ih^T plus the biases that do not depend on the state, for
        every step at once."""
        if p["b_ih"] is None:
            return _C.matmul(x, p["w_ih"].t()), None
        if self.mode == "GRU":
            return F.linear(x, p["w_ih"], p["b_ih"]), p["b_hh"]
        return F.linear(x, p["w_ih"], p["b_ih"] + p["b_hh"]), None

    def _layer_runs_kernel(self, x, batch_sizes):
        """Whether a layer of this padded LSTM runs as the catalogue's
        lstm_layer on x's backend's kernel (input projection included)."""
        return (self.mode == "LSTM" and batch_sizes is None and self.proj_size == 0
                and _nn.lstm_layer_runs_kernel(x))

    def _lstm_bias(self, p):
        """lstm_layer's one bias: both of PyTorch's, or zeros without them."""
        if p["b_ih"] is None:
            return p["w_ih"].new_zeros(p["w_ih"].shape[0])
        return p["b_ih"] + p["b_hh"]

    def _run(self, x, initial, batch_sizes):
        """x: [T, B, input] or packed rows; initial: per layer and direction
        the state (a tensor, or (h, c)). Returns the last layer's output and
        the final states in the same order."""
        step = _STEPS[self.mode]
        num_directions = 2 if self.bidirectional else 1
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                p = self._layer_weights(layer, direction)
                state = initial[layer * num_directions + direction]
                if self._layer_runs_kernel(x, batch_sizes):
                    out, h, c = _nn.lstm_layer(x, state[0], state[1], p["w_ih"], p["w_hh"], self._lstm_bias(p),
                                               direction == 1)
                    outputs.append(out)
                    finals.append((h, c))
                    continue
                x_proj, b_hh = self._input_projection(x, p)
                out, final = _run_direction(step, x_proj, state, (p["w_hh"], b_hh, p["w_hr"]), batch_sizes,
                                            direction == 1)
                outputs.append(out)
                finals.append(final)
            x = outputs[0] if num_directions == 1 else _C.cat(outputs, -1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, finals

    def _forward(self, input, hx, with_cell):
        packed = isinstance(input, PackedSequence)
        name = "LSTM" if with_cell else ("GRU" if self.mode == "GRU" else "RNN")
        if packed:
            input, batch_sizes, sorted_indices, unsorted_indices = input
            batch_sizes = [int(n) for n in batch_sizes.tolist()]
            is_batched = True
        else:
            batch_sizes = sorted_indices = unsorted_indices = None
            if input.dim() not in (2, 3):
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D instead")
            is_batched = input.dim() == 3
            if not is_batched:
                input = input.unsqueeze(1 if not self.batch_first else 0)
        states = self._initial_states(input, hx, batch_sizes, sorted_indices, is_batched, with_cell)
        self.check_input(input, batch_sizes)
        if not packed and self.batch_first:
            input = input.transpose(0, 1)
        num_directions = 2 if self.bidirectional else 1
        layers = self.num_layers * num_directions
        if with_cell:
            initial = [(states[0][i], states[1][i]) for i in range(layers)]
        else:
            initial = [states[i] for i in range(layers)]
        output, finals = self._run(input, initial, batch_sizes)
        if with_cell:
            hidden = (_C.stack([f[0] for f in finals], 0), _C.stack([f[1] for f in finals], 0))
        else:
            hidden = _C.stack(finals, 0)
        if packed:
            if unsorted_indices is not None:
                hidden = tuple(h.index_select(1, unsorted_indices) for h in hidden) if with_cell else \
                    hidden.index_select(1, unsorted_indices)
            return PackedSequence(output, _factories.tensor(batch_sizes, dtype=_C.int64), sorted_indices,
                                  unsorted_indices), hidden
        if self.batch_first:
            output = output.transpose(0, 1)
        if not is_batched:
            output = output.squeeze(1 if not self.batch_first else 0)
            hidden = tuple(h.squeeze(1) for h in hidden) if with_cell else hidden.squeeze(1)
        return output, hidden

    def _initial_states(self, input, hx, batch_sizes, sorted_indices, is_batched, with_cell):
        expected = self.get_expected_hidden_size(input, batch_sizes)
        cell_size = (expected[0], expected[1], self.hidden_size)
        if hx is None:
            h = input.new_zeros(expected)
            return (h, input.new_zeros(cell_size)) if with_cell else h
        pair = hx if with_cell else (hx,)
        if with_cell and (not isinstance(hx, tuple) or len(hx) != 2):
            raise RuntimeError("LSTM: hx must be a tuple of (h_0, c_0)")
        if not is_batched:
            for h in pair:
                if h.dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {h.dim()}-D tensor")
            pair = tuple(h.unsqueeze(1) for h in pair)
        elif any(h.dim() != 3 for h in pair):
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {pair[0].dim()}-D tensor")
        if sorted_indices is not None:
            pair = tuple(h.index_select(1, sorted_indices) for h in pair)
        self.check_hidden_size(pair[0], expected)
        if with_cell:
            self.check_hidden_size(pair[1], cell_size, "Expected hidden[1] size {}, got {}")
            return pair
        return pair[0]


class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, with_cell=False)


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        expected = self.get_expected_hidden_size(input, batch_sizes)
        return (expected[0], expected[1], self.hidden_size)

    def forward(self, input, hx=None):
        return self._forward(input, hx, with_cell=True)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, with_cell=False)


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        options = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(_factories.empty(num_chunks * hidden_size, input_size, **options))
        self.weight_hh = Parameter(_factories.empty(num_chunks * hidden_size, hidden_size, **options))
        if bias:
            self.bias_ih = Parameter(_factories.empty(num_chunks * hidden_size, **options))
            self.bias_hh = Parameter(_factories.empty(num_chunks * hidden_size, **options))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _cell(self, input, hx, step, with_cell):
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for h in (hx if with_cell else (hx,)):
                if h.dim() not in (1, 2):
                    raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {h.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected "
                               f"{self.input_size}")
        if hx is None:
            zeros = input.new_zeros((input.shape[0], self.hidden_size))
            hx = (zeros, zeros) if with_cell else zeros
        elif not is_batched:
            hx = tuple(h.unsqueeze(0) for h in hx) if with_cell else hx.unsqueeze(0)
        for h in (hx if with_cell else (hx,)):
            if h.shape[0] != input.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden batch size "
                                   f"{h.shape[0]}")
            if h.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden has inconsistent hidden_size: got {h.shape[1]}, expected "
                                   f"{self.hidden_size}")
        x_part = F.linear(input, self.weight_ih, self.bias_ih)
        state = step(x_part, hx, self.weight_hh, self.bias_hh, None)
        if not is_batched:
            state = tuple(s.squeeze(0) for s in state) if with_cell else state.squeeze(0)
        return state


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if self.nonlinearity == "tanh":
            step = _tanh_step
        elif self.nonlinearity == "relu":
            step = _relu_step
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return self._cell(input, hx, step, with_cell=False)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._cell(input, hx, _lstm_step, with_cell=True)


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._cell(input, hx, _gru_step, with_cell=False)
