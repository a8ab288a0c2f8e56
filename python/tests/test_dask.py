"""zcast's codecs on dask workers that open the store themselves (python/README.md, "Dask and
other processes"): the worker plugin zcast.dask.UseZcast and the environment form
ZARR_CODECS__CAST_VALUE=zcast.zarr.CastValue, on a LocalCluster of two worker processes. The
stored chunks and the values read must be identical to a single-process run, also when a worker
dies mid-computation and is restarted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import zarr

import zcast.dask  # needs dask[distributed] (python/requirements-test.txt): a missing one fails
import zcast.zarr as zz
import distributed  # noqa: E402, I001

BLOCK = 16
N_BLOCKS = 8


# -- what the tasks do: open the store themselves, no zcast import ------------------------------

def block_data(kind: str, i: int) -> np.ndarray:
    rng = np.random.default_rng(i)
    if kind == "float8":
        return rng.normal(0, 50, (BLOCK, 32)).astype(np.float32)
    data = rng.uniform(0.0, 0.8, (BLOCK, 32)).astype(np.float32)  # reflectance
    data[rng.random(data.shape) < 0.1] = np.nan  # no-data
    return data


def write_block(path: str, kind: str, i: int, marker: str | None = None) -> str:
    if marker is not None and i == 3 and not os.path.exists(marker):
        Path(marker).touch()
        os._exit(1)  # the worker process dies mid-computation, once
    a = zarr.open_array(zarr.storage.LocalStore(path), mode="r+")
    a[i * BLOCK:(i + 1) * BLOCK] = block_data(kind, i)
    return type(a.filters[-1]).__module__  # which cast_value this process picked


def read_block(path: str, i: int) -> tuple[bytes, str]:
    a = zarr.open_array(zarr.storage.LocalStore(path), mode="r")
    return a[i * BLOCK:(i + 1) * BLOCK].tobytes(), type(a.filters[-1]).__module__


def selected() -> tuple:
    return zarr.config.get("codecs.cast_value"), zarr.config.get("codecs.scale_offset")


# -- arrays -------------------------------------------------------------------------------------

def create(path: Path, kind: str) -> None:
    with zz.use():
        if kind == "float8":
            dtype, fill = "float32", 0.0
            filters = [zz.CastValue(data_type="float8_e4m3", out_of_range="clamp")]
        else:  # Sentinel-2-like: scale_offset + cast_value uint16, NaN <-> 0
            dtype, fill = "float32", float("nan")
            filters = [zz.ScaleOffset(offset=-0.1, scale=10000),
                       zz.CastValue(data_type="uint16", out_of_range="clamp",
                                    scalar_map={"encode": [["NaN", 0]], "decode": [[0, "NaN"]]})]
        zarr.create_array(zarr.storage.LocalStore(path), shape=(BLOCK * N_BLOCKS, 32),
                          chunks=(BLOCK, 32), dtype=dtype, fill_value=fill, filters=filters)


def single_process(tmp: Path, kind: str) -> tuple[dict, list]:
    path = tmp / f"single-{kind}.zarr"
    create(path, kind)
    with zz.use():
        for i in range(N_BLOCKS):
            write_block(str(path), kind, i)
        reads = [read_block(str(path), i)[0] for i in range(N_BLOCKS)]
    return chunk_files(path), reads


def chunk_files(path: Path) -> dict:
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*"))
            if p.is_file() and p.name != "zarr.json"}


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        c.register_plugin(zcast.dask.UseZcast())
        yield c


def run_on_cluster(client, tmp: Path, kind: str, marker: str | None = None):
    path = tmp / f"cluster-{kind}.zarr"
    create(path, kind)
    writes = client.gather(client.map(write_block, [str(path)] * N_BLOCKS, [kind] * N_BLOCKS,
                                      range(N_BLOCKS), [marker] * N_BLOCKS, pure=False))
    reads = client.gather(client.map(read_block, [str(path)] * N_BLOCKS, range(N_BLOCKS),
                                     pure=False))
    return path, writes, reads


@pytest.mark.parametrize("kind", ["float8", "sentinel2"])
def test_plugin_workers_write_and_read_like_one_process(client, tmp_path, kind):
    files, want = single_process(tmp_path, kind)
    path, writes, reads = run_on_cluster(client, tmp_path, kind)
    assert set(writes) == {"zcast.zarr"} and {m for _, m in reads} == {"zcast.zarr"}
    assert chunk_files(path) == files and len(files) == N_BLOCKS
    assert [r for r, _ in reads] == want
    # Both workers did some of the work (each opened the store itself).
    assert len(client.scheduler_info()["workers"]) == 2


def test_a_worker_killed_mid_computation(client, tmp_path):
    files, want = single_process(tmp_path, "sentinel2")
    marker = tmp_path / "died-once"
    before = set(client.scheduler_info()["workers"])
    path, writes, reads = run_on_cluster(client, tmp_path, "sentinel2", marker=str(marker))
    assert marker.exists()  # a worker did die
    assert chunk_files(path) == files and [r for r, _ in reads] == want
    assert set(writes) == {"zcast.zarr"}
    # The nanny restarted the dead worker; the scheduler gave it the plugin too.
    client.wait_for_workers(2, timeout=30)
    assert set(client.scheduler_info()["workers"]) != before
    assert set(client.run(selected).values()) == {("zcast.zarr.CastValue",
                                                   "zcast.zarr.ScaleOffset")}


def test_environment_form_on_a_cluster(tmp_path, monkeypatch):
    for key, value in zz.ENVIRONMENT.items():
        monkeypatch.setenv(key, value)  # inherited by the worker processes
    files, want = single_process(tmp_path, "float8")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        assert set(c.run(selected).values()) == {("zcast.zarr.CastValue",
                                                  "zcast.zarr.ScaleOffset")}
        path, writes, reads = run_on_cluster(c, tmp_path, "float8")
    assert set(writes) == {"zcast.zarr"}
    assert chunk_files(path) == files and [r for r, _ in reads] == want


def test_environment_form_in_a_process_that_only_imports_zarr(tmp_path):
    """zarr honours the variables (donfig: ZARR_ prefix, "__" between levels) and loads zcast's
    codecs and data types through the entry points, without any import of zcast."""
    path = tmp_path / "bf16.zarr"
    with zz.use():
        a = zarr.create_array(zarr.storage.LocalStore(path), shape=(4,), chunks=(2,),
                              dtype="bfloat16", fill_value=0.0,
                              filters=[zz.CastValue(data_type="float8_e4m3")])
        a[:] = np.array([1.0, 2.5, -3.0, 0.125], dtype="float32")
    code = """if True:
        import sys, numpy as np, zarr
        assert "zcast" not in sys.modules
        print(zarr.config.get("codecs.cast_value"))
        a = zarr.open_array(sys.argv[1], mode="r")
        print(type(a.filters[0]).__module__, a.dtype, a[:].astype(np.float32).tolist())
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZARR_")}
    proc = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True, env={**env, **zz.ENVIRONMENT})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["zcast.zarr.CastValue",
                                           "zcast.zarr bfloat16 [1.0, 2.5, -3.0, 0.125]"]
