"""The realistic sample (issue 4, item 4): an EOPF-like Sentinel-2 product written by zarr-python's
OWN scale_offset and cast_value (zcast._samples), read back by zcast three ways - the C example
program through the C API (gzip inflated with zlib), zcast.zarr's codecs inside zarr-python, and
zcast.Chain on the raw chunks - and compared bit for bit with zarr-python's own read.

The C example is the one the C++ build makes: $ZCAST_READ_CHUNK if set, else
${ZCAST_BUILD_DIR:-build/release}/zcast_read_chunk under the repository (scripts/test builds it
before running pytest). Its absence is a failure, not a skip.
"""

from __future__ import annotations

import gzip
import itertools
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import zarr

import zcast
import zcast.zarr as zz
from conftest import bits
from zcast import _samples

REPO = Path(__file__).resolve().parents[2]
NAN0 = {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}
EXPECTED_CODECS = [
    {"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}},
    {"name": "cast_value", "configuration": {"data_type": "uint16", "out_of_range": "clamp",
                                             "scalar_map": NAN0}},
    {"name": "bytes", "configuration": {"endian": "little"}},
    {"name": "gzip", "configuration": {"level": 6}},
]


def read_chunk_program() -> Path:
    if os.environ.get("ZCAST_READ_CHUNK"):
        program = Path(os.environ["ZCAST_READ_CHUNK"])
    else:
        build = Path(os.environ.get("ZCAST_BUILD_DIR", "build/release"))
        program = (build if build.is_absolute() else REPO / build) / "zcast_read_chunk"
    if not (program.is_file() and os.access(program, os.X_OK)):
        pytest.fail(f"the C example {program} is missing: build the C++ project first "
                    "(scripts/test does: cmake -S . -B build/release -G Ninja && cmake --build "
                    "build/release), or set ZCAST_READ_CHUNK to the zcast_read_chunk program")
    return program


@pytest.fixture(scope="module")
def product(tmp_path_factory):
    root = tmp_path_factory.mktemp("eopf") / "S2Z_MSIL2A_sample.zarr"
    written = _samples.write_eopf_sample(root)
    return root, written


def zarr_python_read(path: Path) -> np.ndarray:
    """The array as zarr-python reads it with its own codecs."""
    with zarr.config.set(_samples.ZARR_PYTHON_CODECS):
        return zarr.open_array(zarr.storage.LocalStore(path, read_only=True), mode="r")[...]


def chunk_grid(band: _samples.Band):
    rows = -(-band.shape[0] // band.chunks[0])
    cols = -(-band.shape[1] // band.chunks[1])
    for i, j in itertools.product(range(rows), range(cols)):
        region = (slice(i * band.chunks[0], min((i + 1) * band.chunks[0], band.shape[0])),
                  slice(j * band.chunks[1], min((j + 1) * band.chunks[1], band.shape[1])))
        yield (i, j), region


def test_the_sample_is_written_by_zarr_pythons_codecs(product):
    root, written = product
    assert set(written) == {b.path for b in _samples.BANDS}
    assert {b.dtype for b in _samples.BANDS} == {"float64", "float32"}
    root_meta = json.loads((root / "zarr.json").read_text())
    assert root_meta["node_type"] == "group"
    assert root_meta["attributes"]["other_metadata"]["BOA_ADD_OFFSET"] == -1000
    for band in _samples.BANDS:
        meta = json.loads((root / band.path / "zarr.json").read_text())
        assert meta["data_type"] == band.dtype and meta["fill_value"] == "NaN"
        assert meta["codecs"] == EXPECTED_CODECS
        assert meta["chunk_grid"]["configuration"]["chunk_shape"] == list(band.chunks)
        assert any(s % c for s, c in zip(band.shape, band.chunks))  # partial edge chunks
        files = {p.relative_to(root / band.path / "c").as_posix()
                 for p in (root / band.path / "c").rglob("*") if p.is_file()}
        grid = [f"{i}/{j}" for (i, j), _ in chunk_grid(band)]
        # The no-data corner covers chunk 0/0: zarr does not store it; every other one is there.
        assert files == set(grid) - {"0/0"}
        for name in files:
            assert (root / band.path / "c" / name).read_bytes()[:2] == b"\x1f\x8b"  # gzip
        data = written[band.path]
        assert np.isnan(data[: band.chunks[0], : band.chunks[1]]).all()
        assert 0.1 < np.isnan(data).mean() < 0.5
        assert np.nanmax(data) > 6.4535 and np.nanmin(data) < -0.1  # clamped both ways


def test_the_sample_is_deterministic(product, tmp_path):
    root, written = product
    again = _samples.write_eopf_sample(tmp_path / "again.zarr")
    for band in _samples.BANDS:
        assert bits(again[band.path]).tolist() == bits(written[band.path]).tolist()
        a, b = root / band.path, tmp_path / "again.zarr" / band.path
        assert (a / "zarr.json").read_text() == (b / "zarr.json").read_text()
        for p in (a / "c").rglob("*"):
            if p.is_file():  # the gzip header's timestamp may differ; the content may not
                q = b / "c" / p.relative_to(a / "c")
                assert gzip.decompress(p.read_bytes()) == gzip.decompress(q.read_bytes())


def test_zcast_codecs_in_zarr_python_read_the_same_bits(product):
    """zcast.zarr's ScaleOffset and CastValue, selected with zcast.zarr.use(), read what
    zarr-python's own codecs wrote exactly as zarr-python's own codecs read it; and that is
    zcast's decode of zcast's encode of the source (so zarr-python's encode = zcast's)."""
    root, written = product
    for band in _samples.BANDS:
        theirs = zarr_python_read(root / band.path)
        with zz.use():
            a = zarr.open_array(zarr.storage.LocalStore(root / band.path, read_only=True),
                                mode="r")
            assert [type(f) for f in a.filters] == [zz.ScaleOffset, zz.CastValue]
            ours = a[...]
        assert ours.dtype == theirs.dtype == np.dtype(band.dtype)
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
        np.testing.assert_array_equal(bits(ours), bits(theirs))
        source = written[band.path]
        chain = zcast.Chain.from_array_metadata(root / band.path)
        dn = chain.encode(source)
        np.testing.assert_array_equal(bits(ours), bits(chain.decode(dn)))
        # No data: the source's NaN, plus the dark pixels whose DN clamps to 0.
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(source) | (dn == 0))
        assert ((dn == 0) & ~np.isnan(source)).sum() >= 2
        saturated = chain.decode(np.array([65535], dtype=np.uint16))[0]  # 6.4535 in the type
        assert (ours == saturated).sum() >= 3 and (dn == 65535).sum() >= 3
        valid = ~np.isnan(ours) & (dn < 65535)
        step = 0.5 / _samples.SCALE * (1 + 1e-3 if band.dtype == "float32" else 1 + 1e-9)
        assert np.max(np.abs(ours[valid] - source[valid])) <= step


def test_chain_decodes_the_raw_chunks_and_encodes_them_back(product):
    """zcast.Chain on the chunk files as they are on disk (gunzip, little-endian uint16): decode
    gives zarr-python's values; encoding the source chunk (padded with the fill value, as zarr
    pads edge chunks) gives exactly the DN zarr-python stored."""
    root, written = product
    for band in _samples.BANDS:
        chain = zcast.Chain.from_array_metadata((root / band.path / "zarr.json").read_text())
        assert chain.remaining_codecs == EXPECTED_CODECS[2:]
        theirs = zarr_python_read(root / band.path)
        for (i, j), region in chunk_grid(band):
            path = root / band.path / "c" / str(i) / str(j)
            if not path.exists():
                assert np.isnan(theirs[region]).all()
                assert chain.decode(np.full(1, chain.encoded_fill_value)).tolist() == [
                    pytest.approx(np.nan, nan_ok=True)]
                continue
            dn = np.frombuffer(gzip.decompress(path.read_bytes()), dtype="<u2").reshape(band.chunks)
            values = chain.decode(dn)
            h, w = theirs[region].shape
            np.testing.assert_array_equal(bits(values[:h, :w]), bits(theirs[region]))
            assert np.isnan(values[h:, :]).all() and np.isnan(values[:, w:]).all()
            padded = np.full(band.chunks, np.nan, dtype=band.dtype)
            padded[:h, :w] = written[band.path][region]
            np.testing.assert_array_equal(chain.encode(padded), dn)


def _parse_c_output(stdout: str, dtype: np.dtype) -> dict:
    lines = stdout.splitlines()
    printed = {}
    for line in lines:
        m = re.fullmatch(r"\[(\d+)\] (\S+)", line)
        if m:
            printed[int(m.group(1))] = dtype.type(float(m.group(2)))
    return {"lines": lines, "values": printed}


def test_c_example_reads_every_chunk_like_zarr_python(product, tmp_path):
    """examples/read_chunk.c through the C API: zcast_chain_create from the zarr.json, the
    chunk file inflated with zlib, the bytes codec's byte order, zcast_chain_decode; its raw
    output is compared with zarr-python's own read of the same region, bit for bit."""
    program = read_chunk_program()
    root, _ = product
    compared = partial = 0
    for band in _samples.BANDS:
        theirs = zarr_python_read(root / band.path)
        meta = root / band.path / "zarr.json"
        dtype = np.dtype(band.dtype)
        for (i, j), region in chunk_grid(band):
            chunk = root / band.path / "c" / str(i) / str(j)
            if not chunk.exists():
                continue
            out = tmp_path / f"{band.path.replace('/', '_')}_{i}_{j}.bin"
            proc = subprocess.run([str(program), str(meta), str(chunk), str(out)],
                                  capture_output=True, text=True, timeout=60)
            assert proc.returncode == 0, f"{chunk}: {proc.stderr}"
            parsed = _parse_c_output(proc.stdout, dtype)
            n = band.chunks[0] * band.chunks[1]
            assert parsed["lines"][0] == f'array:   "{band.dtype}"'
            assert parsed["lines"][1] == (f"chunk:   {chunk.stat().st_size} bytes stored, "
                                          "compressor gzip")
            assert parsed["lines"][2] == (
                f'stored:  {n} x "uint16" (little-endian), fill value 0, codec 2 is '
                '{"name":"bytes","configuration":{"endian":"little"}}')
            decoded = np.fromfile(out, dtype=dtype)
            assert decoded.size == n
            decoded = decoded.reshape(band.chunks)
            h, w = theirs[region].shape
            np.testing.assert_array_equal(np.isnan(decoded[:h, :w]), np.isnan(theirs[region]))
            np.testing.assert_array_equal(bits(decoded[:h, :w]), bits(theirs[region]))
            assert np.isnan(decoded[h:, :]).all() and np.isnan(decoded[:, w:]).all()
            partial += (h, w) != band.chunks
            # The values it printed (%.17g / %.9g: exact) are those it wrote.
            assert len(parsed["values"]) == 32
            for k, v in parsed["values"].items():
                assert bits(np.array([v])) == bits(decoded.reshape(-1)[k:k + 1]), (chunk, k)
            compared += 1
    assert compared == 6 * 11 and partial == 6 * 6


def test_c_example_names_what_it_cannot_read(product, tmp_path):
    program = read_chunk_program()
    root, _ = product
    band = root / _samples.BANDS[0].path
    chunk = band / "c" / "1" / "1"
    meta = json.loads((band / "zarr.json").read_text())
    meta["codecs"][3] = {"name": "zstd", "configuration": {"level": 3, "checksum": False}}
    (tmp_path / "zstd.json").write_text(json.dumps(meta))
    proc = subprocess.run([str(program), str(tmp_path / "zstd.json"), str(chunk)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert 'codec 3 is {"name":"zstd"' in proc.stderr and "only gzip" in proc.stderr
    # A chunk that is not gzip while the metadata says so, and one cut short.
    shutil.copy(chunk, tmp_path / "cut")
    (tmp_path / "cut").write_bytes(chunk.read_bytes()[:40])
    (tmp_path / "raw").write_bytes(gzip.decompress(chunk.read_bytes()))
    for bad in ("cut", "raw"):
        proc = subprocess.run([str(program), str(band / "zarr.json"), str(tmp_path / bad)],
                              capture_output=True, text=True, timeout=60)
        assert proc.returncode == 1 and "gzip codec 3 failed" in proc.stderr, proc.stderr
    proc = subprocess.run([str(program), str(band / "zarr.json"), str(band / "c" / "0" / "0")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "cannot read" in proc.stderr
