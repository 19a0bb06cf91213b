"""ember.futures: futures settled when waited on, chained with then,
collected, and failing with the callback's exception; Work.get_future."""

import pytest

import ember
from ember.futures import Future, collect_all, wait_all


def test_set_then_wait_and_errors():
    first = Future()
    chained = first.then(lambda done: done.value() * 2)
    seen = []
    first.add_done_callback(lambda done: seen.append(done.value()))
    first.set_result(21)
    assert seen == [21] and chained.wait() == 42 and chained.done()
    with pytest.raises(RuntimeError, match="already completed"):
        first.set_result(1)
    failing = first.then(lambda done: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        failing.wait()
    unset = Future()
    with pytest.raises(RuntimeError, match="has no value"):
        unset.wait()
    others = [Future(), Future()]
    for i, future in enumerate(others):
        future.set_result(i)
    assert [f.value() for f in collect_all(others).wait()] == [0, 1] and wait_all(others) == [0, 1]
    assert Future[ember.Tensor] is Future
