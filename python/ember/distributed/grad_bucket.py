"""torch.distributed.GradBucket: what a DDP communication hook is given."""

__all__ = ["GradBucket"]


class GradBucket:
    """What a communication hook gets: one bucket's flat gradient buffer (torch.distributed.GradBucket)."""

    def __init__(self, index, bucket, params, last):
        self._index, self._bucket, self._params, self._last = index, bucket, params, last

    def index(self):
        return self._index

    def buffer(self):
        return self._bucket.buffer

    def set_buffer(self, buffer):
        self._bucket.buffer.copy_(buffer)

    def parameters(self):
        return [self._params[i] for i in self._bucket.indices]

    def gradients(self):
        return [self._bucket.view_of(position, self._params[i]) for position, i in enumerate(self._bucket.indices)]

    def is_last(self):
        return self._last
