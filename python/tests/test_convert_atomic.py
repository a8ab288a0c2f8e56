"""`zcast convert` never leaves a plausible DST behind.

The array is written into a hidden temporary sibling and renamed into place only when complete.
The signal tests run the real command in a subprocess; a wrapper slows each block down (0.2 s)
so that the signal lands mid-convert deterministically: it is sent once the temporary holds a
chunk file, and long before the last block.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import zarr

import zcast.zarr as zz

SHAPE, CHUNKS = (64, 64), (8, 8)  # 64 blocks: >= 3 s with the wrapper's delay

SLOW = """
import sys, time
import zcast._cli_convert as c
real = c._convert_region
def slow(*args):
    time.sleep(0.2)
    return real(*args)
c._convert_region = slow
from zcast.cli import main
sys.exit(main(sys.argv[1:]))
"""


def make_source(path):
    data = np.random.default_rng(1).uniform(-100, 100, SHAPE).astype(np.float32)
    a = zarr.create_array(zarr.storage.LocalStore(path), shape=SHAPE, chunks=CHUNKS,
                          dtype="float32", fill_value=0)
    a[:] = data
    return data


def partials(dst):
    return sorted(dst.parent.glob(f".{dst.name}.zcast-partial-*"))


def start_slow_convert(src, dst):
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW, "convert", str(src), str(dst), "--data-type", "int16"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        tmp = partials(dst)
        if tmp and any(p.is_file() and p.name != "zarr.json" for p in tmp[0].rglob("*")):
            return proc, tmp[0]
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    proc.kill()
    out, err = proc.communicate()
    pytest.fail(f"no chunk appeared in a temporary directory (exit {proc.returncode}): {err}")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signal_mid_convert_leaves_nothing(tmp_path, signum):
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    make_source(src)
    proc, tmp = start_slow_convert(src, dst)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, err
    assert "Traceback" not in err
    name = signal.Signals(signum).name
    assert f"zcast convert: interrupted by {name}; {dst} not written" in err
    assert len([line for line in err.splitlines() if "interrupted" in line]) == 1
    assert not dst.exists()
    assert not tmp.exists() and partials(dst) == []


def test_sigkill_leaves_no_destination(tmp_path):
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    make_source(src)
    proc, tmp = start_slow_convert(src, dst)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    assert not dst.exists()
    # What is left is hidden and says it is partial; it is not a readable DST.
    assert tmp.exists() and tmp.name.startswith(".dst.zarr.zcast-partial-")


def test_success_renames_into_place(tmp_path):
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    data = make_source(src)
    proc = subprocess.run([sys.executable, "-m", "zcast", "convert", str(src), str(dst),
                           "--data-type", "float16"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert partials(dst) == []
    with zz.use():
        got = zarr.open_array(zarr.storage.LocalStore(dst), mode="r")[:]
    np.testing.assert_array_equal(got, data.astype(np.float16).astype(np.float32))


def run(*args):
    return subprocess.run([sys.executable, "-m", "zcast", *map(str, args)], capture_output=True,
                          text=True)


def tree(path):
    return {p: p.read_bytes() for p in path.rglob("*") if p.is_file()}


@pytest.mark.parametrize("where", ["same", "inside", "deeper"])
def test_destination_inside_source_is_refused(tmp_path, where):
    src = tmp_path / "src.zarr"
    make_source(src)
    dst = {"same": src, "inside": src / "out", "deeper": src / "c" / "x.zarr"}[where]
    before = tree(src)
    proc = run("convert", src, dst, "--data-type", "float16")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert ("is SRC itself" if where == "same" else "is inside SRC") in proc.stderr
    assert tree(src) == before
    assert list(src.parent.glob(".*zcast-partial-*")) == [] == list(src.rglob(".*partial*"))


def test_existing_destination_needs_overwrite(tmp_path):
    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    data = make_source(src)
    assert run("convert", src, dst, "--data-type", "float16").returncode == 0
    first = tree(dst)
    proc = run("convert", src, dst, "--data-type", "int16")
    assert proc.returncode == 1 and "already exists" in proc.stderr and "--overwrite" in proc.stderr
    assert tree(dst) == first
    proc = run("convert", src, dst, "--data-type", "int16", "--overwrite")
    assert proc.returncode == 0, proc.stderr
    with zz.use():
        got = zarr.open_array(zarr.storage.LocalStore(dst), mode="r")[:]
    np.testing.assert_array_equal(got, np.rint(data))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dst.zarr", "src.zarr"]  # no leftovers
    # A failed convert with --overwrite keeps the old DST whole.
    before = tree(dst)
    proc = run("convert", src, dst, "--data-type", "uint8", "--overwrite")
    assert proc.returncode == 1 and "out of the range of uint8" in proc.stderr
    assert tree(dst) == before
    # --overwrite replaces a Zarr node or an empty directory only.
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("x")
    proc = run("convert", src, other, "--data-type", "int16", "--overwrite")
    assert proc.returncode == 1 and "neither" in proc.stderr
    assert (other / "keep.txt").read_text() == "x"
    # Nor may DST hold SRC.
    proc = run("convert", src, tmp_path, "--data-type", "int16", "--overwrite")
    assert proc.returncode == 1 and "holds SRC" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dst.zarr", "notes", "src.zarr"]


def test_a_signal_after_the_rename_keeps_the_complete_array(tmp_path, monkeypatch, capsys):
    """Once DST is in place it is complete: a late SIGTERM is reported, not undone."""
    from zcast import _cli_convert, cli

    src, dst = tmp_path / "src.zarr", tmp_path / "dst.zarr"
    data = make_source(src)
    real = _cli_convert._report

    def report_then_signal(*args):
        os.kill(os.getpid(), signal.SIGTERM)  # handled by convert's guard: remembered
        real(*args)
    monkeypatch.setattr(_cli_convert, "_report", report_then_signal)
    assert cli.main(["convert", str(src), str(dst), "--data-type", "float16"]) == 143
    err = capsys.readouterr().err
    assert f"SIGTERM arrived after {dst} was complete; it is kept" in err
    with zz.use():
        got = zarr.open_array(zarr.storage.LocalStore(dst), mode="r")[:]
    np.testing.assert_array_equal(got, data.astype(np.float16).astype(np.float32))
    # The handlers are restored afterwards.
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
