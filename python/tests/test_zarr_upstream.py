"""zarr-python's own cast_value and scale_offset tests, run on zcast's classes.

The sdist of the INSTALLED zarr version is downloaded once (``pip download --no-deps --no-binary
:all: zarr==<version>``) into build/zarr-upstream/ (ZCAST_UPSTREAM_CACHE overrides it; never
into the repository's sources), and its tests/test_codecs/test_cast_value.py and
test_scale_offset.py (with the tests/conftest.py they import) are extracted into a temporary
directory and run by a pytest subprocess with the plugin zarr_upstream_plugin.py, which replaces
``zarr.codecs.cast_value.CastValue`` and ``zarr.codecs.scale_offset.ScaleOffset`` with zcast's
classes before the test modules import them, and calls ``zcast.zarr.use()``.

Every upstream test must pass, except those named in zarr_upstream_cases.NOT_APPLICABLE (zarr's
guard of its cast-value-rs backend), which are skipped there and reported here as skipped, one by
one, with the reason. The tests of zarr's private helpers (ZARR_HELPERS) run and pass as they are
(they call zarr's helper, not a codec class); the behaviour each checks is checked on zcast's
classes by the test_zcast_* tests below. Without network access and without a cached sdist the download fails,
and so does this test: it never skips for that.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import numpy as np
import pytest
import zarr

import zcast.zarr as zz
from zarr_upstream_cases import NOT_APPLICABLE, UPSTREAM_FILES, ZARR_HELPERS

TESTS_DIR = Path(__file__).resolve().parent
ROOT = TESTS_DIR.parents[1]
CACHE = Path(os.environ.get("ZCAST_UPSTREAM_CACHE", ROOT / "build" / "zarr-upstream"))

# Files the two test modules need besides themselves: the package markers and the conftest that
# defines Expect / ExpectFail.
_SUPPORT = ("tests/__init__.py", "tests/conftest.py", "tests/test_codecs/__init__.py")

_INI = """[pytest]
# zarr's own settings for its tests (pyproject.toml [tool.pytest.ini_options]) that these two
# files rely on: async tests without markers, and warnings as errors.
asyncio_mode = auto
asyncio_default_fixture_loop_scope = function
filterwarnings =
    error
"""


def _sdist(version: str) -> Path:
    """The cached sdist of zarr ``version``, downloaded first if missing (pytest.fail if that is
    impossible)."""
    path = CACHE / f"zarr-{version}.tar.gz"
    if path.is_file():
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
               "--disable-pip-version-check", "-d", tmp, f"zarr=={version}"]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
        except subprocess.TimeoutExpired:
            pytest.fail(f"downloading zarr {version}'s sdist timed out: {' '.join(cmd)}")
        got = Path(tmp) / path.name
        if r.returncode != 0 or not got.is_file():
            pytest.fail(f"cannot download the sdist of the installed zarr {version} (needed to "
                        f"run zarr's own codec tests; put it at {path} to run offline):\n"
                        f"{' '.join(cmd)}\n{(r.stdout + r.stderr)[-3000:]}")
        os.replace(got, path)  # atomic: a concurrent or interrupted run never sees half a file
    return path


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Runs the upstream tests once; returns the plugin's report plus the subprocess output."""
    version = zarr.__version__
    sdist = _sdist(version)
    work = tmp_path_factory.mktemp("zarr-upstream")
    prefix = f"zarr-{version}/"
    with tarfile.open(sdist) as tar:
        for name in (*_SUPPORT, *UPSTREAM_FILES):
            member = tar.getmember(prefix + name)
            target = work / name
            target.parent.mkdir(parents=True, exist_ok=True)
            with tar.extractfile(member) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
    (work / "pytest.ini").write_text(_INI)
    report = work / "report.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS_DIR), env.get("PYTHONPATH")]))
    env["ZCAST_UPSTREAM_REPORT"] = str(report)
    cmd = [sys.executable, "-m", "pytest", "-p", "zarr_upstream_plugin", "-p", "no:cacheprovider",
           "-c", str(work / "pytest.ini"), "--rootdir", str(work), "-q", "-rs", *UPSTREAM_FILES]
    r = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=1200)
    output = r.stdout + r.stderr
    if not report.is_file():
        pytest.fail(f"the upstream run wrote no report (exit {r.returncode}):\n{output[-5000:]}")
    result = json.loads(report.read_text())
    result["output"] = output
    result["version"] = version
    return result


def _function_name(nodeid: str) -> str:
    return nodeid.split("::")[-1].split("[")[0]


def test_zarr_upstream_codec_tests_pass(upstream: dict) -> None:
    tests = upstream["tests"]
    assert len(tests) >= 80, f"only {len(tests)} upstream tests ran:\n{upstream['output'][-3000:]}"
    not_passed = {}
    for nodeid, entry in tests.items():
        if _function_name(nodeid) in NOT_APPLICABLE:
            expected = "skipped"
        else:
            expected = "passed"  # a skip (e.g. cast-value-rs missing) would hide a test
        if entry["outcome"] != expected:
            not_passed[nodeid] = entry
    assert not not_passed, (
        f"zarr {upstream['version']}'s codec tests on zcast's classes: "
        f"{len(not_passed)} of {len(tests)} not as expected:\n" +
        "\n".join(f"{k}: {v['outcome']}\n{v['detail'][-1500:]}" for k, v in not_passed.items()))
    assert upstream["exitstatus"] == 0, upstream["output"][-3000:]


@pytest.mark.parametrize("name", sorted(NOT_APPLICABLE))
def test_zarr_upstream_not_applicable(upstream: dict, name: str) -> None:
    cases = {k: v for k, v in upstream["tests"].items() if _function_name(k) == name}
    assert cases, f"zarr's {name} was not collected"
    for nodeid, entry in cases.items():
        assert entry["outcome"] == "skipped" and "not applicable" in entry["detail"], (nodeid, entry)
    pytest.skip(f"zarr {upstream['version']}'s {name} ({len(cases)} case(s)) not applicable: "
                f"{NOT_APPLICABLE[name]}")


@pytest.mark.parametrize("name", sorted(ZARR_HELPERS))
def test_zarr_upstream_helper_tests_run(upstream: dict, name: str) -> None:
    cases = {k: v for k, v in upstream["tests"].items() if _function_name(k) == name}
    assert cases, f"zarr's {name} was not collected"
    for nodeid, entry in cases.items():
        assert entry["outcome"] == "passed", (nodeid, entry)


# ---- what zarr's helper tests check, on zcast's classes ------------------------------------------

def _stored(arr: zarr.Array, dtype) -> np.ndarray:
    """The array's one chunk as stored (no compressor): the encoded values."""
    raw = arr.store_path.store._store_dict["c/0"]
    return np.frombuffer(raw.to_bytes(), dtype=dtype)


def _array(dtype, filters, data, fill_value=0) -> zarr.Array:
    arr = zarr.create_array(store={}, shape=data.shape, chunks=data.shape, dtype=dtype,
                            filters=filters, compressors=None, fill_value=fill_value)
    arr[:] = data
    return arr


def test_zcast_scale_offset_keeps_nan_and_inf():  # R23
    data = np.array([1.0, np.nan, np.inf, -np.inf])
    arr = _array("float64", [zz.ScaleOffset(offset=0, scale=2)], data)
    stored = _stored(arr, "<f8")
    assert stored[0] == 2.0 and np.isnan(stored[1]) and list(stored[2:]) == [np.inf, -np.inf]
    np.testing.assert_array_equal(arr[:], data)


def test_zcast_scale_offset_keeps_float32():
    data = np.arange(100, dtype="float32")
    # numpy float64 scalars as parameters: offset and scale are values of the array type (R22).
    arr = _array("float32", [zz.ScaleOffset(offset=np.float64(5.0), scale=np.float64(0.25))], data)
    stored = _stored(arr, "<f4")
    assert stored.size == data.size  # 4 bytes per element: not widened to float64
    np.testing.assert_array_equal(stored, (data - np.float32(5)) * np.float32(0.25))
    got = arr[:]
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, data)


def test_zcast_scale_offset_negative_scale_on_int16():
    data = np.array([-16383, -100, 0, 7, 16384], dtype="int16")  # both ends of the range * -2
    arr = _array("int16", [zz.ScaleOffset(offset=0, scale=-2)], data)
    np.testing.assert_array_equal(_stored(arr, "<i2"), data.astype(np.int32) * -2)
    np.testing.assert_array_equal(arr[:], data)


@pytest.mark.parametrize("scalar_map", [
    {"encode": [("NaN", 0)], "decode": [(0, "NaN")]},
    {"encode": {"NaN": 0}, "decode": {0: "NaN"}},
], ids=["pairs", "mappings"])
def test_zcast_scalar_map_forms(scalar_map):
    data = np.array([np.nan, 1.0, 2.0], dtype="float32")
    # fill_value NaN: a fill of 0.0 would decode to NaN through the map, which R9 refuses.
    arr = _array("float32", [zz.CastValue(data_type="uint8", scalar_map=scalar_map)], data, np.nan)
    np.testing.assert_array_equal(_stored(arr, "u1"), [0, 1, 2])
    np.testing.assert_array_equal(arr[:], data)
