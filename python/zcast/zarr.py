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

import functools
import json
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

import zarr
from zarr.abc.codec import ArrayArrayCodec
from zarr.core.dtype import get_data_type_from_json
from zarr.registry import register_codec

from zcast import _api, _dtypes, _zarr_dtypes, _zcast
from zcast._chain import Chain
from zcast._errors import CastError, MetadataError

if TYPE_CHECKING:
    from zarr.core.array_spec import ArraySpec
    from zarr.core.buffer import NDBuffer

__all__ = ["ENVIRONMENT", "CastValue", "ScaleOffset", "check_readable", "use"]

#: The name under which zarr's registry knows this implementation.
QUALNAME = "zcast.zarr.CastValue"


@dataclass(frozen=True)
class CastValue(ArrayArrayCodec):
    """The cast_value codec (array -> array), computed by zcast's exact C++ core.

    Parameters mirror the codec's configuration: ``data_type`` (a Zarr name, numpy / ml_dtypes
    dtype or ZDType), ``rounding``, ``out_of_range`` (None, "clamp" or "wrap") and ``scalar_map``
    ({"encode": [[in, out], ...], "decode": [[in, out], ...]}, entries as numbers or JSON scalar
    strings). The configuration is validated at construction (MetadataError, a ValueError); the
    fill value round trip (R9) when zarr resolves the array's metadata.

    ``spec_json`` is the canonical metadata (defaults omitted), which is also what ``to_dict``
    writes; two codecs are equal when their metadata is.
    """

    is_fixed_size = True
    spec_json: str

    def __init__(self, *, data_type: Any, rounding: str = "nearest-even",
                 out_of_range: str | None = None,
                 scalar_map: dict[str, Any] | None = None) -> None:
        encode_map = decode_map = None
        if scalar_map is not None:
            if not isinstance(scalar_map, dict) or set(scalar_map) - {"encode", "decode"}:
                raise MetadataError(
                    f"scalar_map must be an object with keys \"encode\" and/or \"decode\", got "
                    f"{scalar_map!r}")
            encode_map = scalar_map.get("encode")
            decode_map = scalar_map.get("decode")
        text = _api.codec_json(data_type, rounding=rounding, out_of_range=out_of_range,
                               scalar_map=encode_map, decode_map=decode_map)
        if scalar_map is not None and encode_map is None and decode_map is None:
            text = text[:-2] + ',"scalar_map":{}}}'
        object.__setattr__(self, "spec_json", _api.parse_spec(text).to_json())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CastValue:
        # The whole document goes to the strict C++ parser (R11-R13), which names any unknown or
        # malformed key; nothing is interpreted here first.
        return _from_spec(cls, _api.parse_spec(json.dumps(data, allow_nan=False)))

    def to_dict(self) -> dict[str, Any]:
        return json.loads(self.spec_json)

    # -- the configuration, for display and for code that inspects codecs ---------------------
    @property
    def configuration(self) -> dict[str, Any]:
        return self.to_dict()["configuration"]

    @property
    def data_type(self) -> str:
        return self.configuration["data_type"]

    @property
    def rounding(self) -> str:
        return self.configuration.get("rounding", "nearest-even")

    @property
    def out_of_range(self) -> str | None:
        return self.configuration.get("out_of_range")

    @property
    def scalar_map(self) -> dict[str, list[list[Any]]] | None:
        return self.configuration.get("scalar_map")

    @property
    def dtype(self) -> Any:
        """The encoded data type as a zarr ZDType."""
        return _target_zdtype(self.data_type)

    # -- zarr's codec protocol -----------------------------------------------------------------
    def validate(self, *, shape: tuple[int, ...], dtype: Any, chunk_grid: Any) -> None:
        # Binding without a fill value checks the array type and both scalar maps (R11).
        _api.bind(self.spec_json, _dtypes.zarr_name(dtype), None)

    def resolve_metadata(self, chunk_spec: ArraySpec) -> ArraySpec:
        _, target, fill = _resolve(self.spec_json, chunk_spec.dtype,
                                   _fill_bytes(chunk_spec.fill_value, chunk_spec.dtype))
        return replace(chunk_spec, dtype=target, fill_value=fill)

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: ArraySpec) -> int:
        source = _dtypes.numpy_dtype(_dtypes.zarr_name(chunk_spec.dtype)).itemsize
        target = _dtypes.numpy_dtype(self.data_type).itemsize
        return input_byte_length // source * target

    def _codec_for(self, chunk_spec: ArraySpec) -> Any:
        codec, _, _ = _resolve(self.spec_json, chunk_spec.dtype,
                               _fill_bytes(chunk_spec.fill_value, chunk_spec.dtype))
        return codec

    def _encode_sync(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> NDBuffer | None:
        codec = self._codec_for(chunk_spec)
        src = np.asarray(chunk_array.as_ndarray_like())
        out = np.empty(src.shape, dtype=_dtypes.numpy_dtype(codec.encoded_type))
        _run_in_chunk(codec.encode, src, out, "encode")
        return chunk_array.__class__.from_ndarray_like(out)

    def _decode_sync(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> NDBuffer:
        codec = self._codec_for(chunk_spec)
        src = np.asarray(chunk_array.as_ndarray_like())
        out = np.empty(src.shape, dtype=chunk_spec.dtype.to_native_dtype())
        _run_in_chunk(codec.decode, src, out, "decode")
        return chunk_array.__class__.from_ndarray_like(out)

    async def _encode_single(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> NDBuffer | None:
        return self._encode_sync(chunk_array, chunk_spec)

    async def _decode_single(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> NDBuffer:
        return self._decode_sync(chunk_array, chunk_spec)


def _from_spec(cls: type, spec: Any) -> Any:
    """A codec of ``cls`` holding a parsed spec's canonical metadata. ``__init__`` is bypassed: it
    builds the metadata from keyword arguments, and the spec here is already parsed and checked."""
    codec = object.__new__(cls)
    object.__setattr__(codec, "spec_json", spec.to_json())
    return codec


def _run_in_chunk(fn: Any, src: np.ndarray, out: np.ndarray, direction: str) -> None:
    try:
        _api.run(fn, src, out)
    except CastError as err:
        # The index is within the chunk: a codec does not know where its chunk lies.
        raise CastError(f"cast_value {direction}, chunk of shape {src.shape}: {err}",
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


@dataclass(frozen=True)
class ScaleOffset(ArrayArrayCodec):
    """The scale_offset codec (array -> array, same data type): encode ``(x - offset) * scale``,
    decode ``x / scale + offset``, each operation exact and rounded once to the array's type
    (semantics.md, "scale_offset"). ``offset`` and ``scale`` are numbers or JSON scalar strings
    of the array's type; an omitted one is not applied. ``spec_json`` is the metadata as read.
    """

    is_fixed_size = True
    spec_json: str

    def __init__(self, *, offset: Any = None, scale: Any = None) -> None:
        config = []
        if offset is not None:
            config.append(f'"offset":{_api.json_scalar(offset)}')
        if scale is not None:
            config.append(f'"scale":{_api.json_scalar(scale)}')
        text = '{"name":"scale_offset","configuration":{' + ",".join(config) + "}}"
        object.__setattr__(self, "spec_json", _parse_scale_offset(text).to_json())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScaleOffset:
        return _from_spec(cls, _parse_scale_offset(json.dumps(data, allow_nan=False)))

    def to_dict(self) -> dict[str, Any]:
        return json.loads(self.spec_json)

    @property
    def offset(self) -> Any:
        return (self.to_dict().get("configuration") or {}).get("offset")

    @property
    def scale(self) -> Any:
        return (self.to_dict().get("configuration") or {}).get("scale")

    def validate(self, *, shape: tuple[int, ...], dtype: Any, chunk_grid: Any) -> None:
        _bind_scale_offset(self.spec_json, _dtypes.zarr_name(dtype), None)

    def resolve_metadata(self, chunk_spec: ArraySpec) -> ArraySpec:
        _, fill = _resolve_scale_offset(self.spec_json, chunk_spec.dtype,
                                        _fill_bytes(chunk_spec.fill_value, chunk_spec.dtype))
        return replace(chunk_spec, fill_value=fill)

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: ArraySpec) -> int:
        return input_byte_length

    def _run(self, chunk_array: NDBuffer, chunk_spec: ArraySpec, direction: str) -> NDBuffer:
        codec, _ = _resolve_scale_offset(self.spec_json, chunk_spec.dtype,
                                         _fill_bytes(chunk_spec.fill_value, chunk_spec.dtype))
        src = np.asarray(chunk_array.as_ndarray_like())
        out = np.empty(src.shape, dtype=chunk_spec.dtype.to_native_dtype())
        try:
            _api.run(getattr(codec, direction), src, out)
        except CastError as err:
            raise CastError(f"scale_offset {direction}, chunk of shape {src.shape}: {err}",
                            index=err.index) from None
        return chunk_array.__class__.from_ndarray_like(out)

    def _encode_sync(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> NDBuffer | None:
        return self._run(chunk_array, chunk_spec, "encode")

    def _decode_sync(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> NDBuffer:
        return self._run(chunk_array, chunk_spec, "decode")

    async def _encode_single(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> NDBuffer | None:
        return self._encode_sync(chunk_array, chunk_spec)

    async def _decode_single(self, chunk_array: NDBuffer, chunk_spec: ArraySpec) -> NDBuffer:
        return self._decode_sync(chunk_array, chunk_spec)


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
