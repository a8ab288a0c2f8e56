"""zcast advise / zcast.advise on small arrays with known answers: decimal data, a range that needs
uint16, a dynamic range only a wide-exponent float holds, all-NaN chunks, constants, a bound
nothing meets, the JSON document, --write, --plot, --sample and the progress output."""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest
import zarr

import zcast
import zcast.zarr as zz
from zcast import _advise_measure, cli
from zcast._cli_common import _stored_bytes


def _write_array(path, data, chunks, fill=float("nan"), compressors="auto"):
    a = zarr.create_array(zarr.storage.LocalStore(path), shape=data.shape, chunks=chunks,
                          dtype=data.dtype, fill_value=fill, compressors=compressors)
    a[...] = data
    return path


def _by_label(advice):
    return {c["label"]: c for c in advice.candidates}


def _ruled(advice):
    return {r["label"]: r["reason"] for r in advice.ruled_out}


def test_decimal_data_gets_its_exact_scale():
    rng = np.random.default_rng(1)
    data = np.round(rng.uniform(-5, 20, (60, 70)), 2).astype(np.float32)  # hundredths
    advice = zcast.advise(data, max_abs_error=0.001)
    decimal = [c for c in advice.candidates if c["family"] == "decimal"]
    assert decimal, advice.table()
    for c in decimal:
        so = c["codecs"][0]
        assert so["name"] == "scale_offset" and so["configuration"]["scale"] == 100
        assert c["max_abs_error"] == 0 and c["max_rel_error"] == 0 and c["meets"]
    # Hundredths over 25 units: 2501 levels, so the exact encoding needs 16 bits.
    assert {c["data_type"] for c in decimal} <= {"int16", "uint16"}
    # Exact and coarser than the bound's step (0.002): it stores fewer bytes than the generic one.
    generic = next(c for c in advice.candidates
                   if c["family"] == "scale_offset" and c["data_type"] == "uint16")
    best = min(decimal, key=lambda c: c["stored_bytes"])
    assert best["stored_bytes"] < generic["stored_bytes"]
    assert advice.recommended["stored_bytes"] <= best["stored_bytes"]


def test_tenths_with_an_offset_are_decimal():
    # The EOPF layout's decode: float32(DN) / 10000 + float32(-0.1): exact only with offset -0.1.
    dn = np.random.default_rng(2).integers(1, 12000, (40, 50)).astype(np.float32)
    data = dn / np.float32(10000) + np.float32(-0.1)
    advice = zcast.advise(data, max_abs_error=1e-6)
    decimal = [c for c in advice.candidates if c["family"] == "decimal"]
    assert decimal and all(c["max_abs_error"] == 0 for c in decimal), advice.table()
    assert any(c["codecs"][0]["configuration"] == {"offset": -0.1, "scale": 10000}
               for c in decimal)


def test_range_forces_uint16_over_uint8():
    rng = np.random.default_rng(3)
    data = rng.uniform(1000, 1100, (64, 64)).astype(np.float32)
    advice = zcast.advise(data, max_abs_error=0.05)
    ruled = _ruled(advice)
    # Step 0.1 over 100 units: about 1000 levels, more than uint8's 256.
    assert "holds 0..255" in ruled["uint8 scale_offset"], ruled
    assert "holds -128..127" in ruled["int8 scale_offset"], ruled
    rec = advice.recommended
    assert rec["data_type"] in ("uint16", "int16"), advice.table()
    assert rec["max_abs_error"] <= 0.05
    # float16 (ulp 1 at 1024) and bfloat16 (ulp 8) cannot meet 0.05 there.
    for name in ("float16", "bfloat16"):
        c = _by_label(advice)[name]
        assert not c["meets"] and c["max_abs_error"] > 0.05
    # uint16 scale_offset: the largest step that meets the bound, about 2 * 0.05.
    u16 = next(c for c in advice.candidates if c["label"].startswith("uint16 scale"))
    assert 9.5 <= u16["codecs"][0]["configuration"]["scale"] <= 10.5


def test_dynamic_range_rules_out_float16_and_every_integer():
    rng = np.random.default_rng(4)
    data = (10.0 ** rng.uniform(-6, 6, 5000)).astype(np.float32)
    advice = zcast.advise(data, max_rel_error=0.005)
    ruled = _ruled(advice)
    assert "float16" in ruled and "beyond the largest float16" in ruled["float16"]
    assert not [c for c in advice.candidates if c["family"] != "float"], advice.table()
    for name in ("uint8", "uint16", "int16", "uint32"):
        assert name in ruled or f"{name} scale_offset" in ruled
    # bfloat16 keeps float32's exponent range with 8 significant bits: rel error <= 2^-8.
    assert advice.recommended["data_type"] == "bfloat16"
    assert 0 < advice.recommended["max_rel_error"] <= 2.0 ** -8


def test_all_nan_chunks_and_stored_bytes_match_zarr(tmp_path):
    rng = np.random.default_rng(5)
    data = rng.normal(15, 4, (96, 80)).astype(np.float32)
    data[:32, :40] = np.nan           # two whole chunks of NaN: zarr writes neither
    data[50:53, 7] = np.nan
    src = _write_array(tmp_path / "src.zarr", data, chunks=(32, 40))   # 3 x 2 chunks, no edge
    advice = zcast.advise(src, max_abs_error=0.01)
    # The uncast reference is measured as zarr stores it: equal to the source's own bytes.
    assert advice.reference["stored_bytes"] == _stored_bytes(src)
    rec = advice.recommended
    assert rec["nan_preserved"] is True and rec["sentinel_collisions"] == 0
    for c in advice.candidates:
        if c["family"] != "float" and c["sentinels"]:
            # NaN's sentinel lies outside the stored range of the valid values.
            assert c["nan_preserved"] and c["sentinel_collisions"] == 0


def test_edge_chunks_and_write_match_the_estimate(tmp_path, capsys):
    rng = np.random.default_rng(6)
    data = np.round(rng.normal(20, 3, (70, 55)), 1).astype(np.float32)  # edge chunks both ways
    data[::9, ::4] = np.nan
    src = _write_array(tmp_path / "src.zarr", data, chunks=(32, 32))
    dst = tmp_path / "dst.zarr"
    assert cli.main(["advise", str(src), "--max-abs-error", "0.02", "--write", str(dst),
                     "--json"]) == 0
    out = capsys.readouterr().out
    doc = json.loads(out[:out.index("\nwriting ")])
    rec = doc["recommended"]
    assert doc["reference"]["stored_bytes"] == _stored_bytes(src)
    # Exact mode: the estimate is what the convert writes, byte for byte.
    assert rec["stored_bytes"] == _stored_bytes(dst)
    with zz.use():
        back = zarr.open_array(zarr.storage.LocalStore(dst), mode="r")[...]
        meta = json.loads((dst / "zarr.json").read_text())
    assert [c["name"] for c in meta["codecs"][:len(rec["codecs"])]] == \
        [c["name"] for c in rec["codecs"]]
    valid = np.isfinite(data)
    assert np.array_equal(np.isnan(back), np.isnan(data))
    assert np.abs(back[valid].astype(np.float64) - data[valid]).max() <= 0.02


def test_constant_arrays_are_exact():
    data = np.full((40, 30), 3.25, dtype=np.float32)
    advice = zcast.advise(data, max_abs_error=0.001)
    assert advice.recommended["max_abs_error"] == 0
    for c in advice.candidates:
        if c["family"] != "float":
            assert c["max_abs_error"] == 0, c["label"]
    nan = zcast.advise(np.full((10, 10), np.nan, np.float32), max_rel_error=0.01)
    assert nan.recommended["nan_preserved"] is True and nan.recommended["elements"] == 0


def test_clamp_only_within_the_bound():
    # float8_e4m3fnuz has no Inf and a largest value of 240: 250 is out of its range.
    data = np.array([1.0, 100.0, 250.0], dtype=np.float32)
    loose = _by_label(zcast.advise(data, max_abs_error=12))
    assert "float8_e4m3fnuz clamp" in loose and loose["float8_e4m3fnuz clamp"]["meets"]
    assert loose["float8_e4m3fnuz clamp"]["max_abs_error"] == 10
    tight = zcast.advise(data, max_abs_error=5)
    assert "float8_e4m3fnuz clamp" not in _by_label(tight)
    assert "clamping would err by 10" in _ruled(tight)["float8_e4m3fnuz"]
    # float16 rounds 65530 to Infinity before any clamp: never offered for it.
    assert "clamping would err by inf" in _ruled(
        zcast.advise(np.float32([65530.0]), max_abs_error=100))["float16"]


def test_float_without_nan_gets_an_unreached_sentinel():
    data = np.array([0.5, 1.0, 1.5, np.nan, 2.0], dtype=np.float32)
    c = _by_label(zcast.advise(data, max_abs_error=0.01))["float4_e2m1fn"]
    assert c["sentinels"] == [["NaN", -6.0]] and c["nan_preserved"] and c["meets"]


def test_no_candidate_meets_the_bound(tmp_path, capsys):
    data = np.random.default_rng(7).normal(0, 1, (40, 40)).astype(np.float32)
    src = _write_array(tmp_path / "noise.zarr", data, chunks=(20, 20))
    assert cli.main(["advise", str(src), "--max-abs-error", "0"]) == 1
    captured = capsys.readouterr()
    assert "no candidate encoding meets --max-abs-error 0" in captured.err
    assert captured.err.count("\n") == 1 and "meets" in captured.out  # the table is printed


def test_json_schema(tmp_path, capsys):
    data = np.random.default_rng(8).uniform(0, 50, (48, 48)).astype(np.float32)
    src = _write_array(tmp_path / "a.zarr", data, chunks=(16, 16))
    assert cli.main(["advise", str(src), "--max-rel-error", "0.01", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc) >= {"candidates", "recommended", "ruled_out", "basis", "bound", "source"}
    assert doc["bound"] == {"max_rel_error": 0.01}
    cands = doc["candidates"]
    for c in cands:
        assert {"codecs", "max_abs_error", "max_rel_error", "stored_bytes", "meets"} <= set(c)
        assert [x["name"] for x in c["codecs"]][-1] == "cast_value"
        assert all(x["name"] in ("scale_offset", "cast_value") for x in c["codecs"])
        assert isinstance(c["meets"], bool)
    assert doc["recommended"] in cands and doc["recommended"]["meets"]
    # Ranked: every candidate that meets before any that does not, each group by stored bytes.
    meets = [c["meets"] for c in cands]
    assert meets == sorted(meets, reverse=True)
    sizes = [c["stored_bytes"] for c in cands if c["meets"]]
    assert sizes == sorted(sizes) and doc["recommended"] is cands[0] or \
        doc["recommended"] == cands[0]


def test_plot_writes_a_png(tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="NOT RUN: matplotlib is not installed")
    data = np.random.default_rng(9).normal(10, 2, (32, 32)).astype(np.float32)
    src = _write_array(tmp_path / "p.zarr", data, chunks=(16, 16))
    png = tmp_path / "plot.png"
    assert cli.main(["advise", str(src), "--max-abs-error", "0.01", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_sample_states_its_basis(tmp_path, capsys):
    data = np.random.default_rng(10).normal(10, 2, (64, 64)).astype(np.float32)
    src = _write_array(tmp_path / "s.zarr", data, chunks=(8, 8))       # 64 chunks
    advice = zcast.advise(src, max_abs_error=0.01, sample=0.25)
    assert advice.basis["chunks_measured"] == 16 and advice.basis["chunks"] == 64
    assert advice.basis["elements_measured"] == 16 * 64
    assert "random sample of 16 of 64 chunks" in advice.table()
    # The statistics cover the whole array, the errors only the sample.
    assert advice.source["valid"] == data.size
    assert all(c["elements"] == 16 * 64 for c in advice.candidates if c["failure"] is None)


def test_progress_has_no_carriage_return_off_a_terminal(capsys):
    bar = _advise_measure.Progress("zcast advise: measuring", 20, enabled=True)
    bar.start -= 10  # as if the pass had run for ten seconds
    for i in range(1, 21):
        bar.step(i)
    bar.end()
    err = capsys.readouterr().err
    assert "\r" not in err and err.count("\n") == 11 and "20/20 blocks" in err


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="exactly one"):
        zcast.advise(np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="sample"):
        zcast.advise(np.zeros(4, np.float32), max_abs_error=1, sample=0)
    with pytest.raises(SystemExit):
        cli.main(["advise", "x", "--max-abs-error", "1", "--max-rel-error", "1"])


def test_sharded_source_write_matches_the_estimate(tmp_path, capsys):
    # zarr-python validates a sharded array's inner codecs with fill value 0: the integer
    # encodings use offset 0 there, so that 0 round-trips, and the convert succeeds.
    rng = np.random.default_rng(11)
    data = rng.normal(7.3, 2, (50, 60)).astype(np.float32)
    data[:10, :10] = np.nan
    a = zarr.create_array(zarr.storage.LocalStore(tmp_path / "s.zarr"), shape=data.shape,
                          chunks=(16, 16), shards=(32, 32), dtype="float32", fill_value=np.nan)
    a[...] = data
    advice = zcast.advise(tmp_path / "s.zarr", max_abs_error=0.01)
    assert advice.reference["stored_bytes"] == _stored_bytes(tmp_path / "s.zarr")
    ints = [c for c in advice.candidates if c["family"] == "scale_offset"]
    assert ints and all(c["meets"] for c in ints), advice.table()
    assert all(c["codecs"][0]["configuration"]["offset"] == 0 for c in ints)
    rec = advice.recommended
    dst = tmp_path / "d.zarr"
    assert cli.main(["advise", str(tmp_path / "s.zarr"), "--max-abs-error", "0.01",
                     "--write", str(dst), "--quiet"]) == 0, capsys.readouterr().err
    assert _stored_bytes(dst) == rec["stored_bytes"]
    with zz.use():
        back = zarr.open_array(zarr.storage.LocalStore(dst), mode="r")[...]
    valid = np.isfinite(data)
    assert np.array_equal(np.isnan(back), ~valid)
    assert np.abs(back[valid].astype(np.float64) - data[valid]).max() <= 0.01
    # The best integer encoding converts too (zcast convert with its options).
    dst2 = tmp_path / "d2.zarr"
    assert cli.main(["convert", str(tmp_path / "s.zarr"), str(dst2),
                     *ints[0]["convert_options"]]) == 0, capsys.readouterr().err
    assert _stored_bytes(dst2) == ints[0]["stored_bytes"]
