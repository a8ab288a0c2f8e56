"""Two cores: the speed-up of zcast's Python paths from a second core (docs/performance.md).

    python bench/two_cores.py [--rounds 5] [--only a|b|c]

(a) zcast.cast_array on 16 Mi elements, 1 vs 2 threads (zcast.set_num_threads), in one process,
    interleaved.
(b) zarr-python writing and reading a 4096x4096 float32 array of 256 chunks (256x256) through
    zcast's cast_value codec, in a process pinned to one core (taskset -c 0) vs two
    (taskset -c 0,1), default zarr configuration unless the case says otherwise.
(c) `zcast convert` of such an array (zstd), pinned to one core vs two.

For (b) and (c) each measurement is a fresh process (taskset); the process times its own work
(imports and set-up excluded) as the median of --reps repetitions; rounds alternate the core sets
and the medians over the rounds are reported. The machine is shared: read the medians.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SHAPE = (4096, 4096)
CHUNKS = (256, 256)


def _field(seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.normal(12.0, 9.0, SHAPE).astype(np.float32)
    x[rng.random(SHAPE) < 0.02] = np.nan
    return x


def _median_time(fn, reps: int) -> float:
    return _timings(fn, reps)[0]


def _timings(fn, reps: int) -> tuple[float, float]:
    """Median wall time, and the median of (process CPU time / wall time): how many cores the
    work kept busy on average (all threads of the process count)."""
    fn()  # warm-up
    ts, busy = [], []
    for _ in range(reps):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        t1, c1 = time.perf_counter(), time.process_time()
        ts.append(t1 - t0)
        busy.append((c1 - c0) / (t1 - t0))
    return statistics.median(ts), statistics.median(busy)


# --------------------------------------------------------------------------------------------
# (a) in process


def case_a(rounds: int) -> list[dict]:
    import zcast

    n = 16 << 20
    rng = np.random.default_rng(1)
    cases = [
        ("float32->uint8 clamp", rng.uniform(-3, 258, n).astype(np.float32), "uint8", "clamp"),
        ("float32->float16", rng.normal(0, 1000, n).astype(np.float32), "float16", None),
        ("float64->float32", rng.normal(0, 1000, n), "float32", None),
        ("float32->float8_e4m3", rng.normal(0, 50, n).astype(np.float32), "float8_e4m3", "clamp"),
    ]
    out = []
    for name, x, dst, oor in cases:
        nbytes = x.nbytes + n * zcast.numpy_dtype(dst).itemsize
        for api in ("cast_array", "cast_array_into"):
            buf = np.empty(n, dtype=zcast.numpy_dtype(dst))
            if api == "cast_array":
                fn = lambda: zcast.cast_array(x, dst, out_of_range=oor)  # noqa: E731
            else:
                fn = lambda: zcast.cast_array_into(x, buf, out_of_range=oor)  # noqa: E731
            times = {1: [], 2: []}
            busy = []
            for t in (1, 2):
                zcast.set_num_threads(t)
                fn()
            for r in range(rounds * 3):
                for t in ((1, 2) if r % 2 == 0 else (2, 1)):
                    zcast.set_num_threads(t)
                    c0, t0 = time.process_time(), time.perf_counter()
                    res = fn()
                    t1, c1 = time.perf_counter(), time.process_time()
                    times[t].append(t1 - t0)
                    if t == 2:
                        busy.append((c1 - c0) / (t1 - t0))
                    del res
            m1, m2 = statistics.median(times[1]), statistics.median(times[2])
            out.append({"case": f"{name}, {api}", "t1": m1, "t2": m2, "speedup": m1 / m2,
                        "GBps1": nbytes / m1 / 1e9, "GBps2": nbytes / m2 / 1e9,
                        "busy2": statistics.median(busy)})
    zcast.set_num_threads(os.cpu_count() or 1)
    return out


# --------------------------------------------------------------------------------------------
# workers: run in a pinned subprocess, print {"seconds": ...}


def _threaded_codec() -> None:
    """Experiment: zcast's cast_value codec running its cast on a worker thread, as zarr's own
    compressors do (asyncio.to_thread), instead of on zarr's event-loop thread."""
    import zcast.zarr as zz

    async def enc(self, chunk_array, chunk_spec):
        return await asyncio.to_thread(self._encode_sync, chunk_array, chunk_spec)

    async def dec(self, chunk_array, chunk_spec):
        return await asyncio.to_thread(self._decode_sync, chunk_array, chunk_spec)

    zz.CastValue._encode_single = enc
    zz.CastValue._decode_single = dec


def worker_zarr(variant: str, reps: int, tmp: str) -> dict:
    import zarr

    import zcast
    import zcast.zarr as zz

    zcast.set_num_threads(len(os.sched_getaffinity(0)))
    opts = set(variant.split("+"))
    chunks = (1024, 1024) if "big" in opts else CHUNKS
    if "to_thread" in opts:
        _threaded_codec()
    config = {"codecs.cast_value": zz.QUALNAME, "codecs.scale_offset": zz.SCALE_OFFSET_QUALNAME}
    if "fused" in opts:
        config["codec_pipeline.path"] = "zarr.core.codec_pipeline.FusedCodecPipeline"
    data = _field()
    with zarr.config.set(config):
        if "zstd" in opts:
            store = zarr.storage.LocalStore(Path(tmp) / "a.zarr")
            filters = [zz.ScaleOffset(offset=-20, scale=4),
                       zz.CastValue(data_type="uint8", out_of_range="clamp",
                                    scalar_map={"encode": [["NaN", 0]], "decode": [[0, "NaN"]]})]
            compressors = [zarr.codecs.ZstdCodec(level=1)]
        else:
            store = zarr.storage.MemoryStore()
            filters = [zz.CastValue(data_type="float16")]
            compressors = None
        arr = zarr.create_array(store, shape=SHAPE, chunks=chunks, dtype="float32",
                                fill_value=np.nan, filters=filters, compressors=compressors,
                                overwrite=True)

        def write():
            arr[...] = data

        def read():
            return arr[...]
        t_write, busy_write = _timings(write, reps)
        t_read, busy_read = _timings(read, reps)
    return {"write": t_write, "read": t_read, "busy": {"write": busy_write, "read": busy_read}}


def worker_convert(variant: str, reps: int, tmp: str) -> dict:
    import contextlib
    import io

    import zarr

    import zcast
    from zcast import cli

    zcast.set_num_threads(len(os.sched_getaffinity(0)))
    if variant == "serial":  # the former one-block-at-a-time copy
        import concurrent.futures

        class OneWorker(concurrent.futures.ThreadPoolExecutor):
            def __init__(self, max_workers=None, **kw):
                super().__init__(max_workers=1, **kw)
        concurrent.futures.ThreadPoolExecutor = OneWorker
    src = Path(tmp) / "src.zarr"
    if not src.exists():
        arr = zarr.create_array(zarr.storage.LocalStore(src), shape=SHAPE, chunks=CHUNKS,
                                dtype="float32", fill_value=np.nan,
                                compressors=[zarr.codecs.ZstdCodec(level=1)])
        arr[...] = _field()
    args = ["convert", str(src), "", "--data-type", "uint8", "--out-of-range", "clamp",
            "--map", "NaN=0", "--scale", "4", "--offset", "-20",
            # The field's tail below -19.9 clamps onto the NaN sentinel (R27): timed as before.
            "--allow-sentinel-collisions"]
    k = [0]

    def run():
        k[0] += 1
        dst = Path(tmp) / f"dst{k[0]}.zarr"
        args[2] = str(dst)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            rc = cli.main(args)
        if rc != 0:
            raise RuntimeError(f"zcast convert failed with status {rc}")
        shutil.rmtree(dst)
    t, busy = _timings(run, reps)
    return {"convert": t, "busy": {"convert": busy}}


WORKERS = {
    "zarr memory float16 256x256": ("zarr", ""),
    "zarr memory float16 256x256, codec to_thread": ("zarr", "to_thread"),
    "zarr memory float16 256x256, FusedCodecPipeline": ("zarr", "fused"),
    "zarr memory float16 1024x1024": ("zarr", "big"),
    "zarr memory float16 1024x1024, FusedCodecPipeline": ("zarr", "big+fused"),
    "zarr local scale_offset+uint8+zstd 256x256": ("zarr", "zstd"),
    "zarr local scale_offset+uint8+zstd 256x256, codec to_thread": ("zarr", "zstd+to_thread"),
    "zarr local scale_offset+uint8+zstd 256x256, FusedCodecPipeline": ("zarr", "zstd+fused"),
    "zcast convert (zstd, scale_offset+uint8) 256x256": ("convert", ""),
    "zcast convert (zstd, scale_offset+uint8) 256x256, one block at a time": ("convert", "serial"),
}


def run_pinned(cpus: str, case: str, reps: int, tmp: str) -> dict:
    cmd = ["taskset", "-c", cpus, sys.executable, __file__, "--worker", case, "--reps", str(reps),
           "--tmp", tmp]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"{case} on CPUs {cpus} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def pinned_cases(rounds: int, reps: int, only: str | None) -> list[dict]:
    out = []
    for case, (kind, _) in WORKERS.items():
        if only and not ((only == "b" and kind == "zarr") or (only == "c" and kind == "convert")):
            continue
        tmp = tempfile.mkdtemp(prefix="zcast-2cores-")
        try:
            runs = {"0": [], "0,1": []}
            for r in range(rounds):
                for cpus in (("0", "0,1") if r % 2 == 0 else ("0,1", "0")):
                    runs[cpus].append(run_pinned(cpus, case, reps, tmp))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        for what in runs["0"][0]["busy"]:
            m1 = statistics.median(r[what] for r in runs["0"])
            m2 = statistics.median(r[what] for r in runs["0,1"])
            b2 = statistics.median(r["busy"][what] for r in runs["0,1"])
            out.append({"case": f"{case}: {what}", "t1": m1, "t2": m2, "speedup": m1 / m2,
                        "busy2": b2})
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--only", choices=["a", "b", "c"])
    p.add_argument("--json", action="store_true")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--tmp", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        kind, variant = WORKERS[args.worker]
        fn = worker_zarr if kind == "zarr" else worker_convert
        print(json.dumps(fn(variant, args.reps, args.tmp)))
        return 0
    results = []
    if args.only in (None, "a"):
        results += case_a(args.rounds)
    if args.only != "a":
        results += pinned_cases(args.rounds, args.reps, args.only)
    if args.json:
        print(json.dumps(results, indent=1))
        return 0
    w = max(len(r["case"]) for r in results)
    print(f"{'case':<{w}}  {'1 core/thread':>13}  {'2 cores/threads':>15}  speed-up  "
          f"CPU/wall on 2")
    for r in results:
        print(f"{r['case']:<{w}}  {r['t1'] * 1e3:10.1f} ms  {r['t2'] * 1e3:12.1f} ms  "
              f"{r['speedup']:7.2f}x  {r['busy2']:8.2f}")
    print(f"medians; load average now {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
