"""Packed sequences (PyTorch's torch.nn.utils.rnn): a batch of sequences of
different lengths stored time step by time step, longest first, so that a
recurrent layer runs each step only on the sequences still going."""

from collections import namedtuple

from ... import _C, _factories

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence", "pack_sequence"]


def _invert_permutation(permutation):
    if permutation is None:
        return None
    output = _factories.empty(len(permutation), dtype=permutation.dtype)
    output[permutation] = _factories.arange(len(permutation), dtype=permutation.dtype)
    return output


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """data: [sum(batch_sizes), *] rows of step 0 for every sequence, then of
    step 1 for those longer than 1, ...; batch_sizes (int64, on the CPU): how
    many sequences each step has; sorted_indices: the batch order of the
    sequences by decreasing length (None when already sorted), and
    unsorted_indices its inverse."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = _invert_permutation(sorted_indices)
        if batch_sizes is None:
            raise RuntimeError("PackedSequence: batch_sizes must be given (use pack_padded_sequence or "
                               "pack_sequence to build one)")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        device = data.device
        sorted_indices = None if self.sorted_indices is None else self.sorted_indices.to(device)
        unsorted_indices = None if self.unsorted_indices is None else self.unsorted_indices.to(device)
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cpu(self):
        return self.to("cpu")

    def double(self):
        return self.to(dtype=_C.float64)

    def float(self):
        return self.to(dtype=_C.float32)

    @property
    def is_cuda(self):
        return self.data.is_cuda


def _lengths_list(lengths):
    if hasattr(lengths, "tolist"):
        return [int(n) for n in lengths.reshape(-1).tolist()]
    return [int(n) for n in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    lengths = _lengths_list(lengths)
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                               "to sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
        order = list(range(len(lengths)))
    else:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        sorted_indices = _factories.tensor(order, dtype=_C.int64, device=input.device)
    batch_dim = 0 if batch_first else 1
    if len(lengths) != input.shape[batch_dim]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} (batch_size="
                           f"{input.shape[batch_dim]})")
    if any(n <= 0 for n in lengths):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    steps = input.shape[1 - batch_dim]
    if max(lengths) > steps:
        raise RuntimeError(f"pack_padded_sequence: a length of {max(lengths)} is longer than the input's "
                           f"{steps} time steps")
    if batch_first:
        input = input.transpose(0, 1)
    if sorted_indices is not None:
        input = input.index_select(1, sorted_indices)
    sorted_lengths = [lengths[i] for i in order]
    batch_sizes = [sum(1 for n in sorted_lengths if n > t) for t in range(sorted_lengths[0])]
    data = _C.cat([input[t, :size] for t, size in enumerate(batch_sizes)], 0)
    return PackedSequence(data, _factories.tensor(batch_sizes, dtype=_C.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    batch_sizes = _lengths_list(sequence.batch_sizes)
    max_length = len(batch_sizes)
    if total_length is not None:
        if total_length < max_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {max_length}")
        max_length = total_length
    batch = batch_sizes[0]
    data = sequence.data
    steps, start = [], 0
    for size in batch_sizes:
        step = data[start:start + size]
        if size < batch:
            step = _C.cat([step, step.new_full((batch - size, *data.shape[1:]), padding_value)], 0)
        steps.append(step)
        start += size
    for _ in range(max_length - len(batch_sizes)):
        steps.append(data.new_full((batch, *data.shape[1:]), padding_value))
    padded = _C.stack(steps, 0)
    lengths = [sum(1 for size in batch_sizes if size > b) for b in range(batch)]
    lengths = _factories.tensor(lengths, dtype=_C.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.cpu()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if not isinstance(sequences, (list, tuple)):
        sequences = list(sequences.unbind(0))
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        missing = longest - s.shape[0]
        if missing:
            fill = s.new_full((missing, *s.shape[1:]), padding_value)
            s = _C.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        padded.append(s)
    return _C.stack(padded, 0 if batch_first else 1)


def pack_sequence(sequences, enforce_sorted=True):
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)
