"""xarray on zcast's codecs: opening the EOPF-style sample, writing through to_zarr, dask reads.

Values are compared bit for bit (NaN payloads included) with zarr-python's own codecs' read of
the same store; that the read went through zcast is checked on the codec objects xarray reports.
"""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest
import xarray as xr
import zarr

import zcast
import zcast.zarr as zz
from zcast import _samples

ZCAST_CODECS = {"codecs.cast_value": zz.QUALNAME, "codecs.scale_offset": zz.SCALE_OFFSET_QUALNAME}
R10M = "measurements/reflectance/r10m"
NAN_255 = {"encode": [["NaN", 255]], "decode": [[255, "NaN"]]}


def bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    root = tmp_path_factory.mktemp("xarray") / "s2.zarr"
    _samples.write_eopf_sample(root, size="small")
    return root


def zarr_own_read(root, path) -> np.ndarray:
    with zarr.config.set(_samples.ZARR_PYTHON_CODECS):
        return zarr.open_array(zarr.storage.LocalStore(root, read_only=True), path=path, mode="r")[...]


def inner_codecs(var) -> list:
    """The array -> array codecs xarray reports for a variable (inside the shard, if sharded)."""
    serializer = var.encoding.get("serializer")
    if serializer is not None and hasattr(serializer, "codecs"):
        return [c for c in serializer.codecs if hasattr(c, "spec_json") or
                type(c).__name__ in ("CastValue", "ScaleOffset")]
    return list(var.encoding.get("filters") or ())


def test_sample_fill_value_attribute_is_xarrays_form(sample):
    meta = json.loads((sample / _samples.BANDS[2].path / "zarr.json").read_text())
    assert meta["attributes"]["_FillValue"] == _samples.xarray_fill_value(np.nan) == "AAAAAAAA+H8="


def test_open_datatree_reads_every_band_as_zarr_python_does(sample):
    with zz.use():
        tree = xr.open_datatree(sample, engine="zarr")
        for band in _samples.BANDS:
            group, name = band.path.rsplit("/", 1)
            var = tree[group].dataset[name]
            assert {type(c) for c in inner_codecs(var)} == {zz.ScaleOffset, zz.CastValue}
            assert var.dims == ("y", "x") and var.dtype == np.float32
            assert np.isnan(var.encoding["_FillValue"])  # the base64 attribute, decoded by xarray
            np.testing.assert_array_equal(bits(var.values), bits(zarr_own_read(sample, band.path)))


def test_open_dataset_with_dask_chunks(sample):
    with zz.use():
        ds = xr.open_dataset(sample, group=R10M, engine="zarr", chunks={})
        b04 = ds["b04"]
        assert b04.chunks is not None and b04.data.npartitions > 1  # dask, one task per chunk
        assert b04.data.chunksize == (244, 244)  # the inner chunks, not the whole shard
        got = b04.compute().values
    np.testing.assert_array_equal(bits(got), bits(zarr_own_read(sample, f"{R10M}/b04")))
    assert np.isnan(got).any() and not np.isnan(got).all()


def test_mask_and_scale_has_nothing_to_undo(sample):
    """The codecs already decoded DN to reflectance (NaN for DN 0): xarray's CF decoding finds no
    scale_factor / add_offset, and masking _FillValue (NaN) changes no value."""
    with zz.use():
        raw = xr.open_dataset(sample, group=R10M, engine="zarr", mask_and_scale=False)["b04"]
        cf = xr.open_dataset(sample, group=R10M, engine="zarr")["b04"]
        assert "scale_factor" not in raw.attrs and "add_offset" not in raw.attrs
        assert raw.dtype == cf.dtype == np.float32
        np.testing.assert_array_equal(bits(raw.values), bits(cf.values))


def temperatures() -> xr.Dataset:
    t = np.linspace(-40, 44, 60 * 50, dtype=np.float32).reshape(60, 50)
    t[::7, ::3] = np.nan
    return xr.Dataset({"t": (("y", "x"), t)}, attrs={"title": "air temperature"})


def test_to_zarr_writes_zcast_codecs_that_read_back(tmp_path):
    ds = temperatures()
    store = tmp_path / "t.zarr"
    filters = [zz.ScaleOffset(offset=-40, scale=3), zz.CastValue(data_type="uint8", scalar_map=NAN_255)]
    with zz.use():
        ds.to_zarr(store, zarr_format=3, consolidated=False,
                   encoding={"t": {"filters": filters, "chunks": (16, 20), "compressors": None}})
    meta = json.loads((store / "t" / "zarr.json").read_text())
    assert meta["codecs"][:2] == [
        {"name": "scale_offset", "configuration": {"offset": -40, "scale": 3}},
        {"name": "cast_value", "configuration": {"data_type": "uint8", "scalar_map": NAN_255}}]
    # xarray writes a float _FillValue in the form the sample uses.
    assert meta["attributes"]["_FillValue"] == _samples.xarray_fill_value(np.nan)
    expected = ((ds["t"].values + np.float32(40)) * np.float32(3))
    expected = np.rint(expected) / np.float32(3) - np.float32(40)  # what the uint8 DN decode to
    with zz.use():
        back = xr.open_dataset(store, engine="zarr", consolidated=False)["t"].values
    np.testing.assert_array_equal(np.isnan(back), np.isnan(ds["t"].values))
    np.testing.assert_allclose(back[~np.isnan(back)], expected[~np.isnan(back)], rtol=0, atol=2e-6)
    # zarr-python's own codecs read what zcast wrote, bit for bit the same.
    with zarr.config.set(_samples.ZARR_PYTHON_CODECS):
        theirs = xr.open_dataset(store, engine="zarr", consolidated=False)["t"].values
    np.testing.assert_array_equal(bits(theirs), bits(back))


def test_to_zarr_float8_reads_back_through_xarray(tmp_path):
    ds = temperatures()
    store = tmp_path / "f8.zarr"
    with zz.use():
        ds.to_zarr(store, zarr_format=3, consolidated=False,
                   encoding={"t": {"filters": [zz.CastValue(data_type="float8_e4m3",
                                                            out_of_range="clamp")]}})
        back = xr.open_dataset(store, engine="zarr", consolidated=False)["t"].values
    meta = json.loads((store / "t" / "zarr.json").read_text())
    assert meta["codecs"][0] == {"name": "cast_value", "configuration": {
        "data_type": "float8_e4m3", "out_of_range": "clamp"}}
    # The values: float32 -> float8_e4m3 -> float32, each step by zcast's exact core.
    f8 = zcast.cast_array(ds["t"].values, "float8_e4m3", out_of_range="clamp")
    np.testing.assert_array_equal(bits(back), bits(zcast.cast_array(f8, "float32")))


@pytest.mark.parametrize("threads", [1, 2])
def test_dask_read_decodes_in_parallel(sample, monkeypatch, threads):
    """Each dask task reads one inner chunk; with 2 dask threads two chunks are decoded at the same
    time (a decode that ran on zarr's event-loop thread would keep it at one), with 1 never."""
    import time

    import dask

    lock = threading.Lock()
    active = peak = calls = 0
    original = zz.CastValue._decode_sync

    def recording(self, chunk_array, chunk_spec):
        nonlocal active, peak, calls
        with lock:
            active += 1
            calls += 1
            peak = max(peak, active)
        try:
            time.sleep(0.01)  # long enough that two concurrent decodes overlap on a loaded machine
            return original(self, chunk_array, chunk_spec)
        finally:
            with lock:
                active -= 1

    monkeypatch.setattr(zz.CastValue, "_decode_sync", recording)
    with zz.use():
        ds = xr.open_dataset(sample, group=R10M, engine="zarr", chunks={})
        with dask.config.set(scheduler="threads", num_workers=threads):
            got = ds["b04"].data.compute()
    np.testing.assert_array_equal(bits(got), bits(zarr_own_read(sample, f"{R10M}/b04")))
    assert calls >= 10
    if threads == 1:
        assert peak == 1
    else:
        assert peak >= 2, f"{calls} decodes, never two at once"
