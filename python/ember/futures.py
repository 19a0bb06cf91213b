"""torch.futures: a Future is a value that becomes available later (the
result of an asynchronous collective); `then` chains a callback whose
result is the next future's value, `wait` gives the value.

Ember's futures are settled when waited on: a collective's future waits for
its Work, a chained one for its parent and then runs its callback, so the
callbacks run on the thread that waits, in order."""

__all__ = ["Future", "collect_all", "wait_all"]

_UNSET = object()


class Future:
    # Future[Tensor] in a hook's annotations.
    __class_getitem__ = classmethod(lambda cls, item: cls)

    def __init__(self, *, devices=None, _settle=None):
        self._value, self._error = _UNSET, None
        self._settle = _settle
        self._callbacks = []

    def done(self):
        return self._value is not _UNSET or self._error is not None

    def _resolve(self):
        if self.done() or self._settle is None:
            return
        settle, self._settle = self._settle, None
        try:
            self.set_result(settle())
        except Exception as error:  # kept, and raised by wait() and value(), as PyTorch's futures do
            self.set_exception(error)

    def wait(self):
        self._resolve()
        if self._error is not None:
            raise self._error
        if self._value is _UNSET:
            raise RuntimeError("Future.wait: the future has no value and nothing will set one")
        return self._value

    def value(self):
        return self.wait()

    def set_result(self, result):
        if self.done():
            raise RuntimeError("Future.set_result: the future is already completed")
        self._value = result
        self._run_callbacks()

    def set_exception(self, result):
        if self.done():
            raise RuntimeError("Future.set_exception: the future is already completed")
        self._error = result
        self._run_callbacks()

    def _run_callbacks(self):
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)

    def then(self, callback):
        """A future of callback(self), run once this one is settled."""
        return Future(_settle=lambda: callback(self._settled()))

    def _settled(self):
        self._resolve()
        return self

    def add_done_callback(self, callback):
        if self.done():
            callback(self)
        else:
            self._callbacks.append(callback)


def collect_all(futures):
    """A future of the list of futures, once each has settled."""
    return Future(_settle=lambda: [future._settled() for future in futures])


def wait_all(futures):
    return [future.wait() for future in futures]
