"""Shared helpers for the Python tests of zcast."""

from __future__ import annotations

import numpy as np
import pytest

import zcast


def bits(arr: np.ndarray) -> np.ndarray:
    """The raw encodings of an array as unsigned integers (compares NaN payloads and -0.0)."""
    arr = np.ascontiguousarray(arr)
    return arr.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[arr.dtype.itemsize])


def encodings(name: str) -> np.ndarray:
    """Every encoding of a type of 16 bits or fewer, as an array of that type (sub-byte types:
    only the low bits they use)."""
    dt = zcast.numpy_dtype(name)
    value_bits = {"int2": 2, "uint2": 2, "int4": 4, "uint4": 4, "float4_e2m1fn": 4,
                  "float6_e2m3fn": 6, "float6_e3m2fn": 6}.get(name, 8 * dt.itemsize)
    raw = np.arange(1 << value_bits, dtype=np.uint16 if dt.itemsize == 2 else np.uint8)
    if dt.itemsize == 1 and value_bits == 8:
        raw = np.arange(256, dtype=np.uint8)
    return raw.astype(np.uint16 if dt.itemsize == 2 else np.uint8).view(dt)


@pytest.fixture
def tmp_store(tmp_path):
    import zarr

    return zarr.storage.LocalStore(tmp_path / "store.zarr")
