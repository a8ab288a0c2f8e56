"""The checks `zcast convert` runs on each block before writing it (docs/semantics-additions.md):

* R28: every element's stored value decodes. zarr-python runs each codec on its own, so a value
  clamped by cast_value to one scale_offset cannot divide back (32767 / 2 in an integer array,
  R24) would be written and then fail every read. The block goes through the whole new chain
  (zcast.Chain: encode, then decode) and the first element that does not come back is named.
* R27: a valid element stored as a decode-map sentinel (the input of a scalar_map decode entry,
  e.g. 0 under NaN <-> 0) reads back as that entry's output, not as itself. Such elements are
  counted and the first (lowest index in C order over the whole array) is remembered.
* R29: errors name the element by its index in the whole array and the chunk that holds it.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

import zcast
from zcast import _api, _dtypes
from zcast._errors import CastError

_ELEMENT_RE = re.compile(r"^element \([^)]*\): ")


def locate(region: tuple[slice, ...], index: tuple[int, ...] | None = None,
           chunks: tuple[int, ...] | None = None) -> str:
    """``element (12, 5) (chunk (1, 0))`` for an index within the region, or the region itself
    as ``[0:8, 8:16]``."""
    if index is None:
        return "[" + ", ".join(f"{r.start}:{r.stop}" for r in region) + "]"
    where = tuple(r.start + i for r, i in zip(region, index))
    text = f"element {where}"
    if chunks is not None:
        text += f" (chunk {tuple(w // c for w, c in zip(where, chunks))})"
    return text


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(f"u{a.dtype.itemsize}") if a.dtype.itemsize in (1, 2, 4, 8) else a


def _same_values(a: np.ndarray, b: np.ndarray, name: str) -> np.ndarray:
    """Elementwise: equal values (NaN equal to NaN; -0.0 equal to 0.0), exactly."""
    if _dtypes.is_integer(name):
        return a.astype(np.int64) == b.astype(np.int64) if name != "uint64" else a == b
    x, y = a.astype(np.float64), b.astype(np.float64)  # exact for every float type here
    return (x == y) | (np.isnan(x) & np.isnan(y))


class RegionChecker:
    """Checks blocks of one array against the new filters; thread-safe (immutable)."""

    def __init__(self, new_filters: list[Any], array_type: str, shape: tuple[int, ...],
                 chunks: tuple[int, ...]) -> None:
        codecs = "[" + ",".join(f.spec_json for f in new_filters) + "]"
        self.chain = zcast.Chain.from_codecs(codecs, array_type)
        self.array_type = array_type
        self.shape, self.chunks = tuple(shape), tuple(chunks)
        cast = new_filters[-1].to_dict()["configuration"]
        encoded = self.chain.encoded_data_type
        # The stored values a decode entry turns into something else: compared as bit patterns.
        self.sentinels = [
            _bits(np.asarray(_api.scalar_from_json(_api.json_scalar(entry[0]), encoded)))
            for entry in (cast.get("scalar_map") or {}).get("decode", [])]

    def _raise(self, err: CastError, region: tuple[slice, ...], what: str = "") -> None:
        message = str(err)
        m = _ELEMENT_RE.match(message)
        if err.index is None or not m:
            raise CastError(f"block {locate(region)}: {message}") from None
        where = locate(region, err.index, self.chunks)
        raise CastError(f"{where}: {what}{message[m.end():]}",
                        index=tuple(r.start + i for r, i in zip(region, err.index))) from None

    def check(self, values: np.ndarray, region: tuple[slice, ...]) -> dict[str, Any]:
        values = np.asarray(values)
        try:
            encoded = self.chain.encode(values)
        except CastError as err:
            self._raise(err, region)
        try:
            decoded = self.chain.decode(encoded)
        except CastError as err:
            # R28: written, this element would make every read of its chunk fail.
            i = err.index
            self._raise(err, region,
                        f"value {values[i]} would be stored as {encoded[i]} "
                        f"({self.chain.encoded_data_type}), which cannot be read back: "
                        if i is not None else "")
        if not self.sentinels:
            return {"collisions": 0, "first": None}
        stored = _bits(encoded)
        hit = np.zeros(values.shape, dtype=bool)
        for s in self.sentinels:
            hit |= stored == s
        hit &= ~_same_values(values, decoded, self.array_type)
        count = int(hit.sum())
        if not count:
            return {"collisions": 0, "first": None}
        index = tuple(int(i) for i in np.unravel_index(int(np.argmax(hit.reshape(-1))), hit.shape))
        where = tuple(r.start + i for r, i in zip(region, index))
        return {"collisions": count, "first": {
            "flat": int(np.ravel_multi_index(where, self.shape)), "where": locate(
                region, index, self.chunks), "value": values[index], "stored": encoded[index],
            "reads_as": decoded[index]}}

    def collision_message(self, collisions: dict[str, Any]) -> str:
        first = collisions["first"]
        return (f"{collisions['collisions']} valid element(s) are stored as a decode-map "
                f"sentinel and would read back as something else (R27): the first is "
                f"{first['where']}, value {first['value']}, stored as {first['stored']} "
                f"({self.chain.encoded_data_type}), read back as {first['reads_as']}; change "
                f"--scale / --offset / --out-of-range or the map so that valid values cannot "
                f"reach the sentinel")
