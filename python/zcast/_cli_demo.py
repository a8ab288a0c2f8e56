"""zcast demo: a built-in float32 field written with several cast_value configurations, read
back, and compared (stored size, ratio, max / RMS error, speed), for zcast and zarr-python's own
cast_value where it can do the conversion."""

from __future__ import annotations

import argparse
import math
import re
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import zcast
from zcast import _dtypes
from zcast._cli_common import _error_stats, _human, _rms, _stored_bytes, _table


def sample_field(shape: tuple[int, int], seed: int = 20240607) -> np.ndarray:
    """A deterministic, realistic float32 field: near-surface air temperature in degrees C over
    a region, with a latitude gradient, a few fronts and warm/cold cores, sensor noise, and NaN
    no-data where a swath gap and a cloud mask hide the ground (about 15% of the pixels)."""
    rng = np.random.default_rng(seed)
    ny, nx = shape
    y = np.linspace(0.0, 1.0, ny, dtype=np.float64)[:, None]
    x = np.linspace(0.0, 1.0, nx, dtype=np.float64)[None, :]
    field = 32.0 - 45.0 * y  # warm south, cold north
    field = field + 4.0 * np.sin(2 * np.pi * (3 * x + 0.5 * y)) * np.cos(2 * np.pi * 2 * y)
    for _ in range(12):  # warm and cold cores
        cy, cx, r, amp = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.03, 0.15), rng.normal(0, 6)
        field = field + amp * np.exp(-((y - cy) ** 2 + (x - cx) ** 2) / (2 * r * r))
    field = field + rng.normal(0.0, 0.15, size=shape)  # sensor noise
    field = np.clip(field, -19.5, 44.5).astype(np.float32)  # the sensor's valid range
    # No-data: a diagonal swath gap and blobs of cloud.
    gap = np.abs((x - 0.8 * y) - 0.35) < 0.025
    clouds = np.zeros(shape, dtype=bool)
    for _ in range(25):
        cy, cx, r = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.01, 0.06)
        clouds |= ((y - cy) ** 2 + (x - cx) ** 2) < r * r
    field[np.broadcast_to(gap, shape) | clouds] = np.nan
    return field


# The types zarr-python's own cast_value can cast to (cast-value-rs: numpy's 11 types).
_REFERENCE_TYPES = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                    "float16", "float32", "float64"}


def _demo_configs() -> list[dict[str, Any]]:
    """The configurations the demo writes: a label, the filters given the implementation's
    (CastValue, ScaleOffset) classes, and the encoded type (None for the uncast baseline)."""
    nan0 = {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}
    nan_min16 = {"encode": [["NaN", -32768]], "decode": [[-32768, "NaN"]]}
    return [
        {"label": "float32 (no cast)", "filters": lambda cv, so: [], "cast": None},
        {"label": "float16", "filters": lambda cv, so: [cv(data_type="float16")],
         "cast": "float16"},
        {"label": "bfloat16", "filters": lambda cv, so: [cv(data_type="bfloat16")],
         "cast": "bfloat16"},
        {"label": "float8_e4m3", "filters": lambda cv, so: [cv(data_type="float8_e4m3")],
         "cast": "float8_e4m3"},
        {"label": "float8_e5m2", "filters": lambda cv, so: [cv(data_type="float8_e5m2")],
         "cast": "float8_e5m2"},
        {"label": "uint8 (x+20)*3.5, NaN->0",
         "filters": lambda cv, so: [so(offset=-20, scale=3.5),
                                    cv(data_type="uint8", out_of_range="clamp", scalar_map=nan0)],
         "cast": "uint8"},
        {"label": "int16 x*100, NaN->-32768",
         "filters": lambda cv, so: [so(offset=0, scale=100),
                                    cv(data_type="int16", scalar_map=nan_min16)],
         "cast": "int16"},
    ]


def _time_best(fn: Any, repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _demo_one(zarr: Any, root: Path, name: str, data: np.ndarray, chunks: tuple[int, int],
              filters: list[Any], selection: dict[str, str], repeat: int) -> dict[str, Any]:
    path = root / name
    with zarr.config.set(selection):
        arr = zarr.create_array(zarr.storage.LocalStore(path), shape=data.shape, chunks=chunks,
                                dtype="float32", fill_value=np.nan, filters=filters,
                                overwrite=True)
        def write() -> None:
            arr[...] = data
        t_enc = _time_best(write, repeat)
        reread = zarr.open_array(zarr.storage.LocalStore(path), mode="r")
        result: dict[str, np.ndarray] = {}
        def read() -> None:
            result["x"] = reread[...]
        t_dec = _time_best(read, repeat)
    stats = _error_stats(data, result["x"])
    return {"stored": _stored_bytes(path), "t_enc": t_enc, "t_dec": t_dec, "stats": stats}


def _kernel_table(data: np.ndarray, repeat: int) -> str:
    """The casts alone, on the same field, without zarr: zcast, cast-value-rs, and numpy /
    ml_dtypes astype (nearest-even, no range checks, no scalar_map: a speed baseline only)."""
    try:
        from cast_value_rs import cast_array as rs_cast
    except ImportError:
        rs_cast = None
    mb = data.nbytes / 1e6
    cases = [("float16", None, None), ("bfloat16", None, None), ("float8_e4m3", "clamp", None),
             ("float8_e5m2", None, None), ("uint8", "clamp", [("NaN", 0)])]
    rows = []
    for target, oor, smap in cases:
        dt = _dtypes.numpy_dtype(target)
        enc = zcast.cast_array(data, target, out_of_range=oor, scalar_map=smap)
        back_map = [(0, "NaN")] if smap else None
        row = [target + (", clamp" if oor else "") + (", NaN->0" if smap else ""),
               f"{mb / _time_best(lambda: zcast.cast_array(data, target, out_of_range=oor, scalar_map=smap), repeat):.0f}",
               f"{mb / _time_best(lambda: zcast.cast_array(enc, 'float32', scalar_map=back_map), repeat):.0f}"]
        if rs_cast is not None and target in _REFERENCE_TYPES:
            entries = {math.nan: 0} if smap else None
            row.append(f"{mb / _time_best(lambda: rs_cast(data, target_dtype=dt, rounding_mode='nearest-even', out_of_range_mode=oor, scalar_map_entries=entries), repeat):.0f}")
            back = {0: math.nan} if smap else None
            row.append(f"{mb / _time_best(lambda: rs_cast(enc, target_dtype=np.dtype('float32'), rounding_mode='nearest-even', out_of_range_mode=None, scalar_map_entries=back), repeat):.0f}")
        else:
            row += ["-", "-"]
        with np.errstate(all="ignore"):
            row.append(f"{mb / _time_best(lambda: data.astype(dt), repeat):.0f}")
            row.append(f"{mb / _time_best(lambda: enc.astype(np.float32), repeat):.0f}")
        rows.append(row)
    headers = ["cast kernels only, MB/s of float32", "zcast enc", "zcast dec",
               "cast-value-rs enc", "cast-value-rs dec", "astype enc", "astype dec"]
    return _table(headers, rows, left=(0,)) + ("\nastype: numpy / ml_dtypes, nearest-even without range "
                                    "checks or scalar_map (not a cast_value implementation).")


def cmd_demo(args: argparse.Namespace) -> int:
    import zarr

    import zcast.zarr as zz

    ny, nx = args.size
    data = sample_field((ny, nx))
    chunks = (min(512, ny), min(512, nx))
    mb = data.nbytes / 1e6
    tmp = None
    if args.out:
        root = Path(args.out)
        root.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="zcast-demo-")
        root = Path(tmp.name)
    builtin = getattr(zarr.codecs, "CastValue", None)
    builtin_so = getattr(zarr.codecs, "ScaleOffset", None)
    try:
        from cast_value_rs import cast_array as _  # noqa: F401 - zarr's CastValue needs it
    except ImportError:
        builtin = None
    ours = {"codecs.cast_value": zz.QUALNAME, "codecs.scale_offset": zz.SCALE_OFFSET_QUALNAME}
    theirs = {}
    if builtin is not None and builtin_so is not None:
        theirs = {"codecs.cast_value": f"{builtin.__module__}.{builtin.__qualname__}",
                  "codecs.scale_offset": f"{builtin_so.__module__}.{builtin_so.__qualname__}"}
    else:
        builtin = None
    nan_frac = float(np.isnan(data).mean())
    print(f"zcast demo: sample field {ny}x{nx} float32 (air temperature, deg C, "
          f"{np.nanmin(data):.1f}..{np.nanmax(data):.1f}; {nan_frac:.0%} NaN no-data), "
          f"{_human(data.nbytes)}, chunks {chunks[0]}x{chunks[1]}, zstd; zarr {zarr.__version__}")
    print(f"arrays written under {root}" + ("" if args.out else " (temporary)"))
    print()
    rows = []
    baseline = None
    failures = 0
    for i, cfg in enumerate(_demo_configs()):
        impls = [("zcast", (zz.CastValue, zz.ScaleOffset), ours)]
        if cfg["cast"] in _REFERENCE_TYPES and builtin is not None and not args.no_reference:
            impls.append(("zarr-python", (builtin, builtin_so), theirs))
        if cfg["cast"] is None:
            impls = [("-", (None, None), ours)]
        for impl, classes, selection in impls:
            try:
                filters = cfg["filters"](*classes)
                r = _demo_one(zarr, root, f"a{i}_{impl.replace('-', '_')}", data, chunks, filters,
                              selection, args.repeat)
            except Exception as err:  # noqa: BLE001 - a row of the table, not a crash
                if impl == "zcast":
                    failures += 1
                msg = str(err).splitlines()[0][:70]
                rows.append([cfg["label"], impl, "failed", "", "", "", "", "", msg])
                continue
            if baseline is None:
                baseline = r["stored"]
            s = r["stats"]
            rows.append([
                cfg["label"], impl, _human(r["stored"]), f"{data.nbytes / r['stored']:.2f}",
                f"{s['max_abs']:.3g}", f"{_rms(s):.3g}",
                f"{mb / r['t_enc']:.0f}", f"{mb / r['t_dec']:.0f}",
                "ok" if s["nan_mismatch"] == 0 else f"{s['nan_mismatch']} NaN lost",
            ])
    print(_table(["configuration", "codec", "stored", "ratio", "max err", "RMS err",
                  "enc MB/s", "dec MB/s", "no-data"], rows))
    print()
    print("ratio: raw float32 bytes / stored bytes; errors over valid pixels, in deg C; "
          "MB/s of float32 data through zarr (best of %d)." % args.repeat)
    if builtin is not None and not args.no_reference:
        print("zarr-python's own cast_value (cast-value-rs) supports only numpy's 11 types: no "
              "bfloat16 or float8 rows for it.")
    print()
    print(_kernel_table(data, args.repeat))
    if builtin is None and not args.no_reference:
        print("zarr-python's own cast_value is not available here (needs zarr >= 3.2 and "
              "cast-value-rs); only zcast was run.")
    if tmp is not None:
        tmp.cleanup()
    return 1 if failures else 0



def _shape(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+)(?:x(\d+))?", text)
    if not m:
        raise argparse.ArgumentTypeError(f"expected ROWSxCOLS, got {text!r}")
    ny = int(m.group(1))
    nx = int(m.group(2) or m.group(1))
    if ny < 1 or nx < 1:
        raise argparse.ArgumentTypeError("sizes must be positive")
    return ny, nx



def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def add_parser(sub: Any) -> None:
    p = sub.add_parser("demo", help="write sample data with several cast_value configurations "
                       "and compare sizes, errors and speed",
                       description="Writes a built-in, deterministic float32 field with NaN "
                       "no-data as Zarr arrays with several cast_value configurations, reads "
                       "them back and prints stored bytes, compression ratio, max and RMS error "
                       "and encode/decode throughput, for zcast and (where it can do the "
                       "conversion) zarr-python's own cast_value.")
    p.add_argument("--size", type=_shape, default=(1024, 1024), metavar="ROWSxCOLS",
                   help="sample field size (default: 1024x1024)")
    p.add_argument("--out", metavar="DIR", help="keep the arrays in DIR (default: a temp dir)")
    p.add_argument("--repeat", type=_positive_int, default=3,
                   help="timing repetitions, at least 1 (best is shown; default: 3)")
    p.add_argument("--no-reference", action="store_true",
                   help="skip zarr-python's own cast_value codec")
    p.set_defaults(func=cmd_demo)
