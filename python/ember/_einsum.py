"""ember.einsum: Einstein summation, contracted pairwise through bmm
(Note [Einsum by pairs])."""

import builtins
import string

from . import _C
from ._C import Tensor

# Note [Einsum by pairs]
# Each operand first takes the diagonal of any subscript it repeats (a strided
# view) and sums the subscripts that appear nowhere else. Operands are then
# contracted two at a time, always the pair whose result is smallest (for two
# operands, simply those two): in a pair, the subscripts both share and a later
# operand or the output needs are batch dims, those both share and nothing
# else needs are summed, and the rest are the rows of one side or the columns
# of the other, so one permute, reshape and bmm does the pair. Size-1 dims
# broadcast against their partner's size, as PyTorch allows. Integer and bool
# operands go through the same products; bmm and sum give PyTorch's dtypes.

_LETTERS = string.ascii_uppercase + string.ascii_lowercase
_ELLIPSIS_BASE = 52  # subscripts 0..51 are letters; ellipsis dims number from here


def _fail(message):
    raise RuntimeError(f"einsum(): {message}")


def _letter_subscripts(term, position):
    """The subscripts of one term as ints, with None marking an ellipsis."""
    subscripts = []
    i = 0
    while i < len(term):
        if term.startswith("...", i):
            if None in subscripts:
                _fail(f"found more than one ellipsis ('...') in the term {term!r}")
            subscripts.append(None)
            i += 3
            continue
        letter = term[i]
        if letter == ".":
            _fail(f"found '.' for operand {position} that is not part of any ellipsis")
        if letter not in _LETTERS:
            _fail(f"invalid subscript given at index {i} in the equation string, subscripts must be in [a-zA-Z]")
        subscripts.append(_LETTERS.index(letter))
        i += 1
    return subscripts


def _parse_equation(equation, count):
    equation = equation.replace(" ", "")
    left, arrow, right = equation.partition("->")
    terms = left.split(",")
    if len(terms) > count:
        _fail(f"fewer operands were provided than specified in the equation ({count} for {len(terms)} terms)")
    if len(terms) < count:
        _fail(f"more operands were provided than specified in the equation ({count} for {len(terms)} terms)")
    inputs = [_letter_subscripts(term, k) for k, term in enumerate(terms)]
    output = _letter_subscripts(right, "output") if arrow else None
    return inputs, output


def _parse_sublists(arguments):
    """einsum(op0, [0, 1], op1, [1, 2], [0, 2]): subscripts as lists of ints
    (Ellipsis for '...')."""
    operands, inputs = [], []
    arguments = list(arguments)
    while len(arguments) >= 2:
        operands.append(arguments.pop(0))
        inputs.append(arguments.pop(0))
    output = arguments[0] if arguments else None

    def convert(sublist):
        result = []
        for s in sublist:
            if s is Ellipsis:
                result.append(None)
            elif isinstance(s, int) and 0 <= s < _ELLIPSIS_BASE:
                result.append(s)
            else:
                _fail(f"subscript in subscript list is not within the valid range [0, 52), got {s}")
        return result

    return operands, [convert(s) for s in inputs], None if output is None else convert(output)


def _expand_ellipses(operands, inputs, output):
    """Replaces each ellipsis by the subscripts of the dims it covers, numbered
    from the right so that they broadcast across operands."""
    widest = 0
    expanded = []
    for k, (operand, subscripts) in enumerate(zip(operands, inputs)):
        letters = [s for s in subscripts if s is not None]
        has_ellipsis = len(letters) != len(subscripts)
        covered = operand.dim() - len(letters)
        if (not has_ellipsis and covered != 0) or covered < 0:
            _fail(f"the number of subscripts in the equation ({len(letters)}) does not match the number of "
                  f"dimensions ({operand.dim()}) for operand {k}{'' if has_ellipsis else ' and no ellipsis was given'}")
        widest = builtins.max(widest, covered)
        expanded.append((covered, subscripts))
    result = []
    for covered, subscripts in expanded:
        ellipsis = [_ELLIPSIS_BASE + widest - covered + i for i in range(covered)]
        at = subscripts.index(None) if None in subscripts else None
        result.append(subscripts if at is None else subscripts[:at] + ellipsis + subscripts[at + 1:])
    all_ellipsis = [_ELLIPSIS_BASE + i for i in range(widest)]
    if output is None:
        counts = {}
        for subscripts in inputs:
            for s in subscripts:
                if s is not None:
                    counts[s] = counts.get(s, 0) + 1
        output = all_ellipsis + sorted(s for s, n in counts.items() if n == 1)
    else:
        if output.count(None) > 1:
            _fail("found more than one ellipsis ('...') in the output")
        at = output.index(None) if None in output else None
        output = output if at is None else output[:at] + all_ellipsis + output[at + 1:]
        seen = set()
        present = {s for subscripts in result for s in subscripts}
        for s in output:
            name = _LETTERS[s] if s < _ELLIPSIS_BASE else "..."
            if s in seen:
                _fail(f"output subscript {name} appears more than once in the output")
            if s not in present:
                _fail(f"output subscript {name} does not appear in the equation for any input operand")
            seen.add(s)
    return result, output


def _take_diagonals(operand, subscripts, k):
    """One dim per distinct subscript: a repeated one becomes its diagonal (a view)."""
    distinct = []
    for s in subscripts:
        if s not in distinct:
            distinct.append(s)
    if len(distinct) == len(subscripts):
        return operand, subscripts
    sizes, strides = {}, {}
    for s, extent, stride in zip(subscripts, operand.shape, operand.stride()):
        if s in sizes and sizes[s] != extent:
            _fail(f"subscript {_LETTERS[s]} is repeated for operand {k} but the sizes don't match, "
                  f"{sizes[s]} != {extent}")
        sizes[s] = extent
        strides[s] = strides.get(s, 0) + stride
    view = operand.as_strided([sizes[s] for s in distinct], [strides[s] for s in distinct], operand.storage_offset())
    return view, distinct


def _sum_unused(operand, subscripts, needed):
    dims = [d for d, s in enumerate(subscripts) if s not in needed]
    if not dims:
        return operand, subscripts
    return operand.sum(dims), [s for s in subscripts if s in needed]


def _product_dtype(dtype):
    # bmm of bool has no meaning here; count as int64 like sum does, then
    # the result goes back to bool at the end.
    return _C.int64 if dtype == _C.bool else dtype


def _broadcast_sizes(items):
    """Each subscript's size, size-1 dims broadcasting against the others."""
    sizes = {}
    for operand, subscripts in items:
        for s, extent in zip(subscripts, operand.shape):
            previous = sizes.get(s, extent)
            if extent != 1 and previous != 1 and extent != previous:
                _fail(f"operands do not broadcast with remapped shapes (original->remapped): subscript "
                      f"{_LETTERS[s] if s < _ELLIPSIS_BASE else '...'} has sizes {previous} and {extent}")
            sizes[s] = extent if previous == 1 else previous
    return sizes


def _contract(a, a_subs, b, b_subs, keep):
    """a and b contracted over the subscripts they share that `keep` lacks."""
    sizes = _broadcast_sizes([(a, a_subs), (b, b_subs)])
    batch = [s for s in a_subs if s in b_subs and s in keep]
    summed = [s for s in a_subs if s in b_subs and s not in keep]
    rows = [s for s in a_subs if s not in b_subs]
    columns = [s for s in b_subs if s not in a_subs]

    def arranged(operand, subscripts, order):
        permuted = operand.permute([subscripts.index(s) for s in order])
        return permuted.expand([sizes[s] if s in batch or s in summed else permuted.shape[i]
                                for i, s in enumerate(order)])

    def count(group):
        total = 1
        for s in group:
            total *= sizes[s]
        return total

    left = arranged(a, a_subs, batch + rows + summed).reshape([count(batch), count(rows), count(summed)])
    right = arranged(b, b_subs, batch + summed + columns).reshape([count(batch), count(summed), count(columns)])
    product = _C.bmm(left, right)
    return product.reshape([sizes[s] for s in batch + rows + columns]), batch + rows + columns


def _result_size(a_subs, b_subs, sizes, keep):
    total = 1
    for s in set(a_subs) | set(b_subs):
        if s in keep or not (s in a_subs and s in b_subs):
            total *= sizes.get(s, 1)
    return total


def einsum(*arguments):
    """einsum(equation, *operands) or einsum(op0, sublist0, op1, sublist1, ..., [output sublist])."""
    if not arguments:
        raise TypeError("einsum(): must specify the equation string and at least one operand")
    if isinstance(arguments[0], str):
        equation, operands = arguments[0], list(arguments[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
        if not operands:
            _fail("must provide at least one operand")
        inputs, output = _parse_equation(equation, len(operands))
    else:
        operands, inputs, output = _parse_sublists(arguments)
    for operand in operands:
        if not isinstance(operand, Tensor):
            raise TypeError(f"einsum(): operands must be tensors, got {type(operand).__name__}")
    dtype = operands[0].dtype
    for operand in operands[1:]:
        if operand.dtype != dtype:
            _fail(f"expected all operands to have the same dtype, got {operands[0].dtype} and {operand.dtype}")
    inputs, output = _expand_ellipses(operands, inputs, output)

    items = []
    for k, (operand, subscripts) in enumerate(zip(operands, inputs)):
        operand, subscripts = _take_diagonals(operand.to(_product_dtype(dtype)), subscripts, k)
        items.append((operand, subscripts))

    def needed_beyond(excluded):
        wanted = set(output)
        for j, (_, subscripts) in enumerate(items):
            if j not in excluded:
                wanted.update(subscripts)
        return wanted

    items = [_sum_unused(operand, subscripts, needed_beyond({k})) for k, (operand, subscripts) in enumerate(items)]
    while len(items) > 1:
        pair = (0, 1)
        if len(items) > 2:
            sizes = _broadcast_sizes(items)
            candidates = [(i, j) for i in range(len(items)) for j in range(i + 1, len(items))]
            pair = builtins.min(candidates, key=lambda ij: _result_size(items[ij[0]][1], items[ij[1]][1], sizes,
                                                                        needed_beyond(set(ij))))
        i, j = pair
        keep = needed_beyond({i, j})
        contracted = _contract(*items[i], *items[j], keep)
        items = [item for k, item in enumerate(items) if k not in pair] + [contracted]
    operand, subscripts = items[0]
    operand, subscripts = _sum_unused(operand, subscripts, set(output))
    result = operand.permute([subscripts.index(s) for s in output]) if output else operand.reshape([])
    if result.dtype != dtype:
        result = result.to(dtype)
    return result
