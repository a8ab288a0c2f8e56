"""What `zcast convert` checks before it writes: valid values that
land on a decode-map sentinel (R27), stored values that cannot be read back (R28), errors that
name the element in the whole array and its chunk (R29), and Zarr v2 sources."""

from __future__ import annotations

import json

import numpy as np
import zarr

import zcast.zarr as zz
from zcast import cli


def make(path, data, chunks, fill_value=np.nan, **kw):
    a = zarr.create_array(zarr.storage.LocalStore(path), shape=data.shape, chunks=chunks,
                          dtype=data.dtype, fill_value=fill_value, **kw)
    a[:] = data
    return a


def temperatures():
    data = np.linspace(-30, 40, 16 * 16, dtype=np.float32).reshape(16, 16)
    data[3, 3] = data[0, 5] = np.nan
    return data


def test_valid_values_on_the_nan_sentinel_fail(tmp_path, capsys):
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    data = temperatures()
    # (x + 40) * 3 rounds to 0, the NaN sentinel, for x <= -39.83; clamp sends x < -40 there too.
    data[1, 9], data[1, 2], data[12, 0] = -40.0, -45.0, -39.9
    make(src, data, (8, 8))
    args = ["convert", str(src), str(dst), "--data-type", "uint8", "--scale", "3", "--offset",
            "-40", "--out-of-range", "clamp", "--map", "NaN=0"]
    assert cli.main(args) == 1
    err = capsys.readouterr().err
    assert "3 valid element(s) are stored as a decode-map sentinel" in err
    # The first in C order over the whole array is (1, 2), in chunk (0, 0).
    assert "the first is element (1, 2) (chunk (0, 0)), value -45.0, stored as 0" in err
    assert "read back as nan" in err and "--allow-sentinel-collisions" in err
    assert not dst.exists()

    assert cli.main(args + ["--allow-sentinel-collisions"]) == 0
    out = capsys.readouterr().out
    assert "warning   3 valid element(s)" in out
    with zz.use():
        got = zarr.open_array(zarr.storage.LocalStore(dst), mode="r")[:]
    assert int(np.isnan(got).sum()) == 2 + 3


def test_a_numeric_sentinel_and_no_collision(tmp_path, capsys):
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    data = np.arange(-5, 59, dtype=np.int32).reshape(8, 8)
    data[4, 4] = -9999
    make(src, data, (4, 4), fill_value=0)
    # -9999 <-> -128: the values -5..58 never reach -128: no collision, exit 0.
    base = ["convert", str(src), str(dst), "--data-type", "int8", "--map", "-9999=-128"]
    assert cli.main(base) == 0
    with zz.use():
        np.testing.assert_array_equal(zarr.open_array(zarr.storage.LocalStore(dst))[:], data)
    # With clamp, -200 reaches -128 and would read back as -9999.
    data[6, 1] = -200
    src2, dst2 = tmp_path / "src2.zarr", tmp_path / "dst2.zarr"
    make(src2, data, (4, 4), fill_value=0)
    capsys.readouterr()
    assert cli.main(["convert", str(src2), str(dst2), "--data-type", "int8", "--out-of-range",
                     "clamp", "--map", "-9999=-128"]) == 1
    err = capsys.readouterr().err
    assert ("1 valid element(s) are stored as a decode-map sentinel and would read back as "
            "something else (R27): the first is element (6, 1) (chunk (1, 0)), value -200, "
            "stored as -128 (int8), read back as -9999") in err
    assert not dst2.exists()


def test_a_value_that_cannot_be_read_back_is_refused(tmp_path, capsys):
    """R24/R28: scale 2 on int32, clamped to int16's 32767, cannot divide back."""
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    make(src, np.array([1, 2, 100000, 3], dtype=np.int32), (2,), fill_value=0)
    assert cli.main(["convert", str(src), str(dst), "--data-type", "int16", "--scale", "2",
                     "--out-of-range", "clamp"]) == 1
    err = capsys.readouterr().err
    assert "conversion failed, nothing written" in err
    # The chain itself refuses it (R32) and convert names the element in the array (R29).
    assert "element (2,) (chunk (1,)): int32 value 100000 encodes to int16 value 32767, which " \
           "the chain cannot decode back" in err
    assert "not an integer" in err
    assert not dst.exists()


def test_errors_name_the_global_index_and_the_chunk(tmp_path, capsys):
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    data = np.zeros((64, 64), dtype=np.float32)
    data[2, 62] = 555.0
    make(src, data, (8, 8), fill_value=0)
    assert cli.main(["convert", str(src), str(dst), "--data-type", "int8"]) == 1
    err = capsys.readouterr().err
    assert "element (2, 62) (chunk (0, 7))" in err and "555.0" in err
    assert not dst.exists()


def test_errors_in_a_sharded_array_name_the_inner_chunk(tmp_path, capsys):
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    data = np.zeros((32, 32), dtype=np.float32)
    data[21, 5] = 300.0
    make(src, data, (4, 4), fill_value=0, shards=(16, 16))
    assert cli.main(["convert", str(src), str(dst), "--data-type", "int8"]) == 1
    err = capsys.readouterr().err
    assert "element (21, 5) (chunk (5, 1))" in err


def test_zarr_v2_source_is_converted_to_v3(tmp_path, capsys):
    src, dst = tmp_path / "v2.zarr", tmp_path / "v3.zarr"
    data = temperatures()
    a = zarr.create_array(zarr.storage.LocalStore(src), shape=data.shape, chunks=(8, 8),
                          dtype="float32", fill_value=np.nan, zarr_format=2,
                          attributes={"units": "degC"})
    a[:] = data
    assert cli.main(["convert", str(src), str(dst), "--data-type", "int16", "--map",
                     "NaN=-32768"]) == 0
    capsys.readouterr()
    meta = json.loads((dst / "zarr.json").read_text())
    assert meta["zarr_format"] == 3 and meta["attributes"] == {"units": "degC"}
    assert meta["codecs"][0]["name"] == "cast_value"
    with zz.use():
        got = zarr.open_array(zarr.storage.LocalStore(dst), mode="r")[:]
    np.testing.assert_array_equal(got, np.where(np.isnan(data), np.nan, np.rint(data)))


def test_an_offset_that_leaves_no_room_for_the_fill_value_says_which(tmp_path, capsys):
    """R9 through --offset: the message names the fill value that was checked, which for a
    sharded array is zarr-python's 0, not the array's own."""
    data = np.linspace(1.0, 2.0, 32 * 32, dtype=np.float32).reshape(32, 32)
    make(tmp_path / "plain", data, (16, 16), fill_value=0)
    make(tmp_path / "sharded", data, (8, 8), fill_value=np.nan, shards=(16, 16))
    for name, words in (("plain", "the array's fill value 0.0 is stored too"),
                        ("sharded", "with a fill value of 0, not the array's own (nan)")):
        rc = cli.main(["convert", "--data-type", "uint16", "--scale", "10000", "--offset", "1",
                       "--map", "NaN=0", str(tmp_path / name), str(tmp_path / f"{name}-out")])
        err = capsys.readouterr().err
        assert rc == 1 and "(R9)" in err and words in err, err
        assert "(0 - offset) * scale" in err or "(0.0 - offset) * scale" in err
        assert not (tmp_path / f"{name}-out").exists()
    # An offset that stores 0 in range and off the NaN sentinel converts the sharded array.
    assert cli.main(["convert", "--data-type", "uint16", "--scale", "10000", "--offset", "-0.1",
                     "--map", "NaN=0", str(tmp_path / "sharded"), str(tmp_path / "ok")]) == 0
