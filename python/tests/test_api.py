"""zcast.cast_array / cast_array_into over the 26 types and the rules of semantics.md."""

from __future__ import annotations

import json
import math
import threading

import ml_dtypes
import numpy as np
import pytest

import zcast
from conftest import bits, encodings

INTS = ["int2", "int4", "int8", "int16", "int32", "int64",
        "uint2", "uint4", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3",
          "float8_e4m3b11fnuz", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
          "float8_e8m0fnu", "bfloat16", "float16", "float32", "float64"]
SMALL = [t for t in INTS + FLOATS if zcast.numpy_dtype(t).itemsize <= 2]

# Max finite value (floats) or range (ints) of each type, from semantics.md's table.
MAX_FINITE = {
    "float4_e2m1fn": 6.0, "float6_e2m3fn": 7.5, "float6_e3m2fn": 28.0, "float8_e3m4": 15.5,
    "float8_e4m3": 240.0, "float8_e4m3b11fnuz": 30.0, "float8_e4m3fnuz": 240.0,
    "float8_e5m2": 57344.0, "float8_e5m2fnuz": 57344.0, "float8_e8m0fnu": 2.0**127,
    "bfloat16": (2 - 2**-7) * 2.0**127, "float16": 65504.0,
    "float32": (2 - 2**-23) * 2.0**127, "float64": (2 - 2**-52) * 2.0**1023,
}
INT_RANGE = {"int2": (-2, 1), "int4": (-8, 7), "int8": (-128, 127), "int16": (-2**15, 2**15 - 1),
             "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1), "uint2": (0, 3),
             "uint4": (0, 15), "uint8": (0, 255), "uint16": (0, 2**16 - 1),
             "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1)}


def cast(values, dtype, src="float64", **kw):
    return zcast.cast_array(np.array(values, dtype=zcast.numpy_dtype(src)), dtype, **kw)


def one(value, dtype, src="float64", **kw):
    return cast([value], dtype, src, **kw)[0]


def raises_cast(value, dtype, src="float64", match=None, **kw):
    with pytest.raises(zcast.CastError, match=match):
        cast([value], dtype, src, **kw)


# ---- the type list and the dtype mapping --------------------------------------------------------


def test_data_types_are_the_26_zarr_names():
    assert sorted(zcast.DATA_TYPES) == sorted(INTS + FLOATS)
    assert len(zcast.DATA_TYPES) == 26


@pytest.mark.parametrize("name", INTS + FLOATS)
def test_dtype_mapping_round_trips(name):
    dt = zcast.numpy_dtype(name)
    assert zcast.zarr_name(dt) == name
    assert zcast.zarr_name(name) == name
    if name in ("float16", "float32", "float64") or name in INTS and dt.itemsize > 1 or name in (
            "int8", "uint8"):
        assert dt == np.dtype(name)
    else:
        assert dt == np.dtype(getattr(ml_dtypes, name))


def test_dtype_spellings_and_rejections():
    assert zcast.zarr_name("<f4") == "float32"
    assert zcast.zarr_name(np.dtype(">i2")) == "int16"
    assert zcast.zarr_name(np.float16) == "float16"
    assert zcast.zarr_name(ml_dtypes.float8_e4m3) == "float8_e4m3"
    with pytest.raises(zcast.MetadataError, match="float8_e4m3fn.*not a Zarr type"):
        zcast.zarr_name(ml_dtypes.float8_e4m3fn)
    with pytest.raises(zcast.MetadataError, match="unsupported data type"):
        zcast.cast_array(np.zeros(2), "complex64")
    with pytest.raises(zcast.MetadataError, match="unsupported data type"):
        zcast.cast_array(np.zeros(2, dtype=bool), "uint8")


# ---- all 26 types: exact values survive, every small type on every encoding --------------------


@pytest.mark.parametrize("name", INTS + FLOATS)
def test_exact_values_round_trip_through_float64(name):
    if name in INTS:
        lo, hi = INT_RANGE[name]
        values = sorted({lo, hi, 0, 1, min(hi, 5), max(lo, -1) if lo < 0 else 0})
        if name in ("int64", "uint64"):
            values = [v for v in values if abs(v) <= 2**53]
    elif name == "float8_e8m0fnu":
        values = [2.0**-127, 0.5, 1.0, 2.0, 1024.0, 2.0**127]
    else:
        values = [0.0, -0.0, 0.5, 1.0, -1.5, MAX_FINITE[name], -MAX_FINITE[name]]
    encoded = cast(values, name)
    assert encoded.dtype == zcast.numpy_dtype(name)
    back = zcast.cast_array(encoded, "float64")
    if name.endswith("fnuz"):  # no -0 in fnuz types: -0.0 -> +0 (R8)
        values = [abs(v) if v == 0 else v for v in values]
    np.testing.assert_array_equal(back, np.array(values, dtype=np.float64))
    assert list(np.signbit(back)) == list(np.signbit(np.array(values, dtype=np.float64)))


@pytest.mark.parametrize("name", SMALL)
def test_every_encoding_widens_exactly_and_comes_back(name):
    codes = encodings(name)
    wide = zcast.cast_array(codes, "float64")
    # ml_dtypes' widening to float64 is exact; it is the oracle for the values here.
    with np.errstate(invalid="ignore"):
        expected = codes.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(wide), np.isnan(expected))
    finite = ~np.isnan(expected)
    np.testing.assert_array_equal(wide[finite], expected[finite])
    np.testing.assert_array_equal(np.signbit(wide[finite]), np.signbit(expected[finite]))
    # Back into the type: every non-NaN encoding is restored bit for bit, except that -0 into a
    # type without -0 cannot occur (fnuz has no -0 encoding to start from).
    again = zcast.cast_array(wide, name)
    np.testing.assert_array_equal(bits(again)[finite], bits(codes)[finite])


def test_sub_byte_upper_bits_are_ignored_on_read_and_zero_on_write():
    raw = np.array([0xFD, 0xF2, 0x0F], dtype=np.uint8)
    assert list(zcast.cast_array(raw.view(ml_dtypes.uint2), "uint8")) == [1, 2, 3]
    assert list(zcast.cast_array(raw.view(ml_dtypes.int4), "int8")) == [-3, 2, -1]
    out = cast([-1.0, 7.0], "int4")
    assert list(bits(out)) == [0x0F, 0x07]


# ---- the rules of semantics.md, with the numbers they give ------------------------------------


def test_r1_clamp_into_types_with_inf():
    assert one(244.0, "float8_e4m3") == 240.0  # rounds to max: in range
    raises_cast(1e6, "float8_e4m3", rounding="towards-zero", match="out of the range")
    assert bits(cast([1e6], "float8_e4m3", rounding="towards-zero", out_of_range="clamp"))[0] == 0x78
    assert bits(cast([-1e6], "float8_e4m3", out_of_range="clamp"))[0] == 0xF8
    assert one(1e6, "float16", rounding="towards-zero", out_of_range="clamp") == np.inf
    assert one(-1e300, "float32", out_of_range="clamp") == -np.inf


def test_r2_clamp_into_types_without_inf():
    assert list(cast([128.0, -129.0, 1e30, -1e30], "int8", out_of_range="clamp")) == [127, -128, 127, -128]
    assert list(cast([-5.0, 300.0], "uint8", out_of_range="clamp")) == [0, 255]
    assert one(1e6, "float8_e4m3fnuz", out_of_range="clamp") == 240.0
    assert one(-1e6, "float4_e2m1fn", out_of_range="clamp") == -6.0
    assert bits(cast([0.0, -3.0], "float8_e8m0fnu", out_of_range="clamp")).tolist() == [0, 0]
    assert one(1e300, "float8_e8m0fnu", out_of_range="clamp") == 2.0**127


def test_128_into_int8_error_clamp_wrap():
    raises_cast(128.0, "int8", match=r"element \(0,\): .*128.*int8")
    assert one(128.0, "int8", out_of_range="clamp") == 127
    assert one(128.0, "int8", out_of_range="wrap") == -128


def test_r3_nan_and_inf_into_types_that_lack_them():
    for oor in (None, "clamp", "wrap"):
        raises_cast(math.nan, "uint8", out_of_range=oor)
        raises_cast(math.inf, "int16", out_of_range=oor)
    raises_cast(math.nan, "float4_e2m1fn", out_of_range="clamp")
    raises_cast(math.inf, "float8_e4m3fnuz", out_of_range="clamp")
    assert one(math.nan, "uint8", scalar_map=[("NaN", 0)]) == 0
    assert one(math.nan, "uint8", scalar_map=[(math.nan, 7)]) == 7
    assert bits(cast([math.nan], "float8_e4m3fnuz"))[0] == 0x80
    assert bits(cast([math.nan], "float8_e5m2fnuz"))[0] == 0x80
    assert bits(cast([math.nan], "float8_e8m0fnu"))[0] == 0xFF
    assert bits(cast([math.nan], "float8_e4m3"))[0] == 0x7C
    assert bits(cast([-math.nan], "float8_e5m2"))[0] == 0xFE  # sign kept, payload dropped
    payload = np.array([0x7FF0000000000123], dtype=np.uint64).view(np.float64)
    assert bits(zcast.cast_array(payload, "float32"))[0] == 0x7FC00000
    assert bits(cast([math.inf, -math.inf], "float8_e4m3")).tolist() == [0x78, 0xF8]


def test_r4_wrap_only_for_integer_targets():
    with pytest.raises(zcast.MetadataError, match="wrap"):
        cast([1.0], "float16", out_of_range="wrap")
    with pytest.raises(zcast.MetadataError, match="wrap"):
        cast([1], "float8_e4m3", src="int32", out_of_range="wrap")


def test_r5_wrap_is_exact():
    assert one(1e300, "int8", out_of_range="wrap") == 0
    assert one(float(2**60 + 256), "int16", out_of_range="wrap") == 256
    assert one(-1.0, "uint8", out_of_range="wrap") == 255
    assert one(32769.0, "int16", out_of_range="wrap") == -32767
    assert one(2**64 + 5, "uint8", src="float64", out_of_range="wrap") == 0  # 2^64+5 is 2^64 in f64
    assert one(2**63 - 1, "int8", src="int64", out_of_range="wrap") == -1
    assert one(5.5, "int2", out_of_range="wrap") == -2  # 6 mod 4 = 2 -> -2
    assert one(-2.5, "uint4", out_of_range="wrap") == 14  # -2 -> 14


def test_r6_float8_e8m0fnu():
    raises_cast(0.0, "float8_e8m0fnu", match="out of the range")
    raises_cast(-1.0, "float8_e8m0fnu")
    assert one(3.0, "float8_e8m0fnu") == 4.0  # tie 1.5*2^1 -> 2^2
    assert one(3.0, "float8_e8m0fnu", rounding="nearest-away") == 4.0
    assert one(2.9, "float8_e8m0fnu") == 2.0
    assert one(3.9, "float8_e8m0fnu", rounding="towards-zero") == 2.0
    assert one(3.9, "float8_e8m0fnu", rounding="towards-negative") == 2.0
    assert one(2.1, "float8_e8m0fnu", rounding="towards-positive") == 4.0
    assert one(2.0**-127, "float8_e8m0fnu") == 2.0**-127
    # Below 2^-127: ties at 1.5 * 2^-128 -> 2^-127; smaller values are out of range below.
    assert one(1.5 * 2.0**-128, "float8_e8m0fnu") == 2.0**-127
    raises_cast(2.0**-129, "float8_e8m0fnu")
    # ml_dtypes' known bug: values in (2^-127, 1.5 * 2^-127) go to 2^-126; zcast gives 2^-127.
    assert one(1.25 * 2.0**-127, "float8_e8m0fnu") == 2.0**-127


def test_r7_negatives_into_unsigned():
    assert one(-0.4, "uint8") == 0
    raises_cast(-0.6, "uint8")
    assert one(-0.6, "uint8", rounding="towards-zero") == 0
    assert one(-3.0, "uint8", out_of_range="clamp") == 0
    assert one(-3.0, "uint16", out_of_range="wrap") == 65533


def test_r8_signed_zero():
    assert bits(cast([-0.0], "float16"))[0] == 0x8000
    assert bits(cast([-0.0], "bfloat16"))[0] == 0x8000
    assert bits(cast([-0.0], "float4_e2m1fn"))[0] == 0x08
    assert bits(cast([-0.0], "float6_e2m3fn"))[0] == 0x20
    assert bits(cast([-0.0], "float8_e4m3"))[0] == 0x80
    assert bits(cast([-0.0], "float8_e4m3fnuz"))[0] == 0x00
    assert one(-0.0, "int8") == 0
    assert bits(cast([-1e-10], "float8_e4m3"))[0] == 0x80  # rounds to -0 where D has it
    assert bits(cast([-1e-10], "float8_e5m2fnuz"))[0] == 0x00  # never 0x80 (NaN) in fnuz
    assert np.signbit(cast([-0.0], "float64", src="float16")[0])


def test_rounding_modes_exactly():
    assert list(cast([2.5, 3.5, -2.5], "int8")) == [2, 4, -2]
    assert list(cast([2.5, 3.5, -2.5], "int8", rounding="nearest-away")) == [3, 4, -3]
    assert list(cast([2.7, -2.7], "int8", rounding="towards-zero")) == [2, -2]
    assert list(cast([2.1, -2.1], "int8", rounding="towards-positive")) == [3, -2]
    assert list(cast([2.1, -2.1], "int8", rounding="towards-negative")) == [2, -3]
    # A true ties-away rounding, not floor(|x| + 0.5).
    assert one(0.49999999999999994, "int8", rounding="nearest-away") == 0
    assert one(float(2**52 + 1), "int64", rounding="nearest-away") == 2**52 + 1


def test_no_double_rounding():
    # int64 -> float32 in one rounding: 2^60 + 2^36 + 1 is just above a float32 midpoint; going
    # through float64 first would land on the midpoint and round to even (2^60).
    x = 2**60 + 2**36 + 1
    assert int(one(x, "float32", src="int64")) == 2**60 + 2**37
    assert int(one(x - 2, "float32", src="int64")) == 2**60
    assert int(one(2**24 + 1, "float32", src="int64", rounding="towards-positive")) == 2**24 + 2
    # float64 -> float8 directly: 1 + 2^-4 + 2^-30 is above the e4m3 midpoint 1 + 2^-4.
    assert one(1 + 2**-4 + 2**-30, "float8_e4m3") == 1.125
    assert one(1 + 2**-4, "float8_e4m3") == 1.0  # the tie itself goes to even
    # uint64 above 2^53 with a directed mode.
    assert int(one(2**64 - 1, "float64", src="uint64", rounding="towards-zero")) == 2**64 - 2**11


# ---- scalar_map ------------------------------------------------------------------------------


def test_r10_scalar_map_first_wins_no_chaining_signed_zero_keys():
    assert list(cast([1.0, 2.0], "int8", scalar_map=[(1, 2), (2, 3)])) == [2, 3]
    assert list(cast([1.0], "int8", scalar_map=[(1, 2), (1, 5)])) == [2]
    assert list(cast([0.0, -0.0], "int8", scalar_map=[(-0.0, 5)])) == [0, 5]
    assert list(cast([0.0, -0.0], "int8", scalar_map=[("0x8000000000000000", 9)])) == [0, 9]
    assert list(cast([300.0], "uint8", scalar_map={300.0: 255})) == [255]  # a dict works too
    out = cast([math.inf, -math.inf], "int8", scalar_map=[("Infinity", 127), ("-Infinity", -128)])
    assert list(out) == [127, -128]


def test_scalar_map_json_encoding():
    spec = json.loads(zcast.codec_json("float16", scalar_map=[
        (-0.0, 1), (math.nan, "NaN"), (math.inf, -math.inf), (np.float32(0.1), 2**70),
        ("0x7e00", np.int8(3)), (np.float16(0.5), ml_dtypes.bfloat16(1.5))]))
    entries = spec["configuration"]["scalar_map"]["encode"]
    assert entries == [[-0.0, 1], ["NaN", "NaN"], ["Infinity", "-Infinity"],
                       [float(np.float32(0.1)), 2**70], ["0x7e00", 3], [0.5, 1.5]]
    assert math.copysign(1, entries[0][0]) == -1
    raw = zcast.codec_json("float16", scalar_map=[(-0.0, 1)])
    assert "[-0.0,1]" in raw
    with pytest.raises(zcast.MetadataError, match="boolean"):
        zcast.codec_json("uint8", scalar_map=[(True, 1)])
    with pytest.raises(zcast.MetadataError, match="pair"):
        zcast.codec_json("uint8", scalar_map=[(1, 2, 3)])


def test_r11_invalid_scalar_map_entries_are_metadata_errors():
    with pytest.raises(zcast.MetadataError, match="300"):
        cast([1.0], "uint8", scalar_map=[(1, 300)])
    with pytest.raises(zcast.MetadataError, match="1.5"):
        cast([1], "float32", src="int8", scalar_map=[(1.5, 0)])
    with pytest.raises(zcast.MetadataError, match="NaN"):
        cast([1], "float32", src="int8", scalar_map=[("NaN", 0)])
    with pytest.raises(zcast.MetadataError, match="Infinity"):
        cast([1.0], "float8_e4m3fnuz", scalar_map=[(1.0, "Infinity")])
    with pytest.raises(zcast.MetadataError, match="1000000"):
        cast([1.0], "float8_e4m3fnuz", scalar_map=[(1.0, 1e6)])  # overflow, no Inf


def test_r13_invalid_configuration():
    with pytest.raises(zcast.MetadataError, match="rounding"):
        cast([1.0], "int8", rounding="up")
    with pytest.raises(zcast.MetadataError, match="out_of_range"):
        cast([1.0], "int8", out_of_range="saturate")
    with pytest.raises(zcast.MetadataError):
        cast([1.0], "int3")


# ---- errors name the element's index tuple ---------------------------------------------------


def test_cast_error_index_tuple_2d():
    a = np.zeros((3, 4))
    a[2, 1] = 1000.0
    a[2, 3] = 2000.0
    with pytest.raises(zcast.CastError) as info:
        zcast.cast_array(a, "int8")
    err = info.value
    assert isinstance(err, ValueError)
    assert err.index == (2, 1)
    msg = str(err)
    assert msg.startswith("element (2, 1): ")
    assert "1000" in msg and "float64" in msg and "int8" in msg and "range" in msg


def test_cast_error_index_of_noncontiguous_and_fortran_inputs():
    a = np.zeros((4, 6), dtype=np.float32)
    a[1, 4] = np.nan
    with pytest.raises(zcast.CastError) as info:
        zcast.cast_array(np.asfortranarray(a), "uint8")
    assert info.value.index == (1, 4)
    with pytest.raises(zcast.CastError) as info:
        zcast.cast_array(a.T, "uint8")
    assert info.value.index == (4, 1)
    with pytest.raises(zcast.CastError) as info:
        zcast.cast_array(a[:, ::2], "uint8")
    assert info.value.index == (1, 2)
    with pytest.raises(zcast.CastError) as info:
        zcast.cast_array(np.float64(np.nan), "int8")
    assert info.value.index == ()


@pytest.mark.parametrize("threads", [1, 2])
def test_cast_error_index_in_large_arrays(threads):
    zcast.set_num_threads(threads)
    try:
        a = np.zeros((2000, 1500), dtype=np.float32)
        a[1800, 7] = 1e9
        a[1900, 3] = -1e9
        with pytest.raises(zcast.CastError) as info:
            zcast.cast_array(a, "int16")
        assert info.value.index == (1800, 7)
        a[3, 4] = np.inf
        with pytest.raises(zcast.CastError) as info:
            zcast.cast_array(a, "int16")
        assert info.value.index == (3, 4)
        a[:] = 1.5
        np.testing.assert_array_equal(zcast.cast_array(a, "int16"), 2)
    finally:
        zcast.set_num_threads(2)


# ---- memory layouts ---------------------------------------------------------------------------


def test_any_layout_equals_the_c_contiguous_copy():
    rng = np.random.default_rng(1)
    base = rng.normal(0, 50, size=(7, 9, 5))
    for view in (base, np.asfortranarray(base), base[::2, 1::3], base.transpose(2, 0, 1),
                 base[:, ::-1], base.astype(">f8"), base[..., 0]):
        got = zcast.cast_array(view, "float8_e4m3", out_of_range="clamp")
        want = zcast.cast_array(np.ascontiguousarray(view, dtype=np.float64), "float8_e4m3",
                                out_of_range="clamp")
        assert got.shape == view.shape
        assert got.flags.c_contiguous
        np.testing.assert_array_equal(bits(got), bits(want))


def test_cast_array_into_any_layout():
    src = np.arange(24, dtype=np.float32).reshape(4, 6) * 1.5
    out = np.zeros((6, 4), dtype=np.int16).T  # Fortran-ordered view
    res = zcast.cast_array_into(src, out, rounding="towards-zero")
    assert res is out
    np.testing.assert_array_equal(out, np.trunc(src).astype(np.int16))
    big = np.zeros(24, dtype=">u2")
    zcast.cast_array_into(src.ravel(), big, rounding="towards-negative")
    np.testing.assert_array_equal(big, np.floor(src.ravel()))
    strided = np.zeros((4, 12), dtype=ml_dtypes.bfloat16)[:, ::2]
    zcast.cast_array_into(src, strided)
    np.testing.assert_array_equal(strided.astype(np.float32), src)
    with pytest.raises(ValueError, match="shape"):
        zcast.cast_array_into(src, np.zeros((6, 4), dtype=np.int16))


def test_overlapping_buffers_and_empty_arrays():
    buf = np.arange(8, dtype=np.float32)
    zcast.cast_array_into(buf.view(np.int32), buf, scalar_map=None)  # same memory, int -> float
    np.testing.assert_array_equal(buf, np.arange(8, dtype=np.float32).view(np.int32))
    assert zcast.cast_array(np.zeros((0, 3)), "int4").shape == (0, 3)
    assert zcast.cast_array([1, 2, 3], "uint8").tolist() == [1, 2, 3]


def test_gil_is_released_while_casting():
    # While one thread casts a large array, another Python thread keeps running.
    a = np.random.default_rng(2).normal(0, 1, 4_000_000)
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(1)

    zcast.set_num_threads(1)
    t = threading.Thread(target=ticker)
    try:
        t.start()
        for _ in range(3):
            zcast.cast_array(a, "float8_e4m3")
    finally:
        stop.set()
        t.join()
        zcast.set_num_threads(2)
    assert len(ticks) > 1000


def test_bound_codecs_are_cached():
    from zcast import _api

    _api.bind.cache_clear()
    _api._plain_cast.cache_clear()
    for _ in range(5):
        zcast.cast_array(np.ones(3), "uint8", out_of_range="clamp")
    # Without a scalar_map the whole call's configuration is cached: bound once, then looked up.
    assert _api.bind.cache_info().misses == 1
    info = _api._plain_cast.cache_info()
    assert info.misses == 1 and info.hits == 4
    # With one, the JSON text is the key of the bound codec.
    for _ in range(5):
        zcast.cast_array(np.ones(3), "uint8", out_of_range="clamp", scalar_map=[["NaN", 0]])
    info = _api.bind.cache_info()
    assert info.misses == 2 and info.hits == 4
    # A byte order is part of the key: '>u2' and 'uint16' give different arrays.
    assert zcast.cast_array(np.ones(2), ">u2").dtype == np.dtype(">u2")
    assert zcast.cast_array(np.ones(2), "uint16").dtype == np.dtype("=u2")
