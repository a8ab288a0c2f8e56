"""Writes zarr-python cannot check: zarr runs each codec on its own, so an
element cast_value clamps to a value scale_offset cannot decode (R24) is written and then fails
every read. zcast.zarr.check_readable finds it before writing, naming the element (R28). The
first test pins the gap itself, so that it is noticed if zarr or zcast ever closes it."""

from __future__ import annotations

import numpy as np
import pytest
import zarr

import zcast
import zcast.zarr as zz

VALUES = np.array([1, 2, 100000, 3], dtype=np.int32)


def make(shards=None):
    with zz.use():
        return zarr.create_array(
            zarr.storage.MemoryStore(), shape=(4,), chunks=(2,), shards=shards, dtype="int32",
            fill_value=0, filters=[zz.ScaleOffset(scale=2),
                                   zz.CastValue(data_type="int16", out_of_range="clamp")])


def test_the_gap_zarr_writes_what_it_cannot_read():
    a = make()
    with zz.use():
        a[:] = VALUES  # accepted: each codec alone is satisfied
        with pytest.raises(zcast.CastError, match="32767 / 2 is not an integer"):
            a[:]


@pytest.mark.parametrize("shards", [None, (4,)])
def test_check_readable_names_the_element(shards):
    a = make(shards)
    with pytest.raises(zcast.CastError, match=r"element \(2,\).*32767"):
        zz.check_readable(a, VALUES)
    zz.check_readable(a, np.array([1, 2, 16383, -16384], dtype=np.int32))  # all read back
    zz.check_readable(a, VALUES[:2])  # values for a part of the array


def test_check_readable_without_zcast_codecs_does_nothing():
    a = zarr.create_array(zarr.storage.MemoryStore(), shape=(4,), chunks=(2,), dtype="int32",
                          fill_value=0)
    zz.check_readable(a, VALUES)
