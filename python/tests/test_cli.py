"""The zcast command-line tool, run as a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import zarr

import zcast
import zcast.zarr as zz

SCRIPT = Path(sys.executable).parent / "zcast"


def run(*args, check=True, cwd=None):
    proc = subprocess.run([sys.executable, "-m", "zcast", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def test_console_script_is_installed():
    proc = subprocess.run([str(SCRIPT), "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"zcast {zcast.__version__}"


@pytest.mark.parametrize("sub, words", [
    ("demo", ["--size", "--out", "--repeat"]),
    ("cast", ["--from", "--to", "--rounding", "--out-of-range", "--map", "IN", "OUT"]),
    ("inspect", ["PATH", "fill value", "zcast_chain_create"]),
    ("convert", ["SRC", "DST", "--data-type", "--map", "progress", "--scale", "--offset",
                 "replaced"]),
    ("sample-eopf", ["DIR", "--seed", "EOPF", "partial"]),
])
def test_help(sub, words):
    out = run(sub, "--help").stdout
    for w in words:
        assert w in out
    top = run("--help").stdout
    assert sub in top


def test_cast_npy_and_raw(tmp_path):
    src = tmp_path / "in.npy"
    np.save(src, np.array([[1.5, 2.5], [np.nan, 300.0]], dtype=np.float32))
    out = run("cast", "--to", "uint8", "--out-of-range", "clamp", "--map", "NaN=0", src,
              tmp_path / "out.npy").stdout
    assert "cast 4 elements float32 -> uint8" in out
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), [[2, 2], [0, 255]])

    raw = tmp_path / "in.bin"
    np.array([1.0, -0.0, 1e6], dtype=np.float64).tofile(raw)
    run("cast", "--from", "float64", "--to", "float8_e4m3", "--rounding", "towards-zero",
        "--out-of-range", "clamp", raw, tmp_path / "out.bin")
    assert list((tmp_path / "out.bin").read_bytes()) == [0x38, 0x80, 0x78]


def test_cast_errors(tmp_path):
    src = tmp_path / "in.npy"
    np.save(src, np.array([[1.0, 2.0], [3.0, 128.0]]))
    proc = run("cast", "--to", "int8", src, tmp_path / "o.npy", check=False)
    assert proc.returncode == 1
    assert "element (1, 1)" in proc.stderr and "128" in proc.stderr and "int8" in proc.stderr
    proc = run("cast", "--to", "float16", "--out-of-range", "wrap", src, tmp_path / "o.npy",
               check=False)
    assert proc.returncode == 1 and "invalid configuration" in proc.stderr and "wrap" in proc.stderr
    proc = run("cast", "--to", "int8", tmp_path / "raw.bin", tmp_path / "o.bin", check=False)
    assert proc.returncode == 1 and "--from is required" in proc.stderr
    proc = run("cast", "--to", "int8", "--map", "oops", src, tmp_path / "o.npy", check=False)
    assert proc.returncode == 2 and "IN=OUT" in proc.stderr


def test_demo_prints_the_table(tmp_path):
    proc = run("demo", "--size", "96x80", "--repeat", "1", "--out", tmp_path / "demo")
    out = proc.stdout
    assert "sample field 96x80 float32" in out
    for label in ("float32 (no cast)", "float16", "bfloat16", "float8_e4m3", "float8_e5m2",
                  "uint8 (x+20)*3.5, NaN->0", "int16 x*100, NaN->-32768"):
        assert label in out
    header = next(line for line in out.splitlines() if line.startswith("configuration"))
    for col in ("stored", "ratio", "max err", "RMS err", "enc MB/s", "dec MB/s"):
        assert col in header
    main_table = out.split("cast kernels only", 1)[0]
    rows = [line for line in main_table.splitlines() if " zcast " in line]
    assert len(rows) == 6 and all(line.rstrip().endswith("ok") for line in rows)
    assert any(" zarr-python " in line for line in out.splitlines())  # the reference codec too
    assert "failed" not in out
    # float8_e4m3's max error on values up to ~45: half a step of 2 at 32..64 is 2 at most.
    e4m3 = next(line for line in rows if line.startswith("float8_e4m3 "))
    assert 0 < float(e4m3.split()[5]) <= 2.0  # label, codec, size, unit, ratio, max err
    assert (tmp_path / "demo").is_dir() and any((tmp_path / "demo").iterdir())
    # The second table: the casts alone, zcast beside cast-value-rs and astype.
    assert "cast kernels only" in out and "cast-value-rs enc" in out
    kernel_rows = out.split("cast kernels only", 1)[1].splitlines()
    assert any(r.startswith("float8_e4m3, clamp") for r in kernel_rows)
    assert any(r.startswith("uint8, clamp, NaN->0") for r in kernel_rows)


def make_source(path: Path, shape=(30, 20), chunks=(8, 8)) -> np.ndarray:
    data = (np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 7.0 - 20) * 3
    data[0, 0] = np.nan
    a = zarr.create_array(zarr.storage.LocalStore(path), shape=shape, chunks=chunks,
                          dtype="float32", fill_value=np.nan)
    a[:] = data
    return data


def test_convert_and_inspect(tmp_path):
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    data = make_source(src)
    before = {p: p.read_bytes() for p in src.rglob("*") if p.is_file()}
    proc = run("convert", src, dst, "--data-type", "int16", "--map", "NaN=-32768",
               "--rounding", "nearest-away")
    assert "converted" in proc.stdout and "max error" in proc.stdout
    assert "NaN mismatches 0" in proc.stdout
    assert "blocks" in proc.stderr  # the progress bar
    with zz.use():
        got = zarr.open_array(zarr.storage.LocalStore(dst), mode="r")[:]
    want = zcast.cast_array(zcast.cast_array(data, "int16", rounding="nearest-away",
                                             scalar_map=[("NaN", -32768)]),
                            "float32", scalar_map=[(-32768, "NaN")])
    np.testing.assert_array_equal(got, want)
    assert {p: p.read_bytes() for p in src.rglob("*") if p.is_file()} == before

    out = run("inspect", dst).stdout
    assert 'data_type "float32", fill_value "NaN"' in out
    assert 'cast_value {"data_type":"int16","rounding":"nearest-away"' in out
    assert "-> data_type int16, fill_value -32768" in out
    assert "metadata valid (1 cast_value codec(s) checked)" in out


def test_convert_failure_removes_destination(tmp_path):
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    make_source(src)
    before = {p: p.read_bytes() for p in src.rglob("*") if p.is_file()}
    # Values above 127 (up to ~196) in later blocks: int8 without clamp fails part way through.
    proc = run("convert", src, dst, "--data-type", "int8", "--map", "NaN=0", check=False)
    assert proc.returncode == 1
    assert "conversion failed" in proc.stderr and "nothing written to" in proc.stderr
    assert "out of the range of int8" in proc.stderr
    assert not dst.exists()
    assert {p: p.read_bytes() for p in src.rglob("*") if p.is_file()} == before
    # A fill value that cannot round-trip fails before any data is written.
    proc = run("convert", src, dst, "--data-type", "uint8", "--out-of-range", "clamp",
               check=False)
    assert proc.returncode == 1 and "R9" in proc.stderr and not dst.exists()
    # An existing destination is never touched.
    dst.mkdir()
    (dst / "keep").write_text("x")
    proc = run("convert", src, dst, "--data-type", "float16", check=False)
    assert proc.returncode == 1 and "already exists" in proc.stderr
    assert (dst / "keep").read_text() == "x"


def test_inspect_reports_invalid_cast_value(tmp_path):
    path = tmp_path / "a.zarr"
    with zz.use():
        zarr.create_array(zarr.storage.LocalStore(path), shape=(4,), chunks=(2,), dtype="float32",
                          fill_value=0, filters=[zz.CastValue(data_type="uint8")])
    meta_file = path / "zarr.json"
    meta = json.loads(meta_file.read_text())
    assert run("inspect", path).returncode == 0
    meta["codecs"][0]["configuration"]["roundng"] = "towards-zero"
    meta_file.write_text(json.dumps(meta))
    proc = run("inspect", path, check=False)
    assert proc.returncode == 1
    assert "INVALID" in proc.stdout and '"roundng"' in proc.stdout
    meta["codecs"][0]["configuration"] = {"data_type": "uint8",
                                          "scalar_map": {"encode": [[1, 300]]}}
    meta_file.write_text(json.dumps(meta))
    proc = run("inspect", path, check=False)
    assert proc.returncode == 1 and "scalar_map.encode[0][1]" in proc.stdout and "300" in proc.stdout
    proc = run("inspect", tmp_path / "missing", check=False)
    assert proc.returncode == 1 and "cannot read" in proc.stderr


# ---- the chain: convert --scale/--offset, inspect, sample-eopf ----------------------------------


def test_convert_with_scale_offset_writes_the_chain(tmp_path):
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    data = make_source(src)  # float32 about -60..200, NaN at [0, 0]
    proc = run("convert", src, dst, "--data-type", "uint16", "--scale", "100", "--offset", "-70",
               "--out-of-range", "clamp", "--map", "NaN=0")
    out = proc.stdout
    assert ('codecs    {"name":"scale_offset","configuration":{"offset":-70,"scale":100}} + '
            '{"name":"cast_value","configuration":{"data_type":"uint16","out_of_range":"clamp",'
            '"scalar_map":{"encode":[["NaN",0]],"decode":[[0,"NaN"]]}}}') in out
    assert ('chain     float32 -> scale_offset -> cast_value -> uint16, fill_value "NaN" -> 0; '
            'then bytes, zstd') in out
    assert "NaN mismatches 0" in out and "replacing" not in out
    meta = json.loads((dst / "zarr.json").read_text())
    assert [c["name"] for c in meta["codecs"]] == ["scale_offset", "cast_value", "bytes", "zstd"]
    chain = zcast.Chain.from_array_metadata(dst)
    with zz.use():
        got = zarr.open_array(zarr.storage.LocalStore(dst), mode="r")[:]
    np.testing.assert_array_equal(got, chain.decode(chain.encode(data)))
    assert np.nanmax(np.abs(got - data)) <= 0.005 + 1e-4  # half a step of 1/100

    out = run("inspect", dst).stdout
    assert 'scale_offset {"offset":-70,"scale":100}\n     -> data_type float32, fill_value "NaN"' in out
    assert "-> data_type uint16, fill_value 0" in out
    assert ("zcast chain: codecs 0-1, 2 step(s) in one fused pass, float32 -> uint16; the reader "
            "takes over at codec 2 (bytes)") in out
    assert out.rstrip().endswith("metadata valid (1 scale_offset, 1 cast_value codec(s) checked)")

    # A scale that is not a valid scalar of the array's type: nothing is written.
    proc = run("convert", src, tmp_path / "bad.zarr", "--data-type", "uint16", "--scale", "0",
               check=False)
    assert proc.returncode == 1 and "R22" in proc.stderr and not (tmp_path / "bad.zarr").exists()


def test_convert_replaces_the_sources_chain(tmp_path):
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    data = np.linspace(-1, 1, 60, dtype=np.float64).reshape(6, 10)
    with zz.use():
        a = zarr.create_array(zarr.storage.LocalStore(src), shape=data.shape, chunks=(4, 4),
                              dtype="float64", fill_value=0,
                              filters=[zz.ScaleOffset(offset=-1, scale=100),
                                       zz.CastValue(data_type="uint8")])
        a[:] = data
    proc = run("convert", src, dst, "--data-type", "float32")
    assert "(replacing the source's scale_offset, cast_value)" in proc.stdout
    meta = json.loads((dst / "zarr.json").read_text())
    assert [c["name"] for c in meta["codecs"]][:2] == ["cast_value", "bytes"]
    with zz.use():
        got = zarr.open_array(zarr.storage.LocalStore(dst), mode="r")[:]
    with zz.use():
        decoded = zarr.open_array(zarr.storage.LocalStore(src), mode="r")[:]
    np.testing.assert_array_equal(got, zcast.cast_array(zcast.cast_array(decoded, "float32"),
                                                        "float64"))
    assert np.max(np.abs(got - data)) <= 0.005 + 1e-6  # the source's own step: 1/100


def test_inspect_fixedscaleoffset_and_a_chain_inside_shards(tmp_path):
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    (legacy / "zarr.json").write_text(json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": [8], "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 1000.0,
        "codecs": [{"name": "numcodecs.fixedscaleoffset",
                    "configuration": {"offset": 1000, "scale": 10, "dtype": "<f8",
                                      "astype": "|u1"}}, "bytes"]}))
    out = run("inspect", legacy).stdout
    assert '= scale_offset {"offset":1000,"scale":10}\n       -> data_type float64, fill_value 0.0' in out
    assert ('= cast_value {"data_type":"uint8","out_of_range":"wrap"}\n'
            '       -> data_type uint8, fill_value 0') in out
    assert "zcast chain: codec 0, 2 step(s) in one fused pass, float64 -> uint8" in out
    assert "  1  bytes" in out
    assert "metadata valid (1 numcodecs.fixedscaleoffset codec(s) checked)" in out

    sharded = tmp_path / "sharded.zarr"
    with zz.use():
        zarr.create_array(zarr.storage.LocalStore(sharded), shape=(8, 8), chunks=(4, 4),
                          shards=(8, 8), dtype="float32", fill_value=np.nan,
                          filters=[zz.ScaleOffset(offset=10, scale=2),
                                   zz.CastValue(data_type="int8", scalar_map={
                                       "encode": [["NaN", -128]], "decode": [[-128, "NaN"]]})])
    out = run("inspect", sharded).stdout
    assert "inner chunks [4, 4]:" in out
    assert "       0  scale_offset" in out and "          -> data_type int8, fill_value -128" in out
    assert "the reader takes over at codec 2 (bytes)" in out
    assert "metadata valid (1 scale_offset, 1 cast_value codec(s) checked)" in out

    # An invalid scale_offset is reported by the chain, naming the codec and the rule.
    meta = json.loads((legacy / "zarr.json").read_text())
    meta["codecs"] = [{"name": "scale_offset", "configuration": {"offset": 1, "scale": 0}},
                      "bytes"]
    (legacy / "zarr.json").write_text(json.dumps(meta))
    proc = run("inspect", legacy, check=False)
    assert proc.returncode == 1
    assert "INVALID: 1 problem(s)" in proc.stdout
    assert "codecs[0] scale_offset: " in proc.stdout and "R22" in proc.stdout


def test_sample_eopf_then_inspect_and_convert(tmp_path):
    root = tmp_path / "S2.zarr"
    out = run("sample-eopf", root).stdout
    assert "written by zarr-python" in out and "own scale_offset and cast_value" in out
    assert "EOPF layout (small" in out
    for band in ("r10m/b02", "r10m/b04", "r20m/b05", "r20m/b11", "r60m/b01"):
        assert f"measurements/reflectance/{band}" in out
    rows = [line for line in out.splitlines() if line.startswith("measurements/")]
    assert len(rows) == 9 and sum("22 of 25" in r for r in rows) == 7
    assert sum("11 of 12" in r for r in rows) == 2
    b04 = root / "measurements/reflectance/r10m/b04"
    assert f"zcast_read_chunk {b04} b04.f32" in out
    proc = run("sample-eopf", root, check=False)
    assert proc.returncode == 1 and "already exists" in proc.stderr
    proc = run("sample-eopf", tmp_path / "x.zarr", "--size", "medium", check=False)
    assert proc.returncode == 2 and "invalid choice" in proc.stderr

    out = run("inspect", b04).stdout
    assert 'data_type "float32", fill_value "NaN"' in out
    assert "0  sharding_indexed" in out and "inner chunks [244, 244]" in out
    assert ('0  scale_offset {"offset":-0.1,"scale":10000.0}\n'
            '          -> data_type float32, fill_value "NaN"') in out
    assert ('1  cast_value {"data_type":"uint16","scalar_map":'
            '{"encode":[["NaN",0]],"decode":[[0,"NaN"]]}}\n          -> data_type uint16, fill_value 0') in out
    assert "2  bytes" in out and '3  blosc {"typesize":2,"cname":"zstd","clevel":3' in out
    assert "metadata valid (1 scale_offset, 1 cast_value codec(s) checked)" in out

    # The sample (zarr-python's codecs) re-encoded to uint8 with a coarser scale by zcast; the
    # offset below the darkest valid pixel (DN 1), so that no valid value meets the NaN sentinel.
    dst = tmp_path / "b04_u8.zarr"
    proc = run("convert", b04, dst, "--data-type", "uint8", "--scale", "200", "--offset", "-0.105",
               "--out-of-range", "clamp", "--map", "NaN=0")
    assert "replacing the source's scale_offset, cast_value" in proc.stdout
    assert "NaN mismatches 0" in proc.stdout
    meta = json.loads((dst / "zarr.json").read_text())
    inner = meta["codecs"][0]["configuration"]["codecs"]
    assert [c["name"] for c in inner] == ["scale_offset", "cast_value", "bytes", "blosc"]
