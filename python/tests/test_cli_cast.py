"""`zcast cast` file handling: byte order in --from / --to, raw input that is
not a whole number of elements, .npy of ml_dtypes types, and --map values starting with "-"."""

from __future__ import annotations

import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

from zcast import cli


def test_big_endian_raw_input_is_read_as_big_endian(tmp_path, capsys):
    src, dst = tmp_path / "in.bin", tmp_path / "out.npy"
    values = np.array([1.5, -2.25, 300.0, 65504.0])
    values.astype(">f8").tofile(src)
    assert cli.main(["cast", "--from", ">f8", "--to", "float16", str(src), str(dst)]) == 0
    np.testing.assert_array_equal(np.load(dst), values.astype(np.float16))
    # Little-endian spelled out, and the same bytes read as native, differ as they must.
    values.astype("<f8").tofile(src)
    assert cli.main(["cast", "--from", "<f8", "--to", "float32", str(src), str(dst)]) == 0
    np.testing.assert_array_equal(np.load(dst), values.astype(np.float32))


def test_big_endian_raw_output(tmp_path, capsys):
    src, dst = tmp_path / "in.npy", tmp_path / "out.bin"
    np.save(src, np.array([1, -2, 300], dtype=np.int32))
    assert cli.main(["cast", "--to", ">i2", str(src), str(dst)]) == 0
    assert dst.read_bytes() == np.array([1, -2, 300], dtype=">i2").tobytes()


def test_raw_input_must_be_whole_elements(tmp_path, capsys):
    src, dst = tmp_path / "in.bin", tmp_path / "out.bin"
    src.write_bytes(np.arange(3, dtype=np.float32).tobytes() + b"\x01\x02")
    assert cli.main(["cast", "--from", "float32", "--to", "uint8", str(src), str(dst)]) == 1
    err = capsys.readouterr().err
    assert ("has 14 bytes, not a whole number of float32 elements (4 bytes each): 3 elements "
            "and 2 bytes left over") in err
    assert not dst.exists()


@pytest.mark.parametrize("target", ["bfloat16", "float8_e4m3", "float4_e2m1fn", "int4"])
def test_npy_of_ml_dtypes_reads_back(tmp_path, capsys, target):
    src, dst = tmp_path / "in.npy", tmp_path / "out.npy"
    values = np.array([[0.5, -1.0], [2.0, 3.0]], dtype=np.float32)
    np.save(src, values)
    assert cli.main(["cast", "--to", target, str(src), str(dst)]) == 0
    want = values.astype(getattr(ml_dtypes, target))
    # A fresh interpreter with numpy and ml_dtypes only: np.load gives the ml_dtypes type.
    code = ("import sys, numpy as np, ml_dtypes; a = np.load(sys.argv[1]); "
            "print(a.dtype, a.shape, a.astype(np.float32).ravel().tolist())")
    proc = subprocess.run([sys.executable, "-c", code, str(dst)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[0] == target
    assert proc.stdout.strip() == f"{target} (2, 2) {want.astype(np.float32).ravel().tolist()}"
    # And zcast cast reads it as input again.
    back = tmp_path / "back.npy"
    assert cli.main(["cast", "--to", "float32", str(dst), str(back)]) == 0
    np.testing.assert_array_equal(np.load(back), want.astype(np.float32))


def test_opaque_npy_from_np_save_is_read_with_from(tmp_path, capsys):
    src, dst = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(src, np.array([1.0, 2.5], dtype=ml_dtypes.bfloat16))  # numpy writes '<V2'
    assert cli.main(["cast", "--from", "bfloat16", "--to", "float32", str(src), str(dst)]) == 0
    np.testing.assert_array_equal(np.load(dst), [1.0, 2.5])
    assert cli.main(["cast", "--from", "float8_e4m3", "--to", "float32", str(src),
                     str(dst)]) == 1
    assert "opaque 2-byte elements, float8_e4m3 has 1 bytes" in capsys.readouterr().err


@pytest.mark.parametrize("form", [["--map", "-1=255"], ["--map=-1=255"]])
def test_map_with_a_negative_input(tmp_path, capsys, form):
    src, dst = tmp_path / "in.npy", tmp_path / "out.npy"
    np.save(src, np.array([-1, 0, 7], dtype=np.int16))
    assert cli.main(["cast", "--to", "uint8", *form, str(src), str(dst)]) == 0
    np.testing.assert_array_equal(np.load(dst), np.array([255, 0, 7], dtype=np.uint8))


def test_negative_values_of_value_options_reach_convert(tmp_path):
    assert cli._join_option_values(["convert", "a", "b", "--offset", "-1e3", "--scale", "-2",
                                    "--decode-map", "-128=-1e3", "--", "--map"]) == [
        "convert", "a", "b", "--offset=-1e3", "--scale=-2", "--decode-map=-128=-1e3", "--",
        "--map"]
