"""python/README.md's zarr-python example runs as written and round-trips: its
NaN sentinel is out of reach of its data. The example's first version (offset -40, scale 3,
uint8 clamp, NaN <-> 0) stored -40 deg as 0 and read it back as NaN."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_block(heading: str) -> str:
    text = README.read_text()
    section = text[text.index(f"## {heading}\n"):]
    m = re.search(r"```python\n(.*?)```", section, re.S)
    assert m, f"no python block under {heading!r} in {README}"
    return m.group(1)


def test_zarr_example_round_trips(tmp_path, monkeypatch):
    import zarr

    monkeypatch.chdir(tmp_path)
    code = readme_block("zarr-python")
    ns: dict = {}
    with zarr.config.set({}):  # the example's use() stays inside this test
        exec(compile(code, str(README), "exec"), ns)
    temps, back = ns["temps"], ns["back"]
    assert temps.size == 1000 and np.isnan(temps).any()
    np.testing.assert_array_equal(np.isnan(back), np.isnan(temps))
    valid = ~np.isnan(temps)
    assert np.abs(back[valid] - temps[valid]).max() <= 1 / 6 + 1e-5
    # The extremes of the stated range are stored, not mapped to the sentinel.
    assert back[1] == np.float32(-40 + 1 / 3) or abs(back[1] - temps[1]) <= 1 / 6 + 1e-5
    assert not np.isnan(back[999]) and abs(back[999] - 44) <= 1 / 6 + 1e-5
    # And zarr reads the same back from disk in a new array object.
    again = zarr.open_array("t.zarr", mode="r")[:]
    np.testing.assert_array_equal(np.isnan(again), np.isnan(temps))
