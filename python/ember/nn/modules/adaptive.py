"""AdaptiveLogSoftmaxWithLoss: the log-softmax over a large vocabulary of
Grave et al.'s efficient softmax approximation, as PyTorch's module gives it.

The classes below cutoffs[0] (the shortlist) get logits from the head;
each further cluster [cutoffs[i], cutoffs[i + 1]) gets one head logit, and
its classes get theirs from a tail projection through in_features /
div_value ** (i + 1) features. A class's log-probability is its cluster's
head log-probability plus its own within the cluster, so a forward pass
computes the tail of a cluster only for the rows whose targets lie in it.
"""

from collections import namedtuple

from ... import _C, _factories
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        options = dict(device=device, dtype=dtype)
        self.head = Linear(in_features, self.head_size, bias=head_bias, **options)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **options),
                                        Linear(hidden, size, bias=False, **options)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for projection, output in self.tail:
            projection.reset_parameters()
            output.reset_parameters()

    def forward(self, input_, target_):
        if target_.dim() == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{input_.shape}")
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{input_.shape}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        rows = target.shape[0]
        # Per row: the index of its head logit (its class in the shortlist, else its cluster's), and the
        # log-probability of its class within its cluster (0 in the shortlist).
        head_index = target.clone()
        within = []
        used = 0
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            low, high = bounds[i], bounds[i + 1]
            in_cluster = (target >= low) & (target < high)
            picked = in_cluster.nonzero().reshape(-1)
            if picked.numel() == 0:
                continue
            used += picked.numel()
            if i == 0:
                continue
            head_index = head_index.masked_fill(in_cluster, self.shortlist_size + i - 1)
            cluster = F.log_softmax(self.tail[i - 1](input.index_select(0, picked)), dim=1)
            chosen = cluster.gather(1, (target.index_select(0, picked) - low).unsqueeze(1)).squeeze(1)
            within.append((picked, chosen))
        if used != rows:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min().item()}, {target.max().item()}] were found. ")
        output = _factories.zeros(rows, dtype=input.dtype, device=input.device)
        for picked, chosen in within:
            output = output.index_add(0, picked, chosen)
        head = F.log_softmax(self.head(input), dim=1)
        output = output + head.gather(1, head_index.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        head = F.log_softmax(head_output, dim=1)
        pieces = [head[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster = F.log_softmax(self.tail[i](input), dim=1)
            pieces.append(cluster + head[:, self.shortlist_size + i].unsqueeze(1))
        return _C.cat(pieces, 1)

    def log_prob(self, input):
        """The log-probability of every class, (batch, n_classes) or (n_classes,)."""
        batched = input.dim() > 1
        rows = input if batched else input.unsqueeze(0)
        result = self._full_log_prob(rows, self.head(rows))
        return result if batched else result.squeeze(0)

    def predict(self, input):
        """The most likely class of each row (of the input alone for 1-d input)."""
        return self.log_prob(input).argmax(-1)
