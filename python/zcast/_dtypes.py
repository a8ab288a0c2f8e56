"""The 26 data types of zcast and their numpy / ml_dtypes dtypes.

The list itself comes from the C++ core (ZCAST_FOR_EACH_DATA_TYPE via ``_zcast.data_type_names``);
this module only knows which of them numpy has natively. Every other one is the ml_dtypes dtype of
the same name; ml_dtypes stores the sub-byte types (int2, int4, uint2, uint4, float4, float6) in one
byte per element with the value in the low bits, which is also zcast's memory layout.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from zcast import _zcast
from zcast._errors import MetadataError, brief

#: The Zarr names of the supported data types, in the core's order.
DATA_TYPES: tuple[str, ...] = tuple(_zcast.data_type_names())

_NUMPY_NATIVE = frozenset(
    ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
     "float16", "float32", "float64"]
)


def _numpy_dtype_for(name: str) -> np.dtype:
    if name in _NUMPY_NATIVE:
        return np.dtype(name)
    return np.dtype(getattr(ml_dtypes, name))


#: Zarr name -> native-byte-order numpy dtype.
NUMPY_DTYPES: dict[str, np.dtype] = {name: _numpy_dtype_for(name) for name in DATA_TYPES}
_NAME_OF: dict[np.dtype, str] = {dt: name for name, dt in NUMPY_DTYPES.items()}

# ml_dtypes types whose names look like a Zarr type but are a different format; named in errors
# because mixing them up silently changes every value.
_LOOKALIKES = {
    "float8_e4m3fn": "float8_e4m3fn (no Inf, NaN 0x7f/0xff) is not a Zarr type; Zarr's "
                     "float8_e4m3 is the IEEE-like format (ml_dtypes.float8_e4m3)",
}


def numpy_dtype(name: str) -> np.dtype:
    """The numpy dtype (native byte order) of a Zarr type name."""
    try:
        return NUMPY_DTYPES[name]
    except KeyError:
        raise MetadataError(_unsupported(name)) from None


def zarr_name(dtype: Any) -> str:
    """The Zarr name of a data type given as a Zarr name, a numpy / ml_dtypes dtype or scalar
    type, or a zarr-python ZDType. Raises MetadataError for anything outside the 26 types."""
    if dtype is None:
        # np.dtype(None) is float64: a missing type must not silently become one.
        raise TypeError("data type is None; give a Zarr type name or a numpy / ml_dtypes dtype")
    if isinstance(dtype, str):
        if dtype in NUMPY_DTYPES:
            return dtype
        try:
            dt = np.dtype(dtype)  # numpy spellings such as "<f4" or "u1"
        except TypeError:
            raise MetadataError(_unsupported(dtype)) from None
        return _name_of_numpy(dt, dtype)
    to_json = getattr(dtype, "to_json", None)
    if callable(to_json) and hasattr(dtype, "to_native_dtype"):  # a zarr-python ZDType
        name = to_json(zarr_format=3)
        if isinstance(name, str) and name in NUMPY_DTYPES:
            return name
        raise MetadataError(_unsupported(repr(name)))
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise MetadataError(_unsupported(repr(dtype))) from None
    return _name_of_numpy(dt, dtype)


def _name_of_numpy(dt: np.dtype, original: Any) -> str:
    # Byte order is a property of the memory layout, not of the value type.
    name = _NAME_OF.get(dt) or _NAME_OF.get(dt.newbyteorder("="))
    if name is None:
        raise MetadataError(_unsupported(str(dt) if not isinstance(original, str) else original))
    return name


def _unsupported(what: str) -> str:
    # R34: the name is the caller's input, quoted bounded (a 10 MB string gives a short message).
    if what in _LOOKALIKES:
        return f"unsupported data type {what!r}: {_LOOKALIKES[what]}"
    return (f"unsupported data type {brief(repr(what))}; cast_value supports: " +
            ", ".join(DATA_TYPES))


def is_numpy_native(name: str) -> bool:
    """Whether numpy has the Zarr type ``name`` itself (else it is an ml_dtypes type)."""
    return name in _NUMPY_NATIVE


def is_integer(name: str) -> bool:
    return "int" in name


def requested_dtype(dtype: Any) -> np.dtype:
    """The numpy dtype of a requested target type with the byte order it asks for: native for a
    Zarr name, the given order for a numpy dtype or type string ('>i2')."""
    native = numpy_dtype(zarr_name(dtype))
    if isinstance(dtype, str) and dtype in NUMPY_DTYPES:
        return native
    order = _numpy_order(dtype)
    return native if order in ("=", "|") else native.newbyteorder(order)


def _numpy_order(dtype: Any) -> str:
    try:
        return np.dtype(dtype).byteorder
    except TypeError:
        return "="  # a ZDType or another spelling zarr_name accepted: native


def is_native_order(dt: np.dtype) -> bool:
    return dt.isnative or dt.itemsize == 1
