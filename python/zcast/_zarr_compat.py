"""What makes zcast.zarr's codecs drop-ins for zarr-python's: its Python forms and its phrases.

zarr-python's ``CastValue`` keeps a scalar_map as given (normalized to dicts) and writes its
entries back as tuples; its ``ScaleOffset`` defaults ``offset`` to 0 and ``scale`` to 1. Code
that swaps one class for the other meets these forms, and also the error messages: it may match
zarr's phrase for a failure ("scale must be non-zero", "outside the range of dtype int8"). The
helpers here give zcast's codecs the same forms and put zarr's phrase in front of zcast's own
message, which names the key, element, value and rule. Where zarr's form would lose what the
specification keeps (two scalar_map inputs equal as Python dict keys, such as 0.0 and -0.0,
R10), the spec wins; python/README.md lists those differences.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from zcast import _api, _dtypes
from zcast._errors import MetadataError, MetadataTypeError, brief


class Default(int):
    """The default of a scale_offset parameter that was not given: an int equal to zarr's default
    (``inspect.signature`` shows ``offset: object = 0``), told apart from an explicit 0 so that
    only a parameter that was given is written (R21: an explicit offset 0 is not the same as none:
    ``-0.0 + 0`` decodes to +0.0)."""

    __slots__ = ()


DEFAULT_OFFSET = Default(0)
DEFAULT_SCALE = Default(1)


class ScalarPairs(Mapping):
    """A scalar_map direction whose inputs collide as Python dict keys (0.0 and -0.0, 1 and 1.0,
    or a repeated input): a read-only Mapping that keeps every (input, output) pair in order, as
    the metadata has them (R10: -0.0 and 0.0 are different keys; a repeated key's first entry
    wins). zarr-python's dict would keep one of them and write one back."""

    def __init__(self, pairs: Any) -> None:
        self._pairs = tuple((k, v) for k, v in pairs)

    def __getitem__(self, key: Any) -> Any:
        for k, v in self._pairs:  # the first entry of exactly this spelling, else of this value
            if repr(k) == repr(key):
                return v
        for k, v in self._pairs:
            if k == key:
                return v
        raise KeyError(key)

    def __iter__(self) -> Any:
        return iter([k for k, _ in self._pairs])

    def __len__(self) -> int:
        return len(self._pairs)

    def items(self) -> Any:  # every pair, duplicates included (ItemsView would look keys up)
        return self._pairs

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ScalarPairs):
            return self._pairs == other._pairs
        return Mapping.__eq__(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ScalarPairs({list(self._pairs)!r})"


def normalize_scalar_map(obj: Any) -> dict[str, Mapping] | None:
    """zarr's ``parse_scalar_map``: ``{"encode": [(in, out), ...]}`` -> ``{"encode": {in: out}}``
    (a Mapping is kept as given), with a ScalarPairs where a dict would lose an entry. Unlike
    zarr's, unknown keys and wrong types are errors (R13)."""
    if obj is None:
        return None
    if not isinstance(obj, Mapping):
        raise MetadataTypeError(
            f"scalar_map must be a mapping with keys \"encode\" and/or \"decode\", got "
            f"{brief(repr(obj))}")
    unknown = [k for k in obj if k not in ("encode", "decode")]
    if unknown:
        raise MetadataError(f"unknown key {brief(repr(unknown[0]))} in scalar_map (R13); "
                            "expected \"encode\" and/or \"decode\"")
    result: dict[str, Mapping] = {}
    for direction in ("encode", "decode"):
        entries = obj.get(direction)
        if entries is None:
            continue
        if isinstance(entries, Mapping):
            result[direction] = entries
            continue
        if isinstance(entries, (str, bytes)) or not hasattr(entries, "__iter__"):
            raise MetadataTypeError(f"scalar_map {direction} must be a list of (input, output) "
                                    f"pairs or a mapping, got {brief(repr(entries))}")
        pairs = []
        for i, pair in enumerate(entries):
            try:
                key, value = pair
            except (TypeError, ValueError):
                raise MetadataError(f"scalar_map.{direction}[{i}]: expected an (input, output) "
                                    f"pair, got {brief(repr(pair))}") from None
            pairs.append((key, value))
        as_dict = dict(pairs)
        result[direction] = as_dict if len(as_dict) == len(pairs) else ScalarPairs(pairs)
    return result


def jsonable(value: Any) -> Any:
    """A scalar as zarr's to_dict would write it, made valid JSON: ints, finite floats and strings
    as given; NaN / ±inf as "NaN" / "Infinity" / "-Infinity" (JSON has no such numbers), numpy
    and ml_dtypes scalars exactly as the Python int or float (or JSON string) of their value."""
    if isinstance(value, float) and not math.isfinite(value):
        return json.loads(_api.json_scalar(value))
    if isinstance(value, np.generic) and not isinstance(value, np.bool_):
        return json.loads(_api.json_scalar(value))
    return value


def metadata_json(d: dict[str, Any], what: str) -> str:
    """``d`` as JSON text for the core's parser; a value JSON cannot hold is a TypeError (and a
    MetadataError) naming it."""
    try:
        return json.dumps(d, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise MetadataTypeError(f"{what}: {brief(str(err))}") from None


def numpy_name(name: str) -> str:
    """The dtype name zarr's messages use (``ZDType.to_native_dtype()``), for a Zarr type name."""
    return str(_dtypes.numpy_dtype(name))


def _type_range(name: str) -> str:
    dt = _dtypes.numpy_dtype(name)
    import ml_dtypes

    if _dtypes.is_integer(name):
        info = ml_dtypes.iinfo(dt) if not _dtypes.is_numpy_native(name) else np.iinfo(dt)
        return f"[{info.min}, {info.max}]"
    info = ml_dtypes.finfo(dt) if not _dtypes.is_numpy_native(name) else np.finfo(dt)
    return f"[{-float(info.max)!r}, {float(info.max)!r}]"


_SCALAR_MAP_WHERE = re.compile(r"scalar_map\.(encode|decode)\[(\d+)\]\[([01])\]")


def cast_value_metadata_phrase(message: str, scalar_map: Mapping | None, source: str | None,
                               target: str) -> str | None:
    """zarr's phrase for the cast_value metadata failure the core's ``message`` reports, or None.
    ``source`` and ``target`` are the Zarr names of the array and encoded types."""
    m = _SCALAR_MAP_WHERE.search(message)
    if m and scalar_map is not None:
        direction, i, part = m.group(1), int(m.group(2)), int(m.group(3))
        pairs = list(scalar_map.get(direction, {}).items())
        label = f"scalar_map {direction} {'key' if part == 0 else 'value'}"
        # encode maps array -> encoded values, decode the other way.
        on_source = (direction == "encode") == (part == 0)
        name = source if on_source else target
        if i < len(pairs) and name is not None:
            value = pairs[i][part]
            return f"{label} {brief(repr(value))} is not representable in dtype {numpy_name(name)}"
    if "\"wrap\" requires an integer data_type" in message:
        return ("out_of_range='wrap' is only valid for integer target types. "
                f"Got target dtype {target}")
    return None


_NO_REPRESENTATION = re.compile(r"value (NaN|-?Infinity) has no representation in (\w+)")
_OUT_OF_RANGE = re.compile(r"value (\S+) is out of the range of (\w+)")


def cast_value_element_phrase(message: str) -> str | None:
    """The phrase of zarr's cast_value backend (cast-value-rs) for the element failure the core's
    ``message`` reports: NaN or ±Inf into an integer type, or a value out of range."""
    m = _NO_REPRESENTATION.search(message)
    if m:
        special = {"NaN": "NaN", "Infinity": "inf", "-Infinity": "-inf"}[m.group(1)]
        return f"Cannot cast {special} to integer type without scalar_map"
    m = _OUT_OF_RANGE.search(message)
    if m and m.group(2) in _dtypes.NUMPY_DTYPES:
        return f"Value {m.group(1)} out of range {_type_range(m.group(2))}"
    return None


def scale_offset_metadata_phrase(message: str, offset: Any, scale: Any, array_type: str) -> str | None:
    """zarr's phrase for the scale_offset metadata failure the core's ``message`` reports."""
    if "\"scale\"" in message and (" is zero as a " in message or _zero_string(scale)):
        # A decimal string such as "0.0" is zero to zarr; to the spec it is no JSON scalar of a
        # number type at all (zcast's detail says which).
        return "scale_offset scale must be non-zero"
    for name, value in (("offset", offset), ("scale", scale)):
        if f"\"{name}\"" not in message:
            continue
        if " is not a valid " in message:
            return (f"scale_offset {name} value {brief(repr(value))} is not representable in "
                    f"dtype {numpy_name(array_type)}")
        if " must be finite" in message:
            return (f"scale_offset {name} value {brief(repr(value))} is not a finite value of "
                    f"dtype {numpy_name(array_type)}")
    return None


def _zero_string(value: Any) -> bool:
    try:
        return isinstance(value, str) and float(value) == 0
    except ValueError:
        return False


def scale_offset_element_phrase(message: str, scale: Any, array_type: str) -> str | None:
    """zarr's phrase for the scale_offset element failure the core's ``message`` reports."""
    if "(inexact integer division)" in message:
        return ("scale_offset decode produced a non-zero remainder when dividing by "
                f"scale={brief(repr(scale))}; result is not exactly representable in dtype "
                f"{numpy_name(array_type)}")
    if " is out of the range of " in message or " overflows " in message or " has no " in message:
        return (f"scale_offset produced a value outside the range of dtype "
                f"{numpy_name(array_type)} {_type_range(array_type)}")
    return None


def with_phrase(phrase: str | None, message: str) -> str:
    """zarr's phrase, then zcast's message (the detail: key, element, value, rule)."""
    return message if phrase is None else f"{phrase}: {message}"
