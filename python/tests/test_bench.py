"""zcast bench: the structure of its output, and that every implementation that claims the
cast_value semantics gives zcast's result, bit for bit, on every conversion it supports."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys

import numpy as np
import pytest

import zcast
from zcast import _bench


def run_bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "zcast", "bench", *args], capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def quick_json():
    proc = run_bench("--quick", "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_quick_json_structure(quick_json):
    res = quick_json
    assert res["size"] == 1 << 16 and res["rounds"] == 3
    keys = list(res["implementations"])
    assert keys[:2] == ["zcast-1t", f"zcast-{res['threads']}t"]
    assert set(keys[2:]) == {"cv-rs", "zarr", "cast-value", "np-spec", "astype"}
    assert [c["name"] for c in res["conversions"]] == [c.name for c in _bench.CONVERSIONS]
    for name in ("date", "cpu", "cpus", "versions", "memcpy_GBps_before"):
        assert name in res["meta"]
    for c in res["conversions"]:
        assert c["bytes_per_element"] == (zcast.numpy_dtype(c["src"]).itemsize
                                          + zcast.numpy_dtype(c["dst"]).itemsize)
        assert set(c["results"]) == set(keys)
        for key, r in c["results"].items():
            if not r["supported"] or r["error"]:
                assert "median_s" not in r
                continue
            assert len(r["times_s"]) == res["rounds"]
            assert r["median_s"] > 0 and r["GBps"] > 0
            assert r["GBps"] == pytest.approx(res["size"] * c["bytes_per_element"]
                                              / r["median_s"] / 1e9)
            assert r["zcast_1t_speedup"] == pytest.approx(
                r["median_s"] / c["results"]["zcast-1t"]["median_s"])


def test_every_implementation_agrees_with_zcast(quick_json):
    res = quick_json
    have = {"cv-rs": importlib.util.find_spec("cast_value_rs") is not None,
            "zarr": importlib.util.find_spec("cast_value_rs") is not None,
            "cast-value": importlib.util.find_spec("cast_value") is not None,
            "np-spec": True, "astype": True}
    numpy_types = _bench.NUMPY_TYPES
    for c in res["conversions"]:
        both_numpy = c["src"] in numpy_types and c["dst"] in numpy_types
        for key, r in c["results"].items():
            where = f"{c['name']}, {key}"
            if key.startswith("zcast-"):
                assert r["supported"] and r["error"] is None and r["equal"] is True, where
                continue
            if key in ("cv-rs", "zarr", "cast-value"):
                # they support exactly numpy's 11 types
                assert r["supported"] == (have[key] and both_numpy), where
            if key == "astype":
                assert r["supported"], where
            if r["supported"] and res["implementations"][key]["exact"]:
                assert r["error"] is None, where
                assert r["equal"] is True, f"{where}: result differs from zcast's"
        # astype is unchecked, but where nothing is clamped or mapped it is the same cast
        # (nearest-even), from numpy's or ml_dtypes' code: a second, independent check of zcast.
        if c["out_of_range"] is None and c["scalar_map"] is None:
            assert c["results"]["astype"]["equal"] is True, c["name"]
        elif "uint8" in c["name"] or "int16" in c["name"]:  # 1% of the inputs are clamped
            assert c["results"]["astype"]["equal"] is False, c["name"]


def test_table_layout():
    proc = run_bench("--quick", "--only", "uint8", "--threads", "2")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    names = [c.name for c in _bench.CONVERSIONS if "uint8" in c.name]
    lines = out.splitlines()
    head = [i for i, line in enumerate(lines) if line.startswith("conversion")]
    assert len(head) == 2, out
    gbps_cols = re.split(r"\s{2,}", lines[head[0]].strip())
    assert gbps_cols == ["conversion", "B/elem", "zcast-1t", "zcast-2t", "cv-rs", "zarr",
                         "cast-value", "np-spec", "astype"]
    ratio_cols = re.split(r"\s{2,}", lines[head[1]].strip())
    assert ratio_cols == ["conversion", "zcast-2t/1t", *gbps_cols[4:]]
    for start, ncols in ((head[0], len(gbps_cols)), (head[1], len(ratio_cols))):
        rows = lines[start + 2:start + 2 + len(names)]
        assert [re.split(r"\s{2,}", r.strip())[0] for r in rows] == names
        for r in rows:
            cells = re.split(r"\s{2,}", r.strip())
            assert len(cells) == ncols, r
            for cell in cells[1:]:
                assert re.fullmatch(r"\d+(\.\d+)?x?!?|-", cell), (r, cell)
        if start == head[0]:
            for r in rows:  # '!' (differs from zcast) only in the astype column, on clamp rows
                cells = re.split(r"\s{2,}", r.strip())
                assert all(not c.endswith("!") for c in cells[:-1]), r
                assert cells[-1].endswith("!") == ("clamp" in cells[0]), r
    assert "median of 3 interleaved rounds" in out


def _flip_one_bit(conv, x):
    fn = _bench.implementations(1)[0].prepare(conv, x)

    def run():
        out = fn().copy()
        out.view(np.uint8)[5] ^= 1
        return out
    return run


def test_a_wrong_result_is_reported():
    conv = next(c for c in _bench.CONVERSIONS if c.name == "float32->bfloat16")
    impls = [_bench.implementations(1)[0], _bench.Impl("wrong", True, _flip_one_bit)]
    res = _bench.run_bench(4096, 1, conversions=[conv], impls=impls)
    rows = res["conversions"][0]["results"]
    assert rows["zcast-1t"]["equal"] is True
    assert rows["wrong"]["equal"] is False
    assert "!" in _bench.format_results(res)


def test_same_bits():
    a = np.array([0.0, np.nan, 1.0], dtype=np.float32)
    assert _bench.same_bits(a, a.copy())
    assert not _bench.same_bits(a, np.array([-0.0, np.nan, 1.0], dtype=np.float32))
    payload = a.copy()
    payload.view(np.uint32)[1] |= 1
    assert not _bench.same_bits(a, payload)
    assert not _bench.same_bits(a, a.astype(np.float64))
    assert not _bench.same_bits(a.view(np.int32), a)


def test_size_option():
    assert _bench.parse_size("16Mi") == 16 << 20
    assert _bench.parse_size("1M") == 10**6
    assert _bench.parse_size("65536") == 65536
    proc = run_bench("--size", "12x")
    assert proc.returncode == 2


def test_chunk_sizes_time_batches_of_calls():
    # Two sizes: two tables, each call's time from a batch (a 1 Ki cast is about a microsecond).
    assert _bench.parse_sizes("16Ki,59536,1Mi") == list(_bench.CHUNK_SIZES)
    assert _bench.calls_per_timing(16 << 20) == 1 and _bench.calls_per_timing(1 << 10) == 4096
    proc = run_bench("--size", "1Ki,4Ki", "--rounds", "1", "--only", "float32->uint8", "--json")
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    assert [r["size"] for r in results] == [1024, 4096]
    for res in results:
        conv = res["conversions"][0]
        assert conv["calls_per_timing"] == (4 << 20) // (res["size"] * 5)  # 5 bytes per element
        row = conv["results"]["zcast-1t"]
        assert row["equal"] is True and row["GBps"] > 0
    text = run_bench("--size", "1Ki", "--rounds", "1", "--only", "float32->uint8").stdout
    assert "each a batch of calls moving about 4 MiB" in text


def test_help():
    out = run_bench("--help").stdout
    for word in ("--size", "--chunks", "--rounds", "--threads", "--only", "--json", "--quick"):
        assert word in out
    top = subprocess.run([sys.executable, "-m", "zcast", "--help"], capture_output=True,
                         text=True, timeout=60).stdout
    assert "bench" in top
