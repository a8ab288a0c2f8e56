"""The realistic sample: a synthetic Sentinel-2 L2A product in the exact layout of EOPF
Zarr products (one shard per band, crc32c index at the end, inner chunks scale_offset +
cast_value uint16 + bytes + blosc zstd, float32), written by zarr-python's OWN codecs
(zcast._samples), then read back by zcast: the C reader examples/reader (zcast_read_chunk) through
the C API, and zcast.zarr's codecs inside zarr-python, each compared bit for bit with zarr-python's
own read.

The C reader is the one the C++ build makes: $ZCAST_READ_CHUNK if set, else
${ZCAST_BUILD_DIR:-build/release}/zcast_read_chunk under the repository (scripts/test builds it
before running pytest). Its absence is a failure, not a skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
import zarr
import zarr.codecs.cast_value
import zarr.codecs.scale_offset

import zcast.zarr as zz
from conftest import bits
from zcast import _samples

REPO = Path(__file__).resolve().parents[2]
NAN0 = {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}


def expected_codecs(inner: tuple[int, int]) -> list:
    """The codecs of a real EOPF band (zcast._samples), with this inner chunk shape."""
    return [{"name": "sharding_indexed", "configuration": {
        "chunk_shape": list(inner),
        "codecs": [
            {"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000.0}},
            {"name": "cast_value", "configuration": {"data_type": "uint16", "scalar_map": NAN0}},
            {"name": "bytes", "configuration": {"endian": "little"}},
            {"name": "blosc", "configuration": {"typesize": 2, "cname": "zstd", "clevel": 3,
                                                "shuffle": "shuffle", "blocksize": 0}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                         {"name": "crc32c"}],
        "index_location": "end"}}]


def read_chunk_program() -> Path:
    if os.environ.get("ZCAST_READ_CHUNK"):
        program = Path(os.environ["ZCAST_READ_CHUNK"])
    else:
        build = Path(os.environ.get("ZCAST_BUILD_DIR", "build/release"))
        program = (build if build.is_absolute() else REPO / build) / "zcast_read_chunk"
    if not (program.is_file() and os.access(program, os.X_OK)):
        pytest.fail(f"the C reader {program} is missing: build the C++ project first "
                    "(scripts/test does: cmake -S . -B build/release -G Ninja && cmake --build "
                    "build/release), or set ZCAST_READ_CHUNK to the zcast_read_chunk program")
    return program


class ReaderResult(subprocess.CompletedProcess):
    """A finished reader run and the peak resident memory of the reader process alone."""
    peak_rss_mib: float


# Starts the reader from a small interpreter and writes its peak RSS (os.wait4) to argv[1]. The
# intermediate process is what makes the figure the reader's: Linux carries the high-water mark
# of the process image an exec replaces into the new program's, so a reader spawned straight from
# pytest (a few hundred MiB resident) would report pytest's size.
_MEASURE = """
import os, sys
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)
"""


def run_reader(*args, timeout=120, measure=False) -> ReaderResult:
    cmd = [str(read_chunk_program()), *map(str, args)]
    if not measure:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        result = ReaderResult(cmd, proc.returncode, proc.stdout, proc.stderr)
        result.peak_rss_mib = float("nan")
        return result
    with tempfile.TemporaryDirectory() as tmp:
        rss = Path(tmp) / "rss"
        proc = subprocess.run([sys.executable, "-S", "-c", _MEASURE, str(rss), *cmd],
                              capture_output=True, text=True, timeout=timeout)
        result = ReaderResult(cmd, proc.returncode, proc.stdout, proc.stderr)
        result.peak_rss_mib = int(rss.read_text()) / 1024
    return result


@pytest.fixture(scope="module")
def product(tmp_path_factory):
    root = tmp_path_factory.mktemp("eopf") / "S2Z_MSIL2A_sample.zarr"
    _samples.write_eopf_sample(root)
    return root


def zarr_python_read(path: Path, region=...) -> np.ndarray:
    """The array as zarr-python reads it with its own codecs."""
    with zarr.config.set(_samples.ZARR_PYTHON_CODECS):
        a = zarr.open_array(zarr.storage.LocalStore(path, read_only=True), mode="r")
        assert [type(f) for f in a.filters] in (
            [], [zarr.codecs.scale_offset.ScaleOffset, zarr.codecs.cast_value.CastValue])
        return a[region]


def all_arrays(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.rglob("zarr.json")
                  if json.loads(p.read_text())["node_type"] == "array")


def shard_parts(shard: bytes, n: int) -> list[bytes | None]:
    """The inner chunks of a shard (index at the end), None for the ones never written."""
    index = _samples.shard_index(shard, n)
    return [None if off == 2**64 - 1 else shard[off:off + size] for off, size in index.tolist()]


def build_shard(parts: list[bytes | None]) -> bytes:
    """A shard (index at the end, bytes little + crc32c) holding `parts` in order."""
    data, entries, offset = bytearray(), [], 0
    for part in parts:
        if part is None:
            entries += [2**64 - 1, 2**64 - 1]
        else:
            entries += [offset, len(part)]
            data += part
            offset += len(part)
    data += np.array(entries, dtype="<u8").tobytes() + b"\0\0\0\0"
    _samples.rewrite_index_crc(data, len(parts))
    return bytes(data)


# ---- the sample ---------------------------------------------------------------------------------

def test_the_sample_has_the_eopf_layout(product):
    root = product
    root_meta = json.loads((root / "zarr.json").read_text())
    assert root_meta["node_type"] == "group"
    assert root_meta["attributes"]["other_metadata"]["BOA_ADD_OFFSET"] == -1000
    assert {b.resolution for b in _samples.BANDS} == {"r10m", "r20m", "r60m"}
    assert all(sum(b.resolution == r for b in _samples.BANDS) >= 2 for r in ("r10m", "r20m", "r60m"))
    for band in _samples.BANDS:
        shape, inner, shard = _samples.grid(band.resolution)
        meta = json.loads((root / band.path / "zarr.json").read_text())
        assert meta["data_type"] == "float32" and meta["fill_value"] == "NaN"
        assert meta["shape"] == list(shape)
        assert meta["chunk_grid"]["configuration"]["chunk_shape"] == list(shard)
        assert meta["codecs"] == expected_codecs(inner)
        # xarray's form for a float _FillValue in Zarr v3: base64 of the little-endian float64 NaN
        assert meta["attributes"] == {"_FillValue": "AAAAAAAA+H8="}
        assert meta["dimension_names"] == ["y", "x"]
        assert all(s < c for s, c in zip(shape, shard))      # one shard per band
        assert any(s % c for s, c in zip(shape, inner))      # partial edge chunks
        files = [p for p in (root / band.path / "c").rglob("*") if p.is_file()]
        assert [f.relative_to(root / band.path).as_posix() for f in files] == ["c/0/0"]
        shard_bytes = files[0].read_bytes()
        n = (shard[0] // inner[0]) * (shard[1] // inner[1])
        index_start = len(shard_bytes) - 16 * n - 4
        assert _samples.crc32c(shard_bytes[index_start:-4]) == int.from_bytes(shard_bytes[-4:], "little")
        parts = shard_parts(shard_bytes, n)
        assert parts[0] is None                               # a chunk never written
        assert sum(p is None for p in parts) < n // 2
        assert all(p[0] == 2 and p[3] == 2 for p in parts if p is not None)  # blosc, typesize 2
        values = zarr_python_read(root / band.path)
        expected = _samples.band_data(band)
        np.testing.assert_array_equal(bits(values), bits(expected))
        assert 0.2 < np.isnan(values).mean() < 0.5
        dn = _samples.band_dn(band)
        assert dn.max() == 65535 and dn[dn > 0].min() == 1
        # On the 1e-4 grid: the float32 value of each DN, and it encodes back to that DN.
        assert (np.rint((values[dn > 0].astype(np.float64) + 0.1) * 1e4) == dn[dn > 0]).all()


def test_the_sample_is_written_by_zarr_pythons_own_codecs(tmp_path):
    """With zcast (and cast-value) registered under the same codec names, the sample still goes
    through zarr.codecs.scale_offset.ScaleOffset and zarr.codecs.cast_value.CastValue."""
    used = []

    def spy(cls):
        original = cls._encode_single

        async def wrapper(self, *args, **kwargs):
            used.append(type(self))
            return await original(self, *args, **kwargs)
        return mock.patch.object(cls, "_encode_single", wrapper)

    with zz.use(), spy(zarr.codecs.scale_offset.ScaleOffset), spy(zarr.codecs.cast_value.CastValue):
        _samples.write_eopf_sample(tmp_path / "p.zarr")
    inner_written = sum(_samples.stored_inner_chunks(tmp_path / "p.zarr" / b.path, "small",
                                                     b.resolution)[0] for b in _samples.BANDS)
    assert used.count(zarr.codecs.cast_value.CastValue) >= inner_written
    assert used.count(zarr.codecs.scale_offset.ScaleOffset) >= inner_written
    assert set(used) == {zarr.codecs.scale_offset.ScaleOffset, zarr.codecs.cast_value.CastValue}


def test_the_sample_is_deterministic(product, tmp_path):
    again = tmp_path / "again.zarr"
    _samples.write_eopf_sample(again)
    for p in product.rglob("*"):
        if p.is_file():
            assert p.read_bytes() == (again / p.relative_to(product)).read_bytes(), p


def test_sizes():
    assert _samples.grid("r10m", "full") == ((10980, 10980), (244, 244), (10980, 10980))
    assert _samples.grid("r20m", "full") == ((5490, 5490), (183, 183), (5490, 5490))
    assert _samples.grid("r60m", "full") == ((1830, 1830), (183, 183), (1830, 1830))
    with pytest.raises(ValueError, match="small, full"):
        _samples.grid("r10m", "medium")


def test_zcast_codecs_in_zarr_python_read_the_same_bits(product):
    for band in _samples.BANDS:
        theirs = zarr_python_read(product / band.path)
        with zz.use():
            a = zarr.open_array(zarr.storage.LocalStore(product / band.path, read_only=True),
                                mode="r")
            assert [type(f) for f in a.filters] == [zz.ScaleOffset, zz.CastValue]
            ours = a[...]
        np.testing.assert_array_equal(bits(ours), bits(theirs))


# ---- the C reader: every array, bit for bit ------------------------------------------------------

def test_c_reader_reads_every_array_like_zarr_python(product, tmp_path):
    arrays = all_arrays(product)
    assert len(arrays) == len(_samples.BANDS) + 6  # and the x, y coordinates (zstd, unsharded)
    for path in arrays:
        theirs = zarr_python_read(path)
        for threads in (1, 2):
            out = tmp_path / f"{path.name}_{threads}.bin"
            proc = run_reader("--threads", threads, path, out)
            assert proc.returncode == 0, proc.stderr
            ours = np.fromfile(out, dtype=theirs.dtype)
            assert ours.size == theirs.size, path
            np.testing.assert_array_equal(bits(ours.reshape(theirs.shape)), bits(theirs))
            assert not Path(f"{out}.tmp").exists()


def test_c_reader_region_and_timing(product, tmp_path):
    band = product / _samples.BANDS[0].path  # 1100 x 1000, inner chunks 244
    for region, sl in (("230:500,990:1000", np.s_[230:500, 990:1000]),
                       ("0:1,:", np.s_[0:1, :]), (":,3:4", np.s_[:, 3:4]),
                       ("1099:1100,999:1000", np.s_[1099:1100, 999:1000])):
        theirs = zarr_python_read(band, sl)
        out = tmp_path / "r.bin"
        proc = run_reader("--region", region, "--threads", "2", "--timing", band, out)
        assert proc.returncode == 0, proc.stderr
        assert "timing: " in proc.stderr and "decompress" in proc.stderr and "zcast" in proc.stderr
        np.testing.assert_array_equal(bits(np.fromfile(out, dtype=np.float32)),
                                      bits(theirs.reshape(-1)))
    for bad in ("0:1101,:", "5:4,:", "1:2", "a:b,:"):
        proc = run_reader("--region", bad, band, tmp_path / "bad.bin")
        assert proc.returncode == 2 and "--region" in proc.stderr
        assert not (tmp_path / "bad.bin").exists()


def test_c_reader_fills_a_missing_shard(product, tmp_path):
    band = tmp_path / "b02"
    shutil.copytree(product / _samples.BANDS[0].path, band)
    (band / "c" / "0" / "0").unlink()
    theirs = zarr_python_read(band)
    assert np.isnan(theirs).all()
    proc = run_reader(band, tmp_path / "out.bin")
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_array_equal(bits(np.fromfile(tmp_path / "out.bin", dtype=np.float32)),
                                  bits(theirs.reshape(-1)))


def test_c_reader_reads_a_big_endian_index_and_chunks(product, tmp_path):
    """The same band rewritten with bytes big-endian, inside and for the index: read the same."""
    src = product / _samples.BANDS[4].path
    values = zarr_python_read(src)
    meta = json.loads((src / "zarr.json").read_text())
    conf = meta["codecs"][0]["configuration"]
    conf["codecs"][2]["configuration"]["endian"] = "big"
    conf["index_codecs"][0]["configuration"]["endian"] = "big"
    dst = tmp_path / "be"
    with zarr.config.set(_samples.ZARR_PYTHON_CODECS):
        a = zarr.create_array(zarr.storage.LocalStore(dst), shape=values.shape, dtype="float32",
                              chunks=meta["chunk_grid"]["configuration"]["chunk_shape"],
                              serializer=meta["codecs"][0], filters=None, compressors=None,
                              fill_value=np.nan, config={"write_empty_chunks": False})
        a[...] = values
    assert json.loads((dst / "zarr.json").read_text())["codecs"][0] == meta["codecs"][0]
    proc = run_reader(dst, tmp_path / "out.bin")
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_array_equal(bits(np.fromfile(tmp_path / "out.bin", dtype=np.float32)),
                                  bits(values.reshape(-1)))


# ---- the C reader: bad data gives a clear error and no OUT ---------------------------------------

@pytest.fixture()
def band_copy(product, tmp_path):
    band = tmp_path / "b02"
    shutil.copytree(product / _samples.BANDS[0].path, band)
    return band


def expect_failure(band: Path, out: Path, *words: str, measure=False) -> ReaderResult:
    out.write_bytes(b"old")  # a previous OUT stays untouched
    proc = run_reader("--threads", "2", band, out, measure=measure)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == ""
    for w in words:
        assert w in proc.stderr, proc.stderr
    assert out.read_bytes() == b"old" and not Path(f"{out}.tmp").exists()
    assert len(proc.stderr) < 2000
    return proc


N_INNER = 25  # small r10m: a 5 x 5 shard of 244^2 inner chunks


def test_truncated_shard(band_copy, tmp_path):
    shard = band_copy / "c" / "0" / "0"
    data = shard.read_bytes()
    shard.write_bytes(data[:-1000])  # the index is at the end: what is read there is not one
    expect_failure(band_copy, tmp_path / "out", f"{shard}: chunk (0, 0)", "crc32c mismatch",
                   "corrupt or truncated")
    shard.write_bytes(data[:100])
    expect_failure(band_copy, tmp_path / "out", f"{shard}: chunk (0, 0)", "truncated shard",
                   "100 bytes, less than its 404-byte index")
    # The index intact, the data before it cut: an inner chunk lies outside the shard.
    parts = shard_parts(data, N_INNER)
    whole = build_shard(parts)
    index = whole[-16 * N_INNER - 4:]
    shard.write_bytes(whole[:len(whole) - len(index) - 50] + index)
    expect_failure(band_copy, tmp_path / "out", "inner chunk 24", "lie outside the shard")


def test_crc_mismatch(band_copy, tmp_path):
    shard = band_copy / "c" / "0" / "0"
    data = bytearray(shard.read_bytes())
    data[-1] ^= 0x01
    shard.write_bytes(bytes(data))
    expect_failure(band_copy, tmp_path / "out", f"{shard}: chunk (0, 0)",
                   "shard index crc32c mismatch")
    data[-1] ^= 0x01
    data[-20] ^= 0x80  # an index entry, the stored checksum intact
    shard.write_bytes(bytes(data))
    expect_failure(band_copy, tmp_path / "out", "crc32c mismatch")


def test_unknown_codec(band_copy, tmp_path):
    meta = json.loads((band_copy / "zarr.json").read_text())
    meta["codecs"][0]["configuration"]["codecs"][3] = {"name": "lz4x", "configuration": {}}
    (band_copy / "zarr.json").write_text(json.dumps(meta))
    expect_failure(band_copy, tmp_path / "out", str(band_copy / "zarr.json"),
                   "codecs[0]: sharding_indexed: codecs[3]", 'unknown codec "lz4x"')
    meta["codecs"][0]["configuration"]["codecs"][2] = {"name": "vlen-utf8"}
    (band_copy / "zarr.json").write_text(json.dumps(meta))
    expect_failure(band_copy, tmp_path / "out", 'codec "vlen-utf8" is not supported')


def test_undecodable_value(band_copy, tmp_path):
    """The same DN read as float16: DN 65535 (at the band's last pixel) is beyond float16 and
    cast_value has no out_of_range, so the decode fails (R-spec: an error, not a clamp)."""
    meta = json.loads((band_copy / "zarr.json").read_text())
    meta["data_type"] = "float16"
    (band_copy / "zarr.json").write_text(json.dumps(meta))
    err = expect_failure(band_copy, tmp_path / "out", "chunk (0, 0), inner chunk (4, 4)",
                         "a value fails to decode", "65535")
    assert "float16" in err.stderr


def test_wrong_element_count(band_copy, tmp_path):
    import numcodecs
    shard = band_copy / "c" / "0" / "0"
    parts = shard_parts(shard.read_bytes(), N_INNER)
    blosc = numcodecs.Blosc(cname="zstd", clevel=3, shuffle=numcodecs.Blosc.SHUFFLE)
    for count in (244 * 244 - 1, 244 * 244 + 1):
        parts[7] = blosc.encode(np.ones(count, dtype="<u2"))
        shard.write_bytes(build_shard(parts))
        expect_failure(band_copy, tmp_path / "out", "inner chunk (1, 2)",
                       f"{2 * count} bytes", "119072")


@pytest.fixture(scope="module")
def gzip_bomb() -> bytes:
    """512 MiB of zeros in 64 gzip members (one gzip stream, 0.5 MB): inflating it whole takes
    512 MiB; a reader that stops at the expected size takes a few hundred KiB."""
    import gzip
    return gzip.compress(bytes(8 << 20), compresslevel=6) * 64


def test_gzip_bomb_in_a_shard(band_copy, tmp_path, gzip_bomb):
    import gzip
    meta = json.loads((band_copy / "zarr.json").read_text())
    meta["codecs"][0]["configuration"]["codecs"][3] = {"name": "gzip", "configuration": {"level": 6}}
    (band_copy / "zarr.json").write_text(json.dumps(meta))
    shard = band_copy / "c" / "0" / "0"
    parts = shard_parts(shard.read_bytes(), N_INNER)
    gz = [None if p is None else gzip.compress(np.full(244 * 244, 1, "<u2").tobytes()) for p in parts]
    gz[12] = gzip_bomb
    shard.write_bytes(build_shard(gz))
    proc = expect_failure(band_copy, tmp_path / "out", "inner chunk (2, 2)",
                          "more than the 119072 bytes expected", measure=True)
    assert proc.peak_rss_mib < 300  # inflating the bomb whole would take 512 MiB


# ---- the one-chunk form ------------------------------------------------------------------------

GZIP_EXAMPLE = REPO / "examples" / "data" / "reflectance_gzip"


def test_one_chunk_form_checks_the_element_count(tmp_path):
    import gzip
    good = gzip.decompress((GZIP_EXAMPLE / "c" / "0" / "0").read_bytes())
    assert len(good) == 32  # 4 x 4 uint16
    proc = run_reader(GZIP_EXAMPLE / "zarr.json", GZIP_EXAMPLE / "c" / "0" / "0", tmp_path / "ok")
    assert proc.returncode == 0 and (tmp_path / "ok").stat().st_size == 16 * 8
    for data in (good[:-2], good + b"\0\0"):
        (tmp_path / "chunk").write_bytes(gzip.compress(data))
        proc = run_reader(GZIP_EXAMPLE / "zarr.json", tmp_path / "chunk", tmp_path / "out")
        assert proc.returncode == 1 and proc.stdout == ""
        assert str(tmp_path / "chunk") in proc.stderr
        assert (f"{len(data)} bytes" in proc.stderr and "expected 32" in proc.stderr) or \
            "more than the 32 bytes expected" in proc.stderr, proc.stderr
        assert not (tmp_path / "out").exists() and not (tmp_path / "out.tmp").exists()


def test_one_chunk_form_stops_a_gzip_bomb(tmp_path, gzip_bomb):
    (tmp_path / "bomb").write_bytes(gzip_bomb)
    proc = run_reader(GZIP_EXAMPLE / "zarr.json", tmp_path / "bomb", tmp_path / "out", measure=True)
    assert proc.returncode == 1 and "more than the 32 bytes expected" in proc.stderr, proc.stderr
    assert proc.peak_rss_mib < 300  # inflating the bomb whole would take 512 MiB
    assert not (tmp_path / "out").exists()


def test_one_chunk_form_reads_an_inner_chunk_shard(product, tmp_path):
    """The one-chunk form on a shard: the whole shard shape, fill where the band ends."""
    band = _samples.BANDS[7]  # r60m: 184 x 167 in a 244 x 183 shard
    path = product / band.path
    proc = run_reader(path / "zarr.json", path / "c" / "0" / "0", tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert "compressor blosc (inside sharding_indexed)" in proc.stdout
    shape, _, shard = _samples.grid(band.resolution)
    ours = np.fromfile(tmp_path / "out", dtype=np.float32).reshape(shard)
    np.testing.assert_array_equal(bits(ours[:shape[0], :shape[1]]), bits(zarr_python_read(path)))
    assert np.isnan(ours[shape[0]:]).all() and np.isnan(ours[:, shape[1]:]).all()


def test_sizes_that_overflow_are_refused(band_copy, tmp_path):
    """A chunk or array of 2^80 elements: refused by name, not allocated at a wrapped-around size."""
    meta = json.loads((band_copy / "zarr.json").read_text())
    meta["shape"] = [2**40, 2**40]
    (band_copy / "zarr.json").write_text(json.dumps(meta))
    expect_failure(band_copy, tmp_path / "out", f"{band_copy}: the region is too large")
    meta["chunk_grid"]["configuration"]["chunk_shape"] = [2**40, 2**40]
    (band_copy / "zarr.json").write_text(json.dumps(meta))
    expect_failure(band_copy, tmp_path / "out", "codecs: the chunk shape is too large")
