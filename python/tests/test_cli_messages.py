"""What the command line says when a user gets something wrong or runs it in a log: words rather
than Python's errno texts, plurals, the --map NaN=... that a NaN failure needs, no carriage
returns when stderr is not a terminal; and the warning of a chain that owns nothing because the
array's codecs sit inside sharding_indexed."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import zarr

import zcast
from zcast import _cli_common


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "zcast", *map(str, args)], capture_output=True,
                          text=True, timeout=300, cwd=cwd)


def test_a_missing_input_is_named_in_words(tmp_path):
    proc = run("cast", "--from", "float64", "--to", "uint8", tmp_path / "nope.bin",
               tmp_path / "out.bin")
    assert proc.returncode == 1
    assert proc.stderr.strip() == f"zcast cast: {tmp_path / 'nope.bin'}: no such file or directory"
    assert "Errno" not in proc.stderr


def test_describe_os_error_names_both_files():
    err = OSError(18, "Invalid cross-device link", "a", None, "b")
    assert _cli_common.describe_os_error(err) == "a -> b: invalid cross-device link"
    assert _cli_common.describe_os_error(OSError("plain")) == "plain"


def test_a_partial_element_is_counted_with_plurals(tmp_path):
    src = tmp_path / "in.bin"
    src.write_bytes(b"\0" * 9)  # one float64 and one byte
    proc = run("cast", "--from", "float64", "--to", "uint8", src, tmp_path / "out.bin")
    assert proc.returncode == 1
    assert ("has 9 bytes, not a whole number of float64 elements (8 bytes each): 1 element and "
            "1 byte left over") in proc.stderr
    src.write_bytes(b"\0" * 19)
    assert "2 elements and 3 bytes left over" in run("cast", "--from", "float64", "--to", "uint8",
                                                     src, tmp_path / "out.bin").stderr


def test_cast_of_nan_into_an_integer_suggests_a_map(tmp_path):
    src = tmp_path / "in.npy"
    np.save(src, np.array([1.0, np.nan]))
    proc = run("cast", "--to", "uint8", src, tmp_path / "out.npy")
    assert proc.returncode == 1
    assert "NaN has no representation in uint8" in proc.stderr
    assert proc.stderr.rstrip().endswith("to store NaN, map it to a uint8 value valid data does "
                                         "not reach: --map NaN=255 (read back as NaN)")
    with_map = run("cast", "--to", "uint8", "--map", "NaN=255", src, tmp_path / "out.npy")
    assert with_map.returncode == 0, with_map.stderr


def nan_source(path: Path, blocks: int = 1) -> Path:
    a = zarr.create_array(zarr.storage.LocalStore(path), shape=(4 * blocks,), chunks=(4,),
                          dtype="float32", fill_value=float("nan"))
    a[:] = np.full(4 * blocks, np.nan, np.float32)
    return path


def test_convert_of_a_nan_array_into_uint8_suggests_a_map(tmp_path):
    src = nan_source(tmp_path / "src.zarr")
    proc = run("convert", src, tmp_path / "dst.zarr", "--data-type", "int16")
    assert proc.returncode == 1
    assert "conversion failed, nothing written" in proc.stderr
    assert "--map NaN=-32768 (read back as NaN)" in proc.stderr
    assert not (tmp_path / "dst.zarr").exists()
    ok = run("convert", src, tmp_path / "dst.zarr", "--data-type", "int16", "--map", "NaN=-32768")
    assert ok.returncode == 0, ok.stderr


def test_nan_hint_only_without_a_nan_map():
    assert _cli_common.nan_map_hint("value 1000 is out of range", "uint8", []) == ""
    assert _cli_common.nan_map_hint("NaN ...", "uint8", [("NaN", 0)]) == ""
    assert "--map NaN=-8 " in _cli_common.nan_map_hint("NaN ...", "int4", [])
    assert "--map NaN=V " in _cli_common.nan_map_hint("NaN ...", "float4_e2m1fn", [])


def test_convert_progress_in_a_log_is_plain_lines(tmp_path):
    src = tmp_path / "src.zarr"
    a = zarr.create_array(zarr.storage.LocalStore(src), shape=(40,), chunks=(2,), dtype="float32",
                          fill_value=0)
    a[:] = np.arange(40, dtype=np.float32)
    proc = run("convert", src, tmp_path / "dst.zarr", "--data-type", "uint8")  # stderr: a pipe
    assert proc.returncode == 0, proc.stderr
    assert "\r" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert lines and all(ln.startswith("zcast convert: ") and " blocks, " in ln for ln in lines)
    assert [ln.split()[2] for ln in lines] == [f"{2 * k}/20" for k in range(1, 11)]


def test_convert_of_few_blocks_prints_no_progress_in_a_log(tmp_path):
    src = tmp_path / "src.zarr"
    a = zarr.create_array(zarr.storage.LocalStore(src), shape=(4,), chunks=(2,), dtype="float32",
                          fill_value=0)
    a[:] = np.arange(4, dtype=np.float32)
    proc = run("convert", src, tmp_path / "dst.zarr", "--data-type", "uint8")
    assert proc.returncode == 0 and proc.stderr == ""


def sharded_band(path: Path) -> Path:
    import zcast.zarr as zz

    with zz.use():
        a = zarr.create_array(zarr.storage.LocalStore(path), shape=(8,), chunks=(4,),
                              shards=(8,), dtype="float32", fill_value=float("nan"),
                              filters=[zz.ScaleOffset(offset=-0.1, scale=10000),
                                       zz.CastValue(data_type="uint16", scalar_map={
                                           "encode": [["NaN", 0]], "decode": [[0, "NaN"]]})])
        a[:] = np.linspace(0, 1, 8, dtype=np.float32)
    return path


def test_a_chain_of_a_sharded_array_says_it_owns_nothing(tmp_path):
    band = sharded_band(tmp_path / "b.zarr")
    with pytest.warns(zcast.ShardedChainWarning, match=r"this chain owns no codec: the array's "
                      r"scale_offset, cast_value sit inside sharding_indexed"):
        outer = zcast.Chain.from_array_metadata(band)
    assert outer.owned_codecs == 0 and outer.first_unowned_codec == "sharding_indexed"
    assert [c["name"] for c in outer.inner_codecs][:2] == ["scale_offset", "cast_value"]
    inner = zcast.Chain.from_codecs(outer.inner_codecs, outer.data_type, "NaN")
    assert inner.encoded_data_type == "uint16" and inner.first_unowned_codec == "bytes"
    np.testing.assert_array_equal(inner.decode(np.array([0, 11000], np.uint16)),
                                  np.float32([np.nan, 1.0]))


def test_no_warning_where_the_chain_owns_codecs_or_the_shard_has_none_to_own(tmp_path):
    plain = {"zarr_format": 3, "node_type": "array", "data_type": "float32", "fill_value": 0,
             "codecs": [{"name": "cast_value", "configuration": {"data_type": "uint8"}},
                        {"name": "bytes"}]}
    sharded_plain = {**plain, "codecs": [{"name": "sharding_indexed", "configuration": {
        "chunk_shape": [2], "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
        "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}},
                         {"name": "crc32c"}]}}]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert zcast.Chain.from_array_metadata(plain).inner_codecs is None
        assert zcast.Chain.from_array_metadata(sharded_plain).inner_codecs is None
