"""zcast's cast_value (and scale_offset) codecs for zarr-python.

zarr-python (>= 3.2) ships its own ``cast_value`` and ``scale_offset``; when several
implementations are installed it warns and picks one. Select zcast's, for the whole process or a
``with`` block::

    import zcast.zarr
    zcast.zarr.use()
    # the same as: zarr.config.set({"codecs.cast_value": "zcast.zarr.CastValue",
    #                               "codecs.scale_offset": "zcast.zarr.ScaleOffset"})

    arr = zarr.create_array(store, shape=(100,), chunks=(10,), dtype="float32",
                            filters=[zcast.zarr.CastValue(data_type="float8_e4m3")])

Importing this module also registers the data types zarr-python lacks (bfloat16, float8/6/4,
int2/int4/uint2/uint4; see zcast._zarr_dtypes), so arrays of those types work too.
"""

from __future__ import annotations

import asyncio
import functools
import json
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

import zarr
from zarr.abc.codec import ArrayArrayCodec
from zarr.core.dtype import get_data_type_from_json
from zarr.registry import register_codec

from zcast import _api, _dtypes, _zarr_compat as _compat, _zarr_dtypes, _zcast
from zcast._chain import Chain
from zcast._errors import CastError, MetadataError, MetadataTypeError, brief

if TYPE_CHECKING:
    from zarr.core.array_spec import ArraySpec
    from zarr.core.buffer import NDBuffer

__all__ = ["ENVIRONMENT", "CastValue", "ScaleOffset", "check_readable", "use"]

#: The name under which zarr's registry knows this implementation.
QUALNAME = "zcast.zarr.CastValue"


@dataclass(frozen=True, eq=False)
class CastValue(ArrayArrayCodec):
    """The cast_value codec (array -> array), computed by zcast's exact C++ core; a drop-in for
    zarr-python's ``zarr.codecs.cast_value.CastValue``.

    Parameters and attributes are zarr's: ``data_type`` (a Zarr name or ZDType; zcast also takes
    a numpy / ml_dtypes dtype), ``rounding``, ``out_of_range`` (None, "clamp" or "wrap") and
    ``scalar_map`` ({"encode": [(in, out), ...], "decode": ...}, entries as numbers or JSON
    scalar strings, or already as mappings); ``dtype`` is the encoded ZDType, ``scalar_map`` the
    normalized mappings (a ScalarPairs where a dict would lose an entry, R10). ``to_dict`` writes
    what zarr writes for the same input. The configuration is validated at construction
    (MetadataError, a ValueError; what needs the array's type when zarr validates the array); the
    fill value round trip (R9) when zarr resolves the array's metadata. Error messages start with
    zarr's phrase for the failure, followed by zcast's detail.

    ``spec_json`` is the canonical metadata the core runs; two codecs are equal when it is.
    """

    is_fixed_size = True
    dtype: Any
    rounding: str
    out_of_range: str | None
    scalar_map: Any
    spec_json: str = field(repr=False)

    def __init__(self, *, data_type: Any, rounding: str = "nearest-even",
                 out_of_range: str | None = None, scalar_map: Any = None) -> None:
        zdtype = _target_of(data_type)
        object.__setattr__(self, "dtype", zdtype)
        object.__setattr__(self, "rounding", rounding)
        object.__setattr__(self, "out_of_range", out_of_range)
        object.__setattr__(self, "scalar_map", _compat.normalize_scalar_map(scalar_map))
        text = _compat.metadata_json(self.to_dict(), "cast_value configuration")
        name = _dtypes.zarr_name(zdtype)
        try:
            spec = _api.parse_spec(text)
        except MetadataError as err:
            raise MetadataError(self._phrased(str(err), None, name)) from None
        object.__setattr__(self, "spec_json", spec.to_json())

    def _phrased(self, message: str, source: str | None, target: str) -> str:
        phrase = _compat.cast_value_metadata_phrase(message, self.scalar_map, source, target)
        if phrase is None and "\"rounding\"" in message:
            phrase = f"Unknown rounding mode: {brief(str(self.rounding))}"
        if phrase is None and "\"out_of_range\"" in message:
            phrase = f"Unknown out_of_range mode: {brief(str(self.out_of_range))}"
        return _compat.with_phrase(phrase, message)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CastValue:
        # The whole document goes to the strict C++ parser first (R11-R14), which names any
        # unknown or malformed key; then, as zarr does, the configuration is passed to __init__.
        spec = _api.parse_spec(_compat.metadata_json(data, "cast_value metadata"))
        config = dict(data["configuration"])
        # R12: a data_type object ({"name": "uint8"}) is read as its name.
        config["data_type"] = json.loads(spec.to_json())["configuration"]["data_type"]
        return cls(**config)

    def to_dict(self) -> dict[str, Any]:
        config: dict[str, Any] = {"data_type": self.dtype.to_json(zarr_format=3)}
        if self.rounding != "nearest-even":
            config["rounding"] = self.rounding
        if self.out_of_range is not None:
            config["out_of_range"] = self.out_of_range
        if self.scalar_map is not None:
            config["scalar_map"] = {
                d: [(_compat.jsonable(k), _compat.jsonable(v)) for k, v in self.scalar_map[d].items()]
                for d in ("encode", "decode") if d in self.scalar_map}
        return {"name": "cast_value", "configuration": config}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CastValue):
            return NotImplemented
        return self.spec_json == other.spec_json

    def __hash__(self) -> int:
        return hash(self.spec_json)

    # -- zcast's views of the configuration ----------------------------------------------------
    @property
    def configuration(self) -> dict[str, Any]:
        """The canonical configuration (defaults omitted), as the core reads it."""
        return json.loads(self.spec_json)["configuration"]

    @property
    def data_type(self) -> str:
        """The encoded data type's Zarr name."""
        return self.configuration["data_type"]

    # -- zarr's codec protocol -----------------------------------------------------------------
    def validate(self, *, shape: tuple[int, ...], dtype: Any, chunk_grid: Any) -> None:
        try:
            source = _dtypes.zarr_name(dtype)
        except MetadataError as err:
            raise MetadataError(
                "The cast_value codec only supports integer and floating-point data types. "
                f"Got source dtype {brief(str(_json_name(dtype)))}: {err}") from None
        # Binding without a fill value checks the array type and both scalar maps (R11).
        try:
            _api.bind(self.spec_json, source, None)
        except MetadataError as err:
            raise MetadataError(self._phrased(str(err), source, self.data_type)) from None

    def resolve_metadata(self, chunk_spec: ArraySpec) -> ArraySpec:
        _, target, fill = _resolve(self.spec_json, chunk_spec.dtype,
                                   _fill_bytes(chunk_spec.fill_value, chunk_spec.dtype))
        return replace(chunk_spec, dtype=target, fill_value=fill)

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: ArraySpec) -> int:
        try:
            source = _dtypes.numpy_dtype(_dtypes.zarr_name(chunk_spec.dtype)).itemsize
        except MetadataError as err:
            raise MetadataError(
                "cast_value codec only supports fixed-size integer and floating-point data "
                f"types. Got source dtype: {brief(str(chunk_spec.dtype))}: {err}") from None
        target = _dtypes.numpy_dtype(self.data_type).itemsize
        return input_byte_length // source * target

    def _codec_for(self, chunk_spec: ArraySpec) -> Any:
        codec, _, _ = _resolve(self.spec_json, chunk_spec.dtype,
                               _fill_bytes(chunk_spec.fill_value, chunk_spec.dtype))
        return codec

    def _encode_sync(self, chunk_array: NDBuffer, _chunk_spec: ArraySpec) -> NDBuffer | None:
        codec = self._codec_for(_chunk_spec)
        src = np.asarray(chunk_array.as_ndarray_like())
        out = np.empty(src.shape, dtype=_dtypes.numpy_dtype(codec.encoded_type))
        _run_in_chunk(codec.encode, src, out, "cast_value encode", _cast_value_phrase)
        return chunk_array.__class__.from_ndarray_like(out)

    def _decode_sync(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> NDBuffer:
        codec = self._codec_for(chunk_spec)
        src = np.asarray(chunk_array.as_ndarray_like())
        out = np.empty(src.shape, dtype=chunk_spec.dtype.to_native_dtype())
        _run_in_chunk(codec.decode, src, out, "cast_value decode", _cast_value_phrase)
        return chunk_array.__class__.from_ndarray_like(out)

    async def _encode_single(self, chunk_data: NDBuffer, chunk_spec: ArraySpec) -> NDBuffer | None:
        return await _off_loop(self._encode_sync, chunk_data, chunk_spec)

    async def _decode_single(self, chunk_data: NDBuffer, chunk_spec: ArraySpec) -> NDBuffer:
        return await _off_loop(self._decode_sync, chunk_data, chunk_spec)


# A chunk at least this large is cast on a worker thread rather than on zarr's event loop.
_OFF_LOOP_MIN_ELEMENTS = 1 << 14


async def _off_loop(fn: Callable[[Any, Any], Any], chunk: Any, chunk_spec: Any) -> Any:
    """Runs a codec's sync encode / decode of one chunk. zarr-python runs every codec coroutine on
    its one event-loop thread, which all its sync-API callers share (every dask thread of an
    xarray read): cast there, the chunks of concurrent reads would be cast one after another. The
    core releases the GIL, so a chunk worth the thread hop is cast on a worker thread
    (asyncio.to_thread), as zarr's own blosc and zstd codecs decompress, and the chunks of
    concurrent reads are cast in parallel."""
    if int(np.prod(chunk.shape)) < _OFF_LOOP_MIN_ELEMENTS:
        return fn(chunk, chunk_spec)
    return await asyncio.to_thread(fn, chunk, chunk_spec)


def _cast_value_phrase(message: str) -> str | None:
    return _compat.cast_value_element_phrase(message)


def _json_name(dtype: Any) -> Any:
    to_json = getattr(dtype, "to_json", None)
    if callable(to_json):
        try:
            return to_json(zarr_format=3)
        except Exception:  # noqa: BLE001 - only for the message
            pass
    return dtype


def _target_of(data_type: Any) -> Any:
    """The encoded ZDType of a ``data_type`` argument: a ZDType as given, a Zarr name (or a numpy
    / ml_dtypes dtype, zcast's addition) looked up in zarr's registry. zarr's phrase first."""
    if data_type is None:
        raise MetadataTypeError("Invalid target data type None: data_type is required; give a "
                                "Zarr type name, a ZDType or a numpy / ml_dtypes dtype")
    if callable(getattr(data_type, "to_json", None)) and hasattr(data_type, "to_native_dtype"):
        zdtype = data_type
    else:
        try:
            name = _dtypes.zarr_name(data_type)
        except (MetadataError, TypeError) as err:
            shown = brief(repr(data_type))
            if isinstance(data_type, str) and _known_to_zarr(data_type):
                raise MetadataError(
                    f"Invalid target data type {shown}. cast_value codec only supports integer "
                    f"and floating-point data types: {err}") from None
            raise MetadataError(
                f"Invalid target data type {shown}. No Zarr data type found that matches "
                f"{shown}: {err}") from None
        return _target_zdtype(name)
    try:
        _dtypes.zarr_name(zdtype)
    except MetadataError as err:
        raise MetadataError(
            f"Invalid target data type {brief(repr(data_type))}. cast_value codec only supports "
            f"integer and floating-point data types: {err}") from None
    return zdtype


def _known_to_zarr(name: str) -> bool:
    try:
        get_data_type_from_json(name, zarr_format=3)
    except Exception:  # noqa: BLE001 - zarr raises several types for unknown names
        return False
    return True


def _run_in_chunk(fn: Any, src: np.ndarray, out: np.ndarray, what: str,
                  phrase_of: Callable[[str], str | None]) -> None:
    try:
        _api.run(fn, src, out)
    except CastError as err:
        # The index is within the chunk: a codec does not know where its chunk lies.
        message = f"{what}, chunk of shape {src.shape}: {err}"
        raise CastError(_compat.with_phrase(phrase_of(str(err)), message),
                        index=err.index) from None


def _fill_bytes(fill: Any, zdtype: Any) -> bytes | None:
    """The fill value as raw bytes: a hashable key that tells NaN payloads and -0.0 apart."""
    if fill is None:
        return None
    return np.asarray(fill, dtype=zdtype.to_native_dtype()).tobytes()


@functools.lru_cache(maxsize=64)
def _target_zdtype(name: str) -> Any:
    return get_data_type_from_json(name, zarr_format=3)


@functools.lru_cache(maxsize=256)
def _resolve(spec_json: str, zdtype: Any, fill: bytes | None) -> tuple[Any, Any, Any]:
    """Binds the spec to one chunk spec's data type and fill value (cached per combination):
    returns the bound codec, the encoded ZDType and the encoded fill value (R9)."""
    array_type = _dtypes.zarr_name(zdtype)
    fill_json = None
    if fill is not None:
        value = np.frombuffer(fill, dtype=zdtype.to_native_dtype())[0]
        fill_json = json.dumps(zdtype.to_json_scalar(value, zarr_format=3), allow_nan=False)
    codec = _api.bind(spec_json, array_type, fill_json)
    target = _target_zdtype(codec.encoded_type)
    encoded_fill = None
    if codec.encoded_fill_value_json is not None:
        encoded_fill = target.from_json_scalar(json.loads(codec.encoded_fill_value_json),
                                               zarr_format=3)
    return codec, target, encoded_fill


@dataclass(frozen=True, eq=False)
class ScaleOffset(ArrayArrayCodec):
    """The scale_offset codec (array -> array, same data type): encode ``(x - offset) * scale``,
    decode ``x / scale + offset``, each operation exact and rounded once to the array's type
    (semantics.md, "scale_offset"); a drop-in for zarr-python's
    ``zarr.codecs.scale_offset.ScaleOffset``.

    ``offset`` (default 0) and ``scale`` (default 1) are numbers or JSON scalar strings of the
    array's type, kept as given (zcast also takes numpy scalars, and None for "not given"). A
    parameter that was not given is not written and not applied (R21); unlike zarr's, an explicit
    ``offset=0`` is written, because ``-0.0 + 0`` decodes to +0.0. ``spec_json`` is the canonical
    metadata the core runs; two codecs are equal when it is.
    """

    is_fixed_size = True
    offset: Any
    scale: Any
    spec_json: str = field(repr=False)

    def __init__(self, *, offset: object = _compat.DEFAULT_OFFSET,
                 scale: object = _compat.DEFAULT_SCALE) -> None:
        given = {}
        for name, value, default in (("offset", offset, 0), ("scale", scale, 1)):
            if value is None or isinstance(value, _compat.Default):
                value = default
            elif not isinstance(value, (int, float, str, np.integer, np.floating)):
                raise MetadataTypeError(
                    f"{name} must be a number or string, got {type(value).__name__}: "
                    f"{brief(repr(value))} is not a JSON scalar (R13)")
            else:
                given[name] = value
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_given", tuple(given))
        text = _compat.metadata_json(self.to_dict(), "scale_offset configuration")
        object.__setattr__(self, "spec_json", _parse_scale_offset(text).to_json())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScaleOffset:
        # The strict C++ parser first (R13, R21), then, as zarr does, __init__.
        _parse_scale_offset(_compat.metadata_json(data, "scale_offset metadata"))
        return cls(**(data.get("configuration") or {}))

    def to_dict(self) -> dict[str, Any]:
        config = {}
        if "offset" in self._given:
            config["offset"] = _compat.jsonable(self.offset)
        if "scale" in self._given and not _is_one(self.scale):
            config["scale"] = _compat.jsonable(self.scale)
        if not config:
            return {"name": "scale_offset"}
        return {"name": "scale_offset", "configuration": config}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ScaleOffset):
            return NotImplemented
        return self.spec_json == other.spec_json

    def __hash__(self) -> int:
        return hash(self.spec_json)

    def validate(self, *, shape: tuple[int, ...], dtype: Any, chunk_grid: Any) -> None:
        try:
            name = _dtypes.zarr_name(dtype)
        except MetadataError as err:
            raise MetadataError(
                "scale_offset codec only supports integer and floating-point data types. "
                f"Got {brief(str(dtype))}: {err}") from None
        try:
            _bind_scale_offset(self.spec_json, name, None)
        except MetadataError as err:
            phrase = _compat.scale_offset_metadata_phrase(str(err), self.offset, self.scale, name)
            raise MetadataError(_compat.with_phrase(phrase, str(err))) from None

    def resolve_metadata(self, chunk_spec: ArraySpec) -> ArraySpec:
        _, fill = _resolve_scale_offset(self.spec_json, chunk_spec.dtype,
                                        _fill_bytes(chunk_spec.fill_value, chunk_spec.dtype))
        return replace(chunk_spec, fill_value=fill)

    def compute_encoded_size(self, input_byte_length: int, _chunk_spec: ArraySpec) -> int:
        return input_byte_length

    def _run(self, chunk_array: NDBuffer, chunk_spec: ArraySpec, direction: str) -> NDBuffer:
        codec, _ = _resolve_scale_offset(self.spec_json, chunk_spec.dtype,
                                         _fill_bytes(chunk_spec.fill_value, chunk_spec.dtype))
        src = np.asarray(chunk_array.as_ndarray_like())
        out = np.empty(src.shape, dtype=chunk_spec.dtype.to_native_dtype())
        name = _dtypes.zarr_name(chunk_spec.dtype)
        _run_in_chunk(getattr(codec, direction), src, out, f"scale_offset {direction}",
                      lambda m: _compat.scale_offset_element_phrase(m, self.scale, name))
        return chunk_array.__class__.from_ndarray_like(out)

    def _decode_sync(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> NDBuffer:
        return self._run(chunk_array, chunk_spec, "decode")

    async def _decode_single(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> NDBuffer:
        return await _off_loop(self._decode_sync, chunk_array, chunk_spec)

    def _encode_sync(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> NDBuffer | None:
        return self._run(chunk_array, chunk_spec, "encode")

    async def _encode_single(self, chunk_array: NDBuffer, _chunk_spec: ArraySpec) -> NDBuffer | None:
        return await _off_loop(self._encode_sync, chunk_array, _chunk_spec)


def _is_one(value: Any) -> bool:
    """Whether a scale is the number 1 (not a string, not True): zarr omits it, and x * 1 and
    x / 1 are x exactly in every type, so omitting it keeps the meaning."""
    return (isinstance(value, (int, float, np.integer, np.floating))
            and not isinstance(value, (bool, np.bool_)) and value == 1)


@functools.lru_cache(maxsize=64)
def _parse_scale_offset(spec_json: str) -> Any:
    return _zcast.ScaleOffsetSpec.from_json(spec_json)


@functools.lru_cache(maxsize=256)
def _bind_scale_offset(spec_json: str, array_type: str, fill_json: str | None) -> Any:
    return _zcast.ScaleOffsetCodec.bind(_parse_scale_offset(spec_json), array_type, fill_json)


@functools.lru_cache(maxsize=256)
def _resolve_scale_offset(spec_json: str, zdtype: Any, fill: bytes | None) -> tuple[Any, Any]:
    """The bound scale_offset codec for one chunk spec and its encoded fill value (cached)."""
    fill_json = None
    if fill is not None:
        value = np.frombuffer(fill, dtype=zdtype.to_native_dtype())[0]
        fill_json = json.dumps(zdtype.to_json_scalar(value, zarr_format=3), allow_nan=False)
    codec = _bind_scale_offset(spec_json, _dtypes.zarr_name(zdtype), fill_json)
    encoded_fill = None
    if codec.encoded_fill_value_json is not None:
        encoded_fill = zdtype.from_json_scalar(json.loads(codec.encoded_fill_value_json),
                                               zarr_format=3)
    return codec, encoded_fill


#: The name under which zarr's registry knows zcast's scale_offset.
SCALE_OFFSET_QUALNAME = "zcast.zarr.ScaleOffset"

#: The environment form of use(), for processes started later (workers, multiprocessing): zarr's
#: configuration (donfig, prefix ZARR_, "__" between levels) reads it when zarr is imported.
ENVIRONMENT = {"ZARR_CODECS__CAST_VALUE": QUALNAME,
               "ZARR_CODECS__SCALE_OFFSET": SCALE_OFFSET_QUALNAME}


def use() -> Any:
    """Makes zarr use zcast's cast_value and scale_offset: ``zarr.config.set({"codecs.cast_value":
    "zcast.zarr.CastValue", "codecs.scale_offset": "zcast.zarr.ScaleOffset"})``. Returns the
    config-set object, so ``with zcast.zarr.use():`` limits it to a block."""
    return zarr.config.set({"codecs.cast_value": QUALNAME,
                            "codecs.scale_offset": SCALE_OFFSET_QUALNAME})


def check_readable(array: Any, values: Any) -> None:
    """Raises CastError naming the first element of ``values`` that writing to ``array`` would
    store as a value its codecs cannot decode (R28), e.g. one cast_value clamps to 32767 under
    an integer scale_offset of scale 2 (32767 / 2 is not an integer, R24). zarr-python runs
    each codec on its own, so neither of zcast's codecs sees this while writing; this runs the
    array's leading scale_offset / cast_value codecs as one zcast.Chain, encode then decode, in
    memory. ``values`` is what would be assigned to the whole array or to any part of it."""
    meta = array.metadata.to_dict()
    codecs = meta["codecs"]
    first = codecs[0] if codecs else {}
    if isinstance(first, dict) and first.get("name") == "sharding_indexed":
        # The array -> array codecs of a sharded array are the shard's inner ones.
        chain = Chain.from_codecs(first["configuration"]["codecs"], meta["data_type"],
                                  meta["fill_value"])
    else:
        chain = Chain.from_array_metadata(meta)
    if not chain.steps:
        return
    chain.decode(chain.encode(np.asarray(values, dtype=array.dtype)))


def register() -> None:
    """Registers the codecs and the extra data types with zarr (idempotent). Installed packages
    do this through entry points; importing this module does it too, for source checkouts."""
    register_codec("cast_value", CastValue)  # registered as module.qualname = QUALNAME
    register_codec("scale_offset", ScaleOffset)
    _zarr_dtypes.register()


register()
