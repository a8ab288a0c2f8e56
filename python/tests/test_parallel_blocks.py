"""How a large cast is shared between threads (_api._run_blocks).

The calling thread takes part, and blocks are handed out one at a time in index order, so a
worker that starts late or runs slowly leaves its share to the others instead of holding up the
whole cast (on a 2-vCPU VM, fixed halves on two workers ran below one thread's speed: see
docs/performance.md, "Two cores"). The kernel is replaced by a recording function that sees which
elements each call covers: the source is the element indices themselves (uint32).
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from zcast import _api
from zcast._errors import CastError

N = 1 << 22  # 4 Mi elements: 8 blocks on two threads


class Recorder:
    def __init__(self, on_call=None):
        self.calls: list[tuple[int, int, int]] = []  # (thread id, first element, count)
        self.lock = threading.Lock()
        self.on_call = on_call

    def __call__(self, src: np.ndarray, dst: np.ndarray) -> None:
        idx = src.view(np.uint32)
        first, count = int(idx[0]), idx.size
        assert dst.size == count * 2  # 2 output bytes per element here
        with self.lock:
            self.calls.append((threading.get_ident(), first, count))
        if self.on_call is not None:
            self.on_call(first, count)
        dst.view(np.uint16)[:] = idx.astype(np.uint16)


def run(fn, nthreads: int = 2, n: int = N) -> np.ndarray:
    src = np.arange(n, dtype=np.uint32)
    dst = np.zeros(n, dtype=np.uint16)
    _api._run_blocks(fn, src.view(np.uint8), dst.view(np.uint8), n, nthreads, (n,))
    return dst


def test_every_element_once_and_the_caller_takes_part():
    # A worker's blocks wait (10 s at most) until the caller has taken one, so that on a loaded
    # machine a worker that starts first cannot take every block before the caller runs: the
    # caller takes part whenever it can, and with fixed halves handed to two workers it never did.
    caller = threading.get_ident()
    caller_took_one = threading.Event()

    def on_call(first: int, count: int) -> None:
        if threading.get_ident() == caller:
            caller_took_one.set()
        else:
            caller_took_one.wait(10)

    rec = Recorder(on_call)
    dst = run(rec)
    np.testing.assert_array_equal(dst, np.arange(N, dtype=np.uint32).astype(np.uint16))
    spans = sorted((first, count) for _, first, count in rec.calls)
    assert len(spans) == 2 * _api._BLOCKS_PER_THREAD
    end = 0
    for first, count in spans:  # contiguous, no gap, no overlap
        assert first == end
        end += count
    assert end == N
    # The caller is one of the threads: with fixed halves handed to two workers it did nothing.
    assert threading.get_ident() in {t for t, _, _ in rec.calls}


def test_a_slow_worker_leaves_its_share_to_the_caller():
    main = threading.get_ident()

    def slow_outside_main(first, count):
        if threading.get_ident() != main:
            time.sleep(0.5)  # a worker whose vCPU is busy elsewhere

    rec = Recorder(slow_outside_main)
    run(rec)
    by_main = sum(1 for t, _, _ in rec.calls if t == main)
    nblocks = len(rec.calls)
    # The worker takes at most one block while the caller does the rest (fixed halves: half each).
    assert by_main >= nblocks - 1, rec.calls


def test_first_failing_block_is_reported_with_its_index():
    bad = 3 * N // 4 + 5

    def fail(first, count):
        if first <= bad < first + count:
            raise CastError(f"element {bad - first}: value out of range")
        if first < N // 8:  # let a later block fail first in time: the report is still by index
            time.sleep(0.05)
        if first <= 9 < first + count:
            raise CastError("element 9: value out of range")

    with pytest.raises(CastError) as info:
        run(Recorder(fail))
    assert info.value.index == (9,)
    with pytest.raises(CastError) as info:
        run(Recorder(lambda first, count: fail(first, count) if first > 9 else None))
    assert info.value.index == (bad,)


def test_an_interrupted_caller_waits_for_the_workers():
    main = threading.get_ident()
    finished: list[float] = []
    started_after: list[int] = []
    interrupted_at: list[float] = []

    def interrupt_main(first, count):
        if threading.get_ident() == main:
            interrupted_at.append(time.monotonic())
            raise KeyboardInterrupt
        if interrupted_at:
            started_after.append(first)
        time.sleep(0.2)
        finished.append(time.monotonic())

    rec = Recorder(interrupt_main)
    with pytest.raises(KeyboardInterrupt):
        run(rec)
    returned = time.monotonic()
    # No worker is still writing when the call returns, and none took a block after the interrupt
    # was seen (at most the one it was already inside when the caller stopped handing them out).
    assert len(finished) == sum(1 for t, _, _ in rec.calls if t != main)
    assert all(t <= returned for t in finished)
    assert len(started_after) <= 1


def test_a_worker_that_never_starts_is_not_waited_for(monkeypatch):
    """The pool's one worker is busy elsewhere until released: the caller casts every block alone
    and returns without waiting for it (the queued task is cancelled)."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=1)
    release = threading.Event()
    busy = pool.submit(release.wait, 30)
    monkeypatch.setattr(_api, "_pool", pool)
    timer = threading.Timer(10, release.set)  # without the cancel the call would wait this long
    timer.start()
    try:
        rec = Recorder()
        t0 = time.monotonic()
        run(rec)
        elapsed = time.monotonic() - t0
        released_before_return = release.is_set()
    finally:
        release.set()
        timer.cancel()
        busy.result()
        pool.shutdown()
    assert not released_before_return, f"the call waited for the busy worker ({elapsed:.1f} s)"
    main = threading.get_ident()
    assert {t for t, _, _ in rec.calls} == {main}
    assert len(rec.calls) == 2 * _api._BLOCKS_PER_THREAD
