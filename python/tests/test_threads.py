"""The GIL is released while kernels run: Python threads make progress
during a long op, and ops on several threads give the same results."""

import sys
import threading
import time

import ember


def test_python_runs_while_a_kernel_runs():
    """With forced GIL switches made rare, the main thread gets the GIL back
    while the worker is inside its ops only if the ops released it."""
    a = ember.rand(1000, 1000)
    started, done = threading.Event(), threading.Event()

    def work():
        started.set()
        for _ in range(8):
            a @ a
        done.set()

    previous = sys.getswitchinterval()
    sys.setswitchinterval(60.0)
    try:
        worker = threading.Thread(target=work)
        worker.start()
        started.wait()
        time.sleep(0.02)
        overlapped = not done.is_set()
        worker.join()
    finally:
        sys.setswitchinterval(previous)
    assert overlapped


def test_ops_from_several_threads_agree():
    ember.manual_seed(0)
    x = ember.randn(64, 64)
    expected = (x @ x).sum(1).tolist()
    results = [None] * 4

    def work(slot):
        results[slot] = (x @ x).sum(1).tolist()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == expected for r in results)
