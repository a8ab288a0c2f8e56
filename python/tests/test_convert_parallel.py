"""`zcast convert` copies several blocks at a time: the result, the statistics and the error
reported are those of a one-block-at-a-time copy."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import zarr

import zcast.zarr as zz
from zcast import _cli_convert, cli

SHAPE, CHUNKS = (64, 64), (8, 8)  # 64 blocks


def make_source(path, data, fill_value=np.nan):
    a = zarr.create_array(zarr.storage.LocalStore(path), shape=SHAPE, chunks=CHUNKS,
                          dtype="float32", fill_value=fill_value)
    a[:] = data


def field():
    rng = np.random.default_rng(3)
    data = rng.uniform(-100, 100, SHAPE).astype(np.float32)
    data[rng.random(SHAPE) < 0.05] = np.nan
    return data


def test_many_blocks_on_several_threads(tmp_path, monkeypatch, capsys):
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    data = field()
    make_source(src, data)
    threads = set()
    real = _cli_convert._is_numeric  # called once per block, on the worker thread

    def spy(a):
        threads.add(threading.get_ident())
        return real(a)
    monkeypatch.setattr(_cli_convert, "_is_numeric", spy)
    monkeypatch.setattr(_cli_convert.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    assert cli.main(["convert", str(src), str(dst), "--data-type", "int8", "--out-of-range",
                     "clamp", "--map", "NaN=-128"]) == 0
    out = capsys.readouterr().out
    assert "64 blocks" in out
    assert len(threads) > 1 and threading.get_ident() not in threads
    with zz.use():
        got = zarr.open_array(zarr.storage.LocalStore(dst), mode="r")[:]
    want = np.where(np.isnan(data), np.nan, np.clip(np.rint(data), -128, 127))
    np.testing.assert_array_equal(got, want.astype(np.float32))
    # the statistics cover every block: max error over the finite elements
    finite = ~np.isnan(data)
    assert f"over {int(finite.sum())} finite elements" in out
    assert "NaN mismatches 0" in out


@pytest.mark.parametrize("repeat", range(3))
def test_the_first_failing_block_is_reported(tmp_path, capsys, repeat):
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    data = np.zeros(SHAPE, dtype=np.float32)
    data[9, 10] = 300.0  # block (1, 1): the 10th block in order
    data[60, 3] = 999.0  # block (7, 0): a later one
    data[2, 62] = 555.0  # block (0, 7): the 8th block, the first failing one
    make_source(src, data, fill_value=0)
    assert cli.main(["convert", str(src), str(dst), "--data-type", "int8"]) == 1
    err = capsys.readouterr().err
    assert "conversion failed" in err and "value 555.0" in err
    assert "300.0" not in err and "999.0" not in err
    assert not dst.exists()
