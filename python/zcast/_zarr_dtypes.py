"""zarr-python data types for the cast_value types that zarr-python lacks, backed by ml_dtypes.

bfloat16, the float8 / float6 / float4 formats and int2 / int4 / uint2 / uint4 get ZDType classes
with their exact Zarr names, registered in zarr's data type registry (through the ``zarr.data_type``
entry points in pyproject.toml, and again by ``register()`` when zcast.zarr is imported). Fill
values follow semantics.md, "JSON scalars":

- integers: a JSON integer in range;
- floats: a JSON number (rounded nearest-even to the type; one that overflows a type without Inf
  is invalid, one that overflows a type with Inf becomes +-Inf), "NaN" (types with NaN only),
  "Infinity" / "-Infinity" (types with Inf only; "+Infinity" read as an alias), or "0x..." raw
  bits. Written back as the shortest decimal that round-trips in the type, "NaN" for the type's
  canonical NaN, other NaNs as full-width lower-case hex.

Every conversion of a number into one of these types goes through zcast's own exact cast (never
through ml_dtypes' astype, which has known e8m0fnu bugs).

Sub-byte types occupy one byte per element. bfloat16 is the only multi-byte one: it carries an
endianness so that the ``bytes`` codec writes ``endian``, but ml_dtypes has no byte-swapped
bfloat16, so only the host byte order can be decoded.
"""

from __future__ import annotations

import math
import numbers
import sys
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from zarr.core.dtype.common import HasEndianness, HasItemSize
from zarr.core.dtype.wrapper import ZDType
try:  # zarr >= 3.2
    from zarr.errors import DataTypeValidationError
except ImportError:  # zarr 3.1 (the newest on Python 3.11)
    from zarr.core.dtype.common import DataTypeValidationError

from zcast import _api, _dtypes
from zcast._errors import CastError, MetadataError, brief

# Special-value layout per type (zcast.hpp, ZCAST_FOR_EACH_DATA_TYPE): which JSON strings exist.
_HAS_INF = {"float8_e3m4", "float8_e4m3", "float8_e5m2", "bfloat16"}
_HAS_NAN = _HAS_INF | {"float8_e4m3b11fnuz", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"}
_INT_RANGE = {"int2": (-2, 1), "int4": (-8, 7), "uint2": (0, 3), "uint4": (0, 15)}


def _bits_dtype(itemsize: int) -> np.dtype:
    return np.dtype(np.uint8 if itemsize == 1 else np.uint16)


@dataclass(frozen=True, kw_only=True)
class _MlDType(ZDType[Any, Any], HasItemSize):
    """Common part: the native dtype is the ml_dtypes dtype of the Zarr name; v3 only."""

    _zarr_v3_name: ClassVar[str]

    @classmethod
    def _native(cls) -> np.dtype:
        return _dtypes.NUMPY_DTYPES[cls._zarr_v3_name]

    @classmethod
    def from_native_dtype(cls, dtype: Any) -> _MlDType:
        if cls._check_native_dtype(dtype):
            return cls()
        raise DataTypeValidationError(
            f"Invalid data type: {dtype}. Expected {cls._zarr_v3_name} (ml_dtypes)")

    def to_native_dtype(self) -> np.dtype:
        return self._native()

    @classmethod
    def _from_json_v2(cls, data: Any) -> _MlDType:
        # Zarr v2 has no name for these types; numpy's "<V1"-style strings mean raw bytes there.
        raise DataTypeValidationError(f"{cls._zarr_v3_name} has no Zarr v2 representation")

    @classmethod
    def _from_json_v3(cls, data: Any) -> _MlDType:
        name = cls._zarr_v3_name
        if data == name or (
            isinstance(data, dict) and data.get("name") == name
            and set(data) <= {"name", "configuration"} and data.get("configuration", {}) == {}
        ):
            return cls()
        raise DataTypeValidationError(
            f"Invalid JSON representation of {name}. Got {brief(repr(data))}, expected {name!r}.")

    def to_json(self, zarr_format: int) -> Any:
        if zarr_format == 3:
            return self._zarr_v3_name
        raise ValueError(f"{self._zarr_v3_name} cannot be stored in Zarr format {zarr_format}")

    @property
    def item_size(self) -> int:
        return self._native().itemsize

    def _from_bits(self, bits: int) -> Any:
        return np.array([bits], dtype=_bits_dtype(self.item_size)).view(self._native())[0]

    def _to_bits(self, scalar: Any) -> int:
        return int(np.asarray(scalar, dtype=self._native()).reshape(1).view(
            _bits_dtype(self.item_size))[0])

    def cast_scalar(self, data: object) -> Any:
        if not self._check_scalar(data):
            raise TypeError(
                f"Cannot convert object {brief(repr(data))} with type {type(data)} to a scalar compatible "
                f"with the data type {self._zarr_v3_name}.")
        try:
            return self._cast_scalar_unchecked(data)
        except (CastError, MetadataError) as err:
            raise ValueError(f"{brief(repr(data))} is not a valid {self._zarr_v3_name} value: {err}") from None


@dataclass(frozen=True, kw_only=True)
class _MlInt(_MlDType):
    def _check_scalar(self, data: object) -> bool:
        if isinstance(data, (bool, np.bool_)):
            return False
        if isinstance(data, numbers.Integral):
            return True
        if isinstance(data, float):
            return data.is_integer()
        return isinstance(data, np.generic) and data.dtype in _dtypes.NUMPY_DTYPES.values()

    def _cast_scalar_unchecked(self, data: Any) -> Any:
        if isinstance(data, np.generic) and data.dtype == self._native():
            return data
        if isinstance(data, np.generic) and not isinstance(data, np.integer):
            # an ml_dtypes scalar: exact cast_value cast, which rejects fractions and overflow
            return _api.cast_array(np.asarray(data), self._native())[()]
        value = int(data)
        lo, hi = _INT_RANGE[self._zarr_v3_name]
        if not lo <= value <= hi:
            raise ValueError(f"{value} is out of the range [{lo}, {hi}] of {self._zarr_v3_name}")
        return np.array(value).astype(self._native())[()]

    def default_scalar(self) -> Any:
        return self._from_bits(0)

    def from_json_scalar(self, data: Any, *, zarr_format: int) -> Any:
        if isinstance(data, bool) or not isinstance(data, int):
            raise TypeError(f"Invalid {self._zarr_v3_name} fill value {brief(repr(data))}: expected an integer")
        return self.cast_scalar(data)

    def to_json_scalar(self, data: object, *, zarr_format: int) -> int:
        return int(self.cast_scalar(data))


@dataclass(frozen=True, kw_only=True)
class _MlFloat(_MlDType):
    def _check_scalar(self, data: object) -> bool:
        if isinstance(data, (bool, np.bool_)):
            return False
        if isinstance(data, str):
            return data in ("NaN", "Infinity", "-Infinity", "+Infinity") or data.startswith("0x")
        return isinstance(data, (numbers.Real, np.generic))

    def _cast_scalar_unchecked(self, data: Any) -> Any:
        name = self._zarr_v3_name
        if isinstance(data, np.generic) and data.dtype == self._native():
            return data  # as is: a cast would replace a NaN payload by the canonical NaN (R3)
        if isinstance(data, str):
            return self._from_json_string(data)
        if isinstance(data, numbers.Integral) and -(2**63) <= int(data) < 2**63:
            src = np.array(int(data), dtype=np.int64)  # exact, no detour through float64
        elif isinstance(data, numbers.Integral):
            src = np.array(math.copysign(math.inf, int(data)))  # overflows every type
        elif isinstance(data, np.generic) and data.dtype in _dtypes.NUMPY_DTYPES.values():
            src = np.asarray(data)
        else:
            src = np.array(float(data))
        # A finite value that overflows becomes +-Inf in a type with Inf (IEEE rounding), and is
        # invalid in a type without (semantics.md, JSON scalars): R1's clamp gives exactly that.
        out_of_range = "clamp" if name in _HAS_INF else None
        return _api.cast_array(src, self._native(), out_of_range=out_of_range)[()]

    def _from_json_string(self, data: str) -> Any:
        name = self._zarr_v3_name
        if data == "NaN":
            if name not in _HAS_NAN:
                raise ValueError(f'"NaN" is not a valid {name} value: {name} has no NaN')
            return _api.cast_array(np.array(np.nan), self._native())[()]
        if data in ("Infinity", "+Infinity", "-Infinity"):
            if name not in _HAS_INF:
                raise ValueError(f'"{data}" is not a valid {name} value: {name} has no Inf')
            return _api.cast_array(np.array(-math.inf if data[0] == "-" else math.inf),
                                   self._native())[()]
        digits = data[2:]
        width = 2 * self.item_size
        if not data.startswith("0x") or not 0 < len(digits) <= width or any(
                c not in "0123456789abcdefABCDEF" for c in digits):
            raise ValueError(f"{brief(repr(data))} is not a valid {name} value: expected \"0x\" and at most "
                             f"{width} hex digits")
        bits = int(digits, 16)
        value_bits = _VALUE_BITS[name]
        if bits >> value_bits:
            raise ValueError(f"{brief(repr(data))} is not a valid {name} value: more than {value_bits} bits")
        return self._from_bits(bits)

    def default_scalar(self) -> Any:
        # All-zero bits: 0.0 in every type but float8_e8m0fnu, which has no zero (0x00 is 2^-127).
        return self._from_bits(0)

    def from_json_scalar(self, data: Any, *, zarr_format: int) -> Any:
        if isinstance(data, bool) or not isinstance(data, (int, float, str)):
            raise TypeError(f"Invalid {self._zarr_v3_name} fill value {brief(repr(data))}: expected a "
                            "number, \"NaN\", \"Infinity\", \"-Infinity\" or \"0x...\"")
        return self.cast_scalar(data)

    def to_json_scalar(self, data: object, *, zarr_format: int) -> float | str:
        name = self._zarr_v3_name
        scalar = self.cast_scalar(data)
        bits = self._to_bits(scalar)
        value = float(scalar)
        if math.isnan(value):
            canonical = self._to_bits(_api.cast_array(np.array(math.nan), self._native())[()])
            return "NaN" if bits == canonical else f"0x{bits:0{2 * self.item_size}x}"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        # The shortest decimal that reads back as the same value (through from_json_scalar).
        for digits in range(1, 18):
            text = f"{value:.{digits}g}"
            try:
                if self._to_bits(self._cast_scalar_unchecked(float(text))) == bits:
                    return float(text)
            except CastError:  # a shorter decimal beyond the range of a type without Inf
                continue
        return value


_VALUE_BITS = {"float4_e2m1fn": 4, "float6_e2m3fn": 6, "float6_e3m2fn": 6, "bfloat16": 16}


def _make(class_name: str, zarr_name: str, base: type) -> type:
    native = _dtypes.NUMPY_DTYPES[zarr_name]
    cls = type(class_name, (base,), {
        "__module__": __name__,
        "__qualname__": class_name,
        "__doc__": f"The Zarr data type {zarr_name}, backed by ml_dtypes.{zarr_name}.",
        "dtype_cls": type(native),
        "_zarr_v3_name": zarr_name,
    })
    return dataclass(frozen=True, kw_only=True)(cls)


Int2 = _make("Int2", "int2", _MlInt)
Int4 = _make("Int4", "int4", _MlInt)
UInt2 = _make("UInt2", "uint2", _MlInt)
UInt4 = _make("UInt4", "uint4", _MlInt)
Float4E2M1FN = _make("Float4E2M1FN", "float4_e2m1fn", _MlFloat)
Float6E2M3FN = _make("Float6E2M3FN", "float6_e2m3fn", _MlFloat)
Float6E3M2FN = _make("Float6E3M2FN", "float6_e3m2fn", _MlFloat)
Float8E3M4 = _make("Float8E3M4", "float8_e3m4", _MlFloat)
Float8E4M3 = _make("Float8E4M3", "float8_e4m3", _MlFloat)
Float8E4M3B11FNUZ = _make("Float8E4M3B11FNUZ", "float8_e4m3b11fnuz", _MlFloat)
Float8E4M3FNUZ = _make("Float8E4M3FNUZ", "float8_e4m3fnuz", _MlFloat)
Float8E5M2 = _make("Float8E5M2", "float8_e5m2", _MlFloat)
Float8E5M2FNUZ = _make("Float8E5M2FNUZ", "float8_e5m2fnuz", _MlFloat)
Float8E8M0FNU = _make("Float8E8M0FNU", "float8_e8m0fnu", _MlFloat)


@dataclass(frozen=True, kw_only=True)
class BFloat16(_MlFloat, HasEndianness):
    """The Zarr data type bfloat16, backed by ml_dtypes.bfloat16 (host byte order only)."""

    dtype_cls = type(_dtypes.NUMPY_DTYPES["bfloat16"])
    _zarr_v3_name = "bfloat16"

    @classmethod
    def from_native_dtype(cls, dtype: Any) -> BFloat16:
        if cls._check_native_dtype(dtype):
            return cls(endianness=sys.byteorder)
        raise DataTypeValidationError(f"Invalid data type: {dtype}. Expected bfloat16 (ml_dtypes)")

    def to_native_dtype(self) -> np.dtype:
        if self.endianness != sys.byteorder:
            raise ValueError(
                f"bfloat16 in {self.endianness}-endian byte order is not supported: ml_dtypes has "
                f"no byte-swapped bfloat16 (use the bytes codec with endian={sys.byteorder!r})")
        return self._native()


for _name in ("float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fnuz",
              "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu"):
    _VALUE_BITS[_name] = 8

#: Every data type this module supplies, by Zarr name.
DATA_TYPES: dict[str, type] = {
    cls._zarr_v3_name: cls
    for cls in (BFloat16, Float8E3M4, Float8E4M3, Float8E4M3B11FNUZ, Float8E4M3FNUZ, Float8E5M2,
                Float8E5M2FNUZ, Float8E8M0FNU, Float6E2M3FN, Float6E3M2FN, Float4E2M1FN, Int2,
                Int4, UInt2, UInt4)
}


def register() -> None:
    """Adds these data types to zarr's registry where zarr has none of that name (idempotent)."""
    from zarr.core.dtype import data_type_registry

    data_type_registry._lazy_load()  # noqa: SLF001 - let entry points register first
    for name, cls in DATA_TYPES.items():
        if name not in data_type_registry.contents:
            data_type_registry.register(name, cls)
