"""zcast.zarr.CastValue and the extra data types inside zarr-python."""

from __future__ import annotations

import importlib.metadata
import json
import math
import warnings

import ml_dtypes
import numpy as np
import pytest
import zarr
from zarr.registry import get_codec_class

import zcast
import zcast.zarr as zz
from conftest import bits
from test_api import FLOATS, INTS


@pytest.fixture(autouse=True)
def use_zcast():
    with zz.use():
        yield


def make(store, name, data_shape=(37,), chunks=(8,), dtype="float32", fill_value=0, **cv):
    return zarr.create_array(store, name=name, shape=data_shape, chunks=chunks, dtype=dtype,
                             fill_value=fill_value, filters=[zz.CastValue(**cv)])


def reopen(store, name):
    return zarr.open_array(store, path=name, mode="r")


# ---- registration and metadata ----------------------------------------------------------------


def test_entry_points_and_config_selection():
    eps = importlib.metadata.entry_points(group="zarr.codecs")
    assert any(e.name == "cast_value" and e.value == "zcast.zarr:CastValue" for e in eps)
    dts = {e.name for e in importlib.metadata.entry_points(group="zarr.data_type")}
    assert {"bfloat16", "float8_e4m3", "int4", "float8_e8m0fnu"} <= dts
    assert get_codec_class("cast_value") is zz.CastValue
    with zarr.config.set({"codecs.cast_value": "zcast.zarr.CastValue"}):
        assert get_codec_class("cast_value") is zz.CastValue


def test_to_dict_omits_defaults_and_round_trips():
    assert zz.CastValue(data_type="uint8").to_dict() == {
        "name": "cast_value", "configuration": {"data_type": "uint8"}}
    full = {"name": "cast_value", "configuration": {
        "data_type": "int16", "rounding": "towards-zero", "out_of_range": "clamp",
        "scalar_map": {"encode": [["NaN", -32768], [-0.0, 1]], "decode": [[-32768, "NaN"]]}}}
    codec = zz.CastValue.from_dict(full)
    # zarr-python's form: entries as tuples, the same JSON.
    assert codec.to_dict()["configuration"]["scalar_map"]["encode"] == [("NaN", -32768), (-0.0, 1)]
    assert json.loads(json.dumps(codec.to_dict())) == full
    assert math.copysign(1, codec.to_dict()["configuration"]["scalar_map"]["encode"][1][0]) == -1
    assert codec == zz.CastValue(data_type="int16", rounding="towards-zero",
                                 out_of_range="clamp", scalar_map=full["configuration"]["scalar_map"])
    assert (codec.data_type, codec.rounding, codec.out_of_range) == ("int16", "towards-zero", "clamp")
    # R12: data_type as an object is read and written back as the string form.
    obj = zz.CastValue.from_dict({"name": "cast_value",
                                  "configuration": {"data_type": {"name": "uint8"}}})
    assert obj.to_dict()["configuration"]["data_type"] == "uint8"


@pytest.mark.parametrize("config, key", [
    ({"data_type": "uint8", "bogus": 1}, "bogus"),
    ({"data_type": "uint9"}, "uint9"),
    ({"data_type": "uint8", "rounding": "up"}, "up"),
    ({"data_type": "float16", "out_of_range": "wrap"}, "wrap"),
    ({"data_type": "uint8", "scalar_map": {"encode": [[1]]}}, "scalar_map"),
    ({"data_type": "uint8", "scalar_map": {"sideways": []}}, "sideways"),
    ({}, "data_type"),
])
def test_from_dict_is_strict(config, key):
    with pytest.raises(zcast.MetadataError, match=key):
        zz.CastValue.from_dict({"name": "cast_value", "configuration": config})


# ---- round trips -------------------------------------------------------------------------------


@pytest.mark.parametrize("target", INTS + FLOATS)
def test_round_trip_every_target_type_partial_chunks(tmp_store, target):
    # Values every target holds exactly: small non-negative integers, except e8m0 (powers of 2).
    if target == "float8_e8m0fnu":
        values = np.array([2.0 ** (k % 9 - 4) for k in range(37)], dtype=np.float32)
        fill = 1.0
    else:
        hi = 3 if target in ("uint2", "int2", "float4_e2m1fn") else 7
        values = (np.arange(37) % (hi + 1)).astype(np.float32)
        if target == "int2":
            values -= 2
        fill = 0
    zarr.group(tmp_store)
    a = make(tmp_store, "a", fill_value=fill, data_type=target)
    a[:] = values
    b = reopen(tmp_store, "a")
    np.testing.assert_array_equal(b[:], values)
    np.testing.assert_array_equal(b[5:30], values[5:30])
    meta = json.loads((tmp_store.root / "a" / "zarr.json").read_text())
    assert meta["codecs"][0] == {"name": "cast_value", "configuration": {"data_type": target}}


def test_float32_stored_as_float8_e4m3_2d_sharded(tmp_store):
    rng = np.random.default_rng(3)
    data = rng.normal(0, 20, size=(30, 50)).astype(np.float32)
    zarr.group(tmp_store)
    a = zarr.create_array(tmp_store, name="s", shape=data.shape, chunks=(8, 16), shards=(16, 32),
                          dtype="float32", fill_value=np.nan,
                          filters=[zz.CastValue(data_type="float8_e4m3", out_of_range="clamp")])
    a[:] = data
    a[3:7, 40:] = np.nan
    expected = zcast.cast_array(zcast.cast_array(data, "float8_e4m3", out_of_range="clamp"),
                                "float32")
    expected[3:7, 40:] = np.nan
    got = reopen(tmp_store, "s")[:]
    np.testing.assert_array_equal(bits(got), bits(expected))
    inner = json.loads((tmp_store.root / "s" / "zarr.json").read_text())["codecs"][0]
    assert inner["name"] == "sharding_indexed"
    assert inner["configuration"]["codecs"][0]["name"] == "cast_value"


def test_fill_value_nan_mapped_and_missing_chunks(tmp_store):
    zarr.group(tmp_store)
    nan_map = {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}
    a = make(tmp_store, "f", fill_value=np.nan, data_type="uint8", out_of_range="clamp",
             scalar_map=nan_map)
    a[0:8] = np.array([np.nan, 1, 2, 300, -5, 3.5, 4.5, 254.5], dtype=np.float32)
    got = reopen(tmp_store, "f")[:]
    np.testing.assert_array_equal(got[:8], [np.nan, 1, 2, 255, np.nan, 4, 4, 254])
    assert np.isnan(got[8:]).all()  # chunks never written read as the fill value
    # The encoded fill value handed to the next codec is encode(NaN) = 0.
    from zarr.core.array_spec import ArrayConfig, ArraySpec

    chunk_spec = ArraySpec(shape=(8,), dtype=a.metadata.data_type, fill_value=np.float32(np.nan),
                           config=ArrayConfig.from_dict({}),
                           prototype=zarr.core.buffer.default_buffer_prototype())
    spec = zz.CastValue(data_type="uint8", scalar_map=nan_map).resolve_metadata(chunk_spec)
    assert spec.fill_value == 0 and spec.dtype.to_json(zarr_format=3) == "uint8"


@pytest.mark.parametrize("fill, config, match", [
    (np.nan, {"data_type": "uint8"}, "NaN"),                       # R3: no NaN in uint8
    (0.1, {"data_type": "uint8", "out_of_range": "clamp"}, "R9"),  # 0.1 -> 0 -> 0.0
    (np.nan, {"data_type": "uint8", "scalar_map": {"encode": [["NaN", 0]]}}, "R9"),  # no decode
    (300, {"data_type": "uint8", "out_of_range": "clamp"}, "R9"),
])
def test_fill_value_round_trip_is_checked(tmp_store, fill, config, match):
    zarr.group(tmp_store)
    with pytest.raises(ValueError, match=match):
        make(tmp_store, "bad", fill_value=fill, **config)


def test_cast_error_inside_zarr_names_chunk_index(tmp_store):
    zarr.group(tmp_store)
    a = make(tmp_store, "e", data_shape=(4, 6), chunks=(2, 3), data_type="int8")
    data = np.zeros((4, 6), dtype=np.float32)
    data[3, 4] = 200
    with pytest.raises(zcast.CastError, match=r"encode, chunk of shape \(2, 3\): element \(1, 1\)"):
        a[:] = data


def test_transpose_before_cast_value_and_big_endian_array(tmp_store):
    zarr.group(tmp_store)
    data = np.arange(24, dtype=">f8").reshape(4, 6) / 4
    a = zarr.create_array(tmp_store, name="t", shape=data.shape, chunks=(4, 6), dtype=">f8",
                          fill_value=0, filters=[zarr.codecs.TransposeCodec(order=(1, 0)),
                                                 zz.CastValue(data_type="bfloat16")])
    a[:] = data
    np.testing.assert_array_equal(reopen(tmp_store, "t")[:], data)


# ---- arrays *of* the extra data types ----------------------------------------------------------


@pytest.mark.parametrize("name, fill, values", [
    ("float8_e4m3", 0.5, [1.0, -2.0, 240.0, np.nan]),
    ("float8_e5m2", "Infinity", [1.0, 57344.0, -np.inf]),
    ("float8_e4m3fnuz", "NaN", [0.25, -240.0]),
    ("float8_e8m0fnu", 1.0, [2.0**-127, 4.0]),
    ("bfloat16", 1.5, [3.0, -0.0, 2.0**126]),
    ("float4_e2m1fn", -0.0, [6.0, -0.5]),
    ("float6_e3m2fn", 28.0, [0.0625]),
    ("int4", -8, [7, -3]),
    ("uint2", 3, [0, 2]),
])
def test_arrays_of_extra_types(tmp_store, name, fill, values):
    zarr.group(tmp_store)
    dt = zcast.numpy_dtype(name)
    a = zarr.create_array(tmp_store, name="x", shape=(6,), chunks=(4,), dtype=name,
                          fill_value=fill)
    data = np.array(values, dtype=np.float64)
    a[: len(values)] = zcast.cast_array(data, dt)
    b = reopen(tmp_store, "x")
    assert b.dtype == dt
    got = b[:]
    np.testing.assert_array_equal(zcast.cast_array(got[: len(values)], "float64"), data)
    expected_fill = zcast.cast_array(np.array(float(fill) if not isinstance(fill, str) else
                                              {"NaN": np.nan, "Infinity": np.inf}[fill]), dt)
    np.testing.assert_array_equal(bits(got[len(values):]), bits(expected_fill).repeat(6 - len(values)))
    meta = json.loads((tmp_store.root / "x" / "zarr.json").read_text())
    assert meta["data_type"] == name
    assert meta["fill_value"] == fill or (fill == -0.0 and meta["fill_value"] == -0.0)


@pytest.mark.parametrize("name, json_fill, error", [
    ("float8_e4m3fnuz", "Infinity", "no Inf"),
    ("float4_e2m1fn", "NaN", "no NaN"),
    ("float8_e8m0fnu", 0, "range"),
    ("float8_e4m3fnuz", 1000.0, "range"),
    ("int4", 8, "range"),
    ("uint2", 1.5, "integer"),
    ("float8_e4m3", "0x1ff", "bits|digits"),
])
def test_extra_type_fill_value_rules(name, json_fill, error):
    zdtype = zarr.core.dtype.get_data_type_from_json(name, zarr_format=3)
    with pytest.raises((ValueError, TypeError), match=error):
        zdtype.from_json_scalar(json_fill, zarr_format=3)


def test_extra_type_fill_value_json_forms():
    get = lambda n: zarr.core.dtype.get_data_type_from_json(n, zarr_format=3)  # noqa: E731
    e4m3 = get("float8_e4m3")
    assert e4m3.to_json_scalar(e4m3.from_json_scalar(0.1, zarr_format=3), zarr_format=3) == 0.1
    assert e4m3.to_json_scalar(e4m3.from_json_scalar("0x7c", zarr_format=3), zarr_format=3) == "NaN"
    assert e4m3.to_json_scalar(e4m3.from_json_scalar("0x7d", zarr_format=3), zarr_format=3) == "0x7d"
    assert e4m3.to_json_scalar(e4m3.from_json_scalar("+Infinity", zarr_format=3),
                               zarr_format=3) == "Infinity"
    assert e4m3.to_json_scalar(e4m3.from_json_scalar(1e6, zarr_format=3),
                               zarr_format=3) == "Infinity"  # overflow with Inf -> Inf
    bf = get("bfloat16")
    assert bf.to_json_scalar(bf.from_json_scalar(0.1, zarr_format=3), zarr_format=3) == 0.1
    neg0 = bf.to_json_scalar(-0.0, zarr_format=3)
    assert neg0 == 0 and math.copysign(1, neg0) == -1
    e8 = get("float8_e8m0fnu")
    assert e8.to_json_scalar(e8.default_scalar(), zarr_format=3) == 6e-39  # shortest: 2^-127
    assert float(e8.from_json_scalar(6e-39, zarr_format=3)) == 2.0**-127
    assert get("int4").to_json_scalar(-8, zarr_format=3) == -8
    with pytest.raises(ValueError, match="Zarr format 2"):
        bf.to_json(zarr_format=2)


def test_extra_types_do_not_shadow_numpy_types():
    from zarr.core.dtype import get_data_type_from_native_dtype

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zarr warns that raw bytes have no v3 spec yet
        assert get_data_type_from_native_dtype(np.dtype("V2")).to_json(zarr_format=3) != "bfloat16"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert get_data_type_from_native_dtype(np.dtype(ml_dtypes.bfloat16)).to_json(
            zarr_format=3) == "bfloat16"
        assert get_data_type_from_native_dtype(np.dtype("float16")).to_json(
            zarr_format=3) == "float16"


# ---- scale_offset, the companion codec --------------------------------------------------------


def test_scale_offset_then_cast_value(tmp_store):
    zarr.group(tmp_store)
    data = np.array([np.nan, -17.3, 0.1, 44.0, 12.25], dtype=np.float32)
    a = zarr.create_array(tmp_store, name="so", shape=(7,), chunks=(3,), dtype="float32",
                          fill_value=np.nan,
                          filters=[zz.ScaleOffset(offset=-20, scale=3.5),
                                   zz.CastValue(data_type="uint8",
                                                scalar_map={"encode": [["NaN", 0]],
                                                            "decode": [[0, "NaN"]]})])
    a[:5] = data
    got = reopen(tmp_store, "so")[:]
    # (x + 20) * 3.5 in float32, rounded to uint8, then back: u / 3.5 - 20 in float32.
    scaled = (data[1:] + np.float32(20)) * np.float32(3.5)
    stored = zcast.cast_array(scaled, "uint8")
    expected = stored.astype(np.float32) / np.float32(3.5) + np.float32(-20)
    np.testing.assert_array_equal(got[1:5], expected)
    assert np.isnan(got[0]) and np.isnan(got[5:]).all()
    meta = json.loads((tmp_store.root / "so" / "zarr.json").read_text())
    assert meta["codecs"][0] == {"name": "scale_offset",
                                 "configuration": {"offset": -20, "scale": 3.5}}


def test_scale_offset_metadata_is_strict():
    assert zz.ScaleOffset.from_dict({"name": "scale_offset"}).to_dict() == {"name": "scale_offset"}
    with pytest.raises(zcast.MetadataError, match="bogus"):
        zz.ScaleOffset.from_dict({"name": "scale_offset", "configuration": {"bogus": 1}})
    with pytest.raises(ValueError, match="scale"):
        with zz.use():
            zarr.create_array(zarr.storage.MemoryStore(), shape=(2,), dtype="float32",
                              filters=[zz.ScaleOffset(scale=0)])
    assert get_codec_class("scale_offset") is zz.ScaleOffset
