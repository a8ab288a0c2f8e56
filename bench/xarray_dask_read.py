#!/usr/bin/env python3
"""A full 10 m Sentinel-2 band read through xarray + dask, on 1 and 2 dask threads.

    .venv/bin/python bench/xarray_dask_read.py [--repeat 3] [--dir build/bench-xarray]

Writes once (and reuses) one band of zcast's synthetic EOPF product at its real size, 10980 x
10980 float32 in one shard of 244 x 244 inner chunks (scale_offset + cast_value uint16 + blosc
zstd, zcast._samples), written by zarr-python's own codecs. Then opens it as a user would,
``xr.open_dataset(store, group=..., engine="zarr", chunks={})`` (one dask chunk per inner chunk),
and times ``.compute()`` of the band on dask's threaded scheduler with 1 and 2 workers, with
zcast's codecs (``zcast.zarr.use()``) and with zarr-python's own, interleaved, ``--repeat``
times each. Prints the median seconds, the decoded output in GB/s (482 MB of float32) and the
2-thread / 1-thread speedup; checks that both implementations read the same bits.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
GROUP = "measurements/reflectance/r10m"


def write_band(path: Path) -> None:
    import zarr

    from zcast import _samples

    band = _samples.BANDS[2]  # b04
    shape, inner, shard = _samples.grid(band.resolution, "full")
    tmp = path.with_name(path.name + ".partial")
    with zarr.config.set(_samples.ZARR_PYTHON_CODECS):
        group = zarr.create_group(zarr.storage.LocalStore(tmp))
        a = group.create_array(
            f"{GROUP}/b04", shape=shape, chunks=shard, dtype="float32", fill_value=np.nan,
            serializer=_samples.band_codecs()(inner), filters=None, compressors=None,
            config={"write_empty_chunks": False}, dimension_names=["y", "x"],
            attributes={"_FillValue": _samples.xarray_fill_value(np.nan)})
        a[...] = _samples.band_data(band, "full")
    tmp.rename(path)


def read_once(path: Path, threads: int, codecs: dict) -> tuple[float, np.ndarray]:
    import dask
    import xarray as xr
    import zarr

    with zarr.config.set(codecs):
        ds = xr.open_dataset(path, group=GROUP, engine="zarr", chunks={})
        data = ds["b04"].data
        t0 = time.perf_counter()
        with dask.config.set(scheduler="threads", num_workers=threads):
            out = data.compute()
        return time.perf_counter() - t0, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", type=Path, default=ROOT / "build" / "bench-xarray")
    args = parser.parse_args(argv)

    import dask
    import xarray as xr
    import zarr

    import zcast
    import zcast.zarr as zz
    from zcast import _samples

    path = args.dir / "b04-full.zarr"
    if not path.exists():
        args.dir.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        write_band(path)
        print(f"wrote {path} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    impls = {"zcast": {"codecs.cast_value": zz.QUALNAME, "codecs.scale_offset": zz.SCALE_OFFSET_QUALNAME},
             "zarr-python": _samples.ZARR_PYTHON_CODECS}
    print(f"zcast {zcast.__version__} ({zcast.simd_target()}), zarr {zarr.__version__}, "
          f"xarray {xr.__version__}, dask {dask.__version__}; {path}")
    times: dict[tuple[str, int], list[float]] = {}
    reference = None
    for _ in range(args.repeat):
        for name, codecs in impls.items():
            for threads in (1, 2):
                seconds, out = read_once(path, threads, codecs)
                times.setdefault((name, threads), []).append(seconds)
                bits = out.view(np.uint32)
                if reference is None:
                    reference = bits.copy()
                elif not np.array_equal(reference, bits):
                    print(f"MISMATCH: {name} on {threads} threads read other bits", file=sys.stderr)
                    return 1
                del out, bits
    nbytes = reference.nbytes
    print(f"{'codecs':<12} {'threads':>7} {'median s':>9} {'GB/s out':>9} {'runs (s)':<24}")
    for (name, threads), ts in times.items():
        med = statistics.median(ts)
        print(f"{name:<12} {threads:>7} {med:>9.2f} {nbytes / med / 1e9:>9.2f} "
              f"{' '.join(f'{t:.2f}' for t in ts):<24}")
    for name in impls:
        one = statistics.median(times[(name, 1)])
        two = statistics.median(times[(name, 2)])
        print(f"{name}: 2 threads / 1 thread speedup {one / two:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
