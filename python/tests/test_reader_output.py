"""Where the C reader examples/reader (zcast_read_chunk) writes: OUT '-' is standard output, and
an OUT that exists but is not a regular file (a device such as /dev/stdout, a FIFO, a directory)
is refused before anything is read, never replaced by a file.

The program is $ZCAST_READ_CHUNK if set, else ${ZCAST_BUILD_DIR:-build/release}/zcast_read_chunk;
its absence is a failure, not a skip. The tests use a FIFO, not a real device, so that a reader
that still replaced the node could not damage the machine.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import numpy as np
import pytest
import zarr

import zcast.zarr as zz

REPO = Path(__file__).resolve().parents[2]


def program() -> Path:
    if os.environ.get("ZCAST_READ_CHUNK"):
        p = Path(os.environ["ZCAST_READ_CHUNK"])
    else:
        build = Path(os.environ.get("ZCAST_BUILD_DIR", "build/release"))
        p = (build if build.is_absolute() else REPO / build) / "zcast_read_chunk"
    if not (p.is_file() and os.access(p, os.X_OK)):
        pytest.fail(f"the C reader {p} is missing: build the C++ project (cmake --build "
                    "build/release) or set ZCAST_READ_CHUNK")
    return p


def run(cwd: Path, *args: object) -> subprocess.CompletedProcess:
    return subprocess.run([str(program()), *map(str, args)], cwd=cwd, capture_output=True,
                          timeout=120)


@pytest.fixture
def array(tmp_path):
    """A float32 array stored as uint8 through cast_value (one chunk of 6 elements)."""
    path = tmp_path / "a.zarr"
    with zz.use():
        a = zarr.create_array(zarr.storage.LocalStore(path), shape=(6,), chunks=(6,),
                              dtype="float32", fill_value=0, compressors=None,
                              filters=[zz.CastValue(data_type="uint8")])
        a[:] = np.float32([0, 1, 2, 3, 250, 255])
    return path


def test_dash_writes_the_array_to_standard_output(tmp_path, array):
    proc = run(tmp_path, array, "-")
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_array_equal(np.frombuffer(proc.stdout, np.float32),
                                  np.float32([0, 1, 2, 3, 250, 255]))
    assert not (tmp_path / "-").exists() and not (tmp_path / "-.tmp").exists()


def test_dash_writes_one_chunk_to_standard_output_and_the_summary_to_stderr(tmp_path, array):
    proc = run(tmp_path, array / "zarr.json", array / "c" / "0", "-")
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_array_equal(np.frombuffer(proc.stdout, np.float32),
                                  np.float32([0, 1, 2, 3, 250, 255]))
    assert b"stored:  6 x \"uint8\"" in proc.stderr
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("form", ["array", "chunk"])
def test_an_out_that_is_not_a_regular_file_is_refused_and_kept(tmp_path, array, form):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    args = [array, fifo] if form == "array" else [array / "zarr.json", array / "c" / "0", fifo]
    proc = run(tmp_path, *args)
    assert proc.returncode == 1
    assert f"{fifo}: not a regular file (a pipe); OUT is a regular file, or - for standard " \
           "output" in proc.stderr.decode()
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still the FIFO, not replaced by a file
    assert not Path(f"{fifo}.tmp").exists()
    assert b"array:" not in proc.stdout  # refused before reading


def test_a_regular_out_is_still_written_atomically(tmp_path, array):
    out = tmp_path / "out.f32"
    out.write_bytes(b"old")
    proc = run(tmp_path, array, out)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_array_equal(np.fromfile(out, np.float32),
                                  np.float32([0, 1, 2, 3, 250, 255]))
    assert not Path(f"{out}.tmp").exists()
