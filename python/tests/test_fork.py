"""A forked child casts large arrays too.

zcast casts arrays of >= 1 Mi elements on a module-level thread pool. fork copies only the
calling thread, so in a child the parent's pool had no threads but still counted them as idle, and
a large cast waited forever. The test forks after the parent used the pool and runs the same cast
in the child under a timeout, so without the fix it fails instead of hanging.
"""

from __future__ import annotations

import multiprocessing as mp
import os

import numpy as np
import pytest

import zcast
from zcast import _api

TIMEOUT = 30  # seconds; the cast itself takes well under one


def _cast_in_child(n: int) -> tuple[int, bytes]:
    out = zcast.cast_array(np.linspace(0, 100, n), "uint8")
    return os.getpid(), out.tobytes()


@pytest.fixture
def two_threads():
    old = _api._threads
    zcast.set_num_threads(2)  # the pool is used even on a one-CPU machine
    yield
    zcast.set_num_threads(old)


def test_forked_child_casts_after_the_parent_used_the_pool(two_threads):
    n = 4_000_000
    assert n >= _api._PARALLEL_MIN_ELEMENTS * 2
    want = zcast.cast_array(np.linspace(0, 100, n), "uint8")
    assert _api._pool is not None, "the parent's cast should have used the thread pool"
    with mp.get_context("fork").Pool(1) as pool:
        pid, got = pool.apply_async(_cast_in_child, (n,)).get(timeout=TIMEOUT)
    assert pid != os.getpid()
    assert got == want.tobytes()


def test_fork_handler_drops_the_pool(two_threads):
    """The at-fork handler itself: after it runs, the next large cast builds a new pool."""
    zcast.cast_array(np.zeros(_api._PARALLEL_MIN_ELEMENTS * 2, np.float32), "uint8")
    old = _api._pool
    assert old is not None
    _api._forget_pool_after_fork()
    assert _api._pool is None
    zcast.cast_array(np.zeros(_api._PARALLEL_MIN_ELEMENTS * 2, np.float32), "uint8")
    assert _api._pool is not None and _api._pool is not old
