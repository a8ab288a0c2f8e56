"""zcast.Chain: the leading array -> array codecs of a Zarr array, as zcast's core resolves them.

    >>> chain = zcast.Chain.from_array_metadata(open("b04/zarr.json").read())
    >>> chain.data_type, chain.encoded_data_type, chain.encoded_fill_value_json
    ('float32', 'uint16', 0)
    >>> chain.first_unowned_codec           # what the reader undoes before decode: bytes, gzip...
    'bytes'
    >>> reflectance = chain.decode(np.frombuffer(raw_chunk, "<u2"))

A sharded array (``sharding_indexed`` first, as in EOPF products) leaves every codec to the
shard reader: that chain owns nothing, says so with a ShardedChainWarning, and names the inner
codecs in ``inner_codecs``; ``Chain.from_codecs(chain.inner_codecs, chain.data_type, fill)`` is
the chain of the inner chunks.

The chain owns the leading run of ``scale_offset``, ``cast_value`` and the legacy
``numcodecs.fixedscaleoffset`` (read as ``[scale_offset, cast_value{out_of_range: "wrap"}]``)
and runs them fused, in one pass over memory, with values and errors identical to running them
one after the other (docs/semantics-additions.md, R25-R26). It is a thin layer over the C++
``zcast::Chain`` (and so over what ``zcast_chain_create`` gives a C reader).
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from zcast import _api, _dtypes, _json, _zcast
from zcast._errors import CastError, MetadataError

#: The codec names a chain owns (when they lead the codec list).
OWNED_CODECS = ("scale_offset", "cast_value", "numcodecs.fixedscaleoffset")


class ShardedChainWarning(UserWarning):
    """Chain.from_array_metadata owns no codec of a sharded array whose shards' inner codecs begin
    with codecs it could own (an EOPF band: ``sharding_indexed`` holding scale_offset +
    cast_value). Such a chain decodes nothing: the chain of the inner chunks is
    ``Chain.from_codecs(inner_codecs, data_type, fill_value)``, named by the warning and by
    :attr:`Chain.inner_codecs`."""


def _inner_codecs(codecs: Any) -> list[Any] | None:
    """The inner codecs of a leading sharding_indexed whose own list starts with an owned codec,
    else None."""
    if not isinstance(codecs, list) or not codecs or not isinstance(codecs[0], dict):
        return None
    first = codecs[0]
    if first.get("name") != "sharding_indexed":
        return None
    inner = (first.get("configuration") or {}).get("codecs")
    if not isinstance(inner, list) or not inner:
        return None
    name = inner[0] if isinstance(inner[0], str) else (inner[0] or {}).get("name")
    return inner if name in OWNED_CODECS else None


@dataclass(frozen=True)
class ChainStep:
    """One bound codec of a chain, in encode order: its metadata as zcast reads it (``codec``),
    and the data type and fill value it hands on (the fill value as its JSON value, None when the
    array has none). numcodecs.fixedscaleoffset contributes two steps."""

    name: str
    codec: dict[str, Any]
    data_type: str
    fill_value: Any


def _json_text(doc: Any, what: str) -> str:
    if isinstance(doc, bytes):
        return doc.decode("utf-8")
    if isinstance(doc, str):
        return doc
    try:
        return json.dumps(doc, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise MetadataError(f"{what} is not JSON: {err}") from None


class Chain:
    """The leading array -> array codecs of an array, bound to its data type and fill value.

    Build it with :meth:`from_array_metadata` (a whole zarr.json) or :meth:`from_codecs` (a codec
    list, e.g. the inner codecs of ``sharding_indexed``). Immutable and thread-safe.
    """

    __slots__ = ("_core", "_steps", "_inner")

    def __init__(self, core: Any, inner: list[Any] | None = None) -> None:
        # Private: use the from_* constructors.
        self._core = core
        self._inner = inner
        steps = []
        for step in core.steps:
            # zcast._json keeps numbers the core read exactly (1e400, 5000 digits) as lexemes.
            codec = _json.loads(step.spec.to_json())
            fill = step.encoded_fill_value_json
            steps.append(ChainStep(codec["name"], codec, step.encoded_type,
                                   None if fill is None else _json.loads(fill)))
        self._steps = tuple(steps)

    @classmethod
    def from_array_metadata(cls, zarr_json: str | bytes | Mapping[str, Any] | os.PathLike) -> Chain:
        """From an array's whole zarr.json: the parsed document (a dict), its JSON text (str or
        bytes whose first non-blank character is ``{``), or a path to the file or to the
        array's directory (``pathlib.Path``, or a str that is not JSON text). Only
        ``data_type``, ``fill_value`` and ``codecs`` are read (``zarr_format`` must be 3 and
        ``node_type`` "array" if present). Raises MetadataError naming the codec index and key,
        FileNotFoundError for a path that is neither."""
        if isinstance(zarr_json, (str, bytes)) and zarr_json.lstrip()[:1] not in ("{", b"{"):
            # Not a JSON object, so a path: a str such as "b04" or "b04/zarr.json" was once
            # parsed as JSON and reported as "invalid JSON at offset 0".
            zarr_json = Path(os.fsdecode(zarr_json))
        if isinstance(zarr_json, os.PathLike):
            path = Path(zarr_json)
            file = path / "zarr.json" if path.is_dir() else path
            if not file.is_file():
                raise FileNotFoundError(
                    f"{path}: no such zarr.json or array directory (Chain.from_array_metadata "
                    f"takes a dict, JSON text starting with '{{', or a path)")
            zarr_json = file.read_bytes()
        text = _json_text(zarr_json, "zarr.json")
        core = _zcast.Chain.from_array_metadata(text)
        inner = None
        if core.first_unowned_index == 0 and core.first_unowned_name == "sharding_indexed":
            inner = _inner_codecs(_json.loads(text).get("codecs"))
        if inner is not None:
            names = ", ".join(c if isinstance(c, str) else str(c.get("name")) for c in inner
                              if (c if isinstance(c, str) else c.get("name")) in OWNED_CODECS)
            warnings.warn(ShardedChainWarning(
                f"this chain owns no codec: the array's {names} sit inside sharding_indexed, so "
                f"it decodes nothing; for the shards' inner chunks use Chain.from_codecs("
                f"chain.inner_codecs, chain.data_type, fill_value) (zarr.json "
                f"codecs[0].configuration.codecs)"), stacklevel=2)
        return cls(core, inner)

    @classmethod
    def from_codecs(cls, codecs: str | Sequence[Any], data_type: Any,
                    fill_value: Any = None) -> Chain:
        """From a codec list (JSON text or a list of codec dicts / names), the array's data type
        (a Zarr name or a numpy / ml_dtypes dtype) and its fill value as in zarr.json (a number,
        ``"NaN"``, ``"0x7e00"``, ...; a float NaN or infinity is taken as such; None for none)."""
        fill_json = None if fill_value is None else _api.json_scalar(fill_value)
        return cls(_zcast.Chain.from_codecs(_json_text(codecs, "codecs"),
                                            _dtypes.zarr_name(data_type), fill_json))

    # -- what the chain resolved ---------------------------------------------------------------
    @property
    def data_type(self) -> str:
        """The array's data type (the decoded side), a Zarr name."""
        return self._core.decoded_type

    @property
    def encoded_data_type(self) -> str:
        """The data type handed to the first codec not owned (e.g. ``bytes``)."""
        return self._core.encoded_type

    @property
    def dtype(self) -> np.dtype:
        return _dtypes.numpy_dtype(self.data_type)

    @property
    def encoded_dtype(self) -> np.dtype:
        return _dtypes.numpy_dtype(self.encoded_data_type)

    @property
    def encoded_fill_value_json(self) -> Any:
        """The fill value handed on, as its JSON value (``0``, ``"NaN"``, ...), None without one."""
        text = self._core.encoded_fill_value_json
        return None if text is None else _json.loads(text)

    @property
    def encoded_fill_value(self) -> np.generic | None:
        """The fill value handed on as a scalar of :attr:`encoded_dtype` (exact), None without."""
        text = self._core.encoded_fill_value_json
        return None if text is None else _api.scalar_from_json(text, self.encoded_data_type)

    @property
    def steps(self) -> tuple[ChainStep, ...]:
        """The bound codecs in encode order."""
        return self._steps

    @property
    def owned_codecs(self) -> int:
        """How many entries of the codec list the chain owns (the index of the first it does
        not own)."""
        return self._core.first_unowned_index

    @property
    def first_unowned_codec(self) -> str | None:
        """The name of the first codec the chain does not own (``"bytes"``, ``"transpose"``,
        ``"sharding_indexed"``, ...), None when it owns them all."""
        return self._core.first_unowned_name or None

    @property
    def inner_codecs(self) -> list[Any] | None:
        """For a chain that owns nothing because the array's first codec is sharding_indexed
        whose inner codecs begin with scale_offset / cast_value: those inner codecs (the list to
        give :meth:`from_codecs`), with a ShardedChainWarning at construction. Else None."""
        return self._inner

    @property
    def remaining_codecs(self) -> list[Any]:
        """The codecs from the first one not owned to the end, as JSON values."""
        return _json.loads(self._core.remaining_codecs_json)

    # -- encode / decode -----------------------------------------------------------------------
    def encode(self, arr: Any, out: np.ndarray | None = None) -> np.ndarray:
        """Encodes an array of :attr:`dtype` (any shape, layout, byte order) into
        :attr:`encoded_dtype` through every step; returns ``out`` or a new C-contiguous array.
        Raises CastError naming the first element that fails at any step (R33), or whose stored
        value the chain could not decode back (R32: such data is refused, never written)."""
        return self._run(self._core.encode, arr, out, self.data_type, self.encoded_data_type)

    def decode(self, arr: Any, out: np.ndarray | None = None) -> np.ndarray:
        """The inverse: :attr:`encoded_dtype` -> :attr:`dtype` (e.g. a chunk's elements after the
        ``bytes`` codec, ``np.frombuffer(raw, "<u2")``)."""
        return self._run(self._core.decode, arr, out, self.encoded_data_type, self.data_type)

    def _run(self, fn: Any, arr: Any, out: np.ndarray | None, src_type: str,
             dst_type: str) -> np.ndarray:
        src = np.asarray(arr)
        if _dtypes.zarr_name(src.dtype) != src_type:
            raise TypeError(f"expected an array of {src_type}, got {src.dtype}")
        if out is None:
            out = np.empty(src.shape, dtype=_dtypes.numpy_dtype(dst_type))
        elif not isinstance(out, np.ndarray) or _dtypes.zarr_name(out.dtype) != dst_type:
            raise TypeError(f"out must be a numpy array of {dst_type}")
        try:
            _api.run(fn, src, out)
        except CastError:
            if len(self._steps) < 2:
                raise
            # Blocks run in parallel each report their own first failure; the definition is the
            # first element that fails at any step (R33) over the whole array: one call.
            _api.run(fn, src, out, parallel=False)
            raise
        return out

    def __repr__(self) -> str:
        names = ", ".join(s.name for s in self._steps) or "no codec"
        return (f"<zcast.Chain {self.data_type} -> {self.encoded_data_type} ({names}); "
                f"next: {self.first_unowned_codec}>")
