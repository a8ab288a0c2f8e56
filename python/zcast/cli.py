"""The zcast command-line tool.

    zcast demo                      cast_value on built-in sample data: sizes, errors, speed
    zcast cast --from S --to T IN OUT     cast a raw binary or .npy file
    zcast inspect PATH              a Zarr array's codec chain, data type and fill value per step
    zcast convert SRC DST --data-type T [--scale S --offset O]
                                    rewrite a Zarr array with [scale_offset,] cast_value added
    zcast sample-eopf DIR           write a small EOPF-like Sentinel-2 product (zarr-python's codecs)
    zcast bench [--size N] [--json] [--quick]   zcast beside the other implementations: GB/s

Each subcommand has --help. Exit status: 0 on success, 1 when a cast or the metadata fails, 2 for
usage errors.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import zcast
from zcast import _api, _dtypes
from zcast._chain import OWNED_CODECS
from zcast._samples import SEED as _SAMPLE_SEED  # numpy only: zarr is imported when writing
from zcast._errors import CastError, MetadataError

ROUNDINGS = ["nearest-even", "nearest-away", "towards-zero", "towards-positive", "towards-negative"]
OUT_OF_RANGE = ["clamp", "wrap"]


class CliError(Exception):
    """A failure to report as one line on stderr with exit status 1."""


# --------------------------------------------------------------------------------------------
# shared helpers


def _parse_scalar(text: str) -> Any:
    """One side of --map IN=OUT: an int, a float, or a JSON scalar string (NaN, Infinity, 0x..)."""
    t = text.strip()
    if t in ("NaN", "Infinity", "-Infinity", "+Infinity") or t.lower().startswith("0x"):
        return t
    if t.lower() in ("nan", "inf", "+inf", "-inf"):
        return {"nan": "NaN", "inf": "Infinity", "+inf": "Infinity", "-inf": "-Infinity"}[t.lower()]
    if re.fullmatch(r"[-+]?\d+", t):
        return int(t)
    try:
        return float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number, NaN, Infinity or 0x...")


def _parse_pair(text: str) -> tuple[Any, Any]:
    if "=" not in text[1:]:
        raise argparse.ArgumentTypeError(f"expected IN=OUT, got {text!r}")
    cut = text.index("=", 1)
    return _parse_scalar(text[:cut]), _parse_scalar(text[cut + 1:])


def _add_cast_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rounding", choices=ROUNDINGS, default="nearest-even",
                   help="rounding mode (default: nearest-even)")
    p.add_argument("--out-of-range", choices=OUT_OF_RANGE, default=None,
                   help="clamp or wrap (integer targets) out-of-range values; default: error")
    p.add_argument("--map", dest="maps", metavar="IN=OUT", type=_parse_pair, action="append",
                   default=[], help="scalar_map entry, applied first, e.g. --map NaN=0 "
                   "(repeatable; values: numbers, NaN, Infinity, -Infinity, 0x<bits>)")


def _human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def _stored_bytes(path: Path) -> int:
    """Bytes of chunk data under an array's directory (metadata documents excluded)."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and f.name != "zarr.json")


def _error_stats(reference: np.ndarray, actual: np.ndarray) -> dict[str, float]:
    """Max abs and RMS error over the elements that are finite in the reference, and how many
    NaNs of the reference were not NaN afterwards (or the reverse)."""
    ref = np.asarray(reference, dtype=np.float64)
    act = np.asarray(actual, dtype=np.float64)
    # Elements that became NaN are counted as mismatches, not folded into the error numbers.
    finite = np.isfinite(ref) & ~np.isnan(act)
    diff = np.abs(act[finite] - ref[finite])
    return {
        "count": int(finite.sum()),
        "max_abs": float(diff.max()) if diff.size else 0.0,
        "sum_sq": float(np.square(diff).sum()) if diff.size else 0.0,
        "nan_mismatch": int((np.isnan(ref) != np.isnan(act)).sum()),
    }


def _merge_stats(total: dict[str, float], part: dict[str, float]) -> None:
    total["count"] += part["count"]
    total["max_abs"] = max(total["max_abs"], part["max_abs"])
    total["sum_sq"] += part["sum_sq"]
    total["nan_mismatch"] += part["nan_mismatch"]


def _rms(stats: dict[str, float]) -> float:
    return math.sqrt(stats["sum_sq"] / stats["count"]) if stats["count"] else 0.0


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]],
           left: Sequence[int] = (0, 1, -1)) -> str:
    """A plain-text table; the columns in `left` (indexes, -1 the last) are left-aligned."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lefts = {i % len(widths) for i in left}
    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if i in lefts else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, rows)])


# --------------------------------------------------------------------------------------------
# zcast demo


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


# --------------------------------------------------------------------------------------------
# zcast cast


def cmd_cast(args: argparse.Namespace) -> int:
    src_path, dst_path = Path(args.input), Path(args.output)
    if src_path.suffix == ".npy":
        data = np.load(src_path, allow_pickle=False)
        if args.from_type is not None and _dtypes.zarr_name(args.from_type) != _dtypes.zarr_name(data.dtype):
            raise CliError(f"{src_path} holds {_dtypes.zarr_name(data.dtype)}, not {args.from_type}")
    else:
        if args.from_type is None:
            raise CliError("--from is required for raw input (only .npy files carry their type)")
        data = np.fromfile(src_path, dtype=_dtypes.numpy_dtype(_dtypes.zarr_name(args.from_type)))
    t0 = time.perf_counter()
    out = zcast.cast_array(data, args.to_type, rounding=args.rounding,
                           out_of_range=args.out_of_range, scalar_map=args.maps or None)
    dt = time.perf_counter() - t0
    if dst_path.suffix == ".npy":
        np.save(dst_path, out, allow_pickle=False)
    else:
        out.tofile(dst_path)
    print(f"cast {data.size} elements {_dtypes.zarr_name(data.dtype)} -> {args.to_type} "
          f"({args.rounding}{', ' + args.out_of_range if args.out_of_range else ''}) "
          f"in {dt * 1e3:.1f} ms: wrote {dst_path} ({_human(out.nbytes)})")
    return 0


# --------------------------------------------------------------------------------------------
# zcast inspect


def _describe_codec(d: Any) -> str:
    if isinstance(d, str):
        return d  # a bare codec name (R26)
    if not isinstance(d, dict):
        return repr(d)
    conf = d.get("configuration")
    if d.get("name") == "sharding_indexed" and isinstance(conf, dict):
        # The inner codecs are listed below it, one per line.
        conf = {k: v for k, v in conf.items() if k != "codecs"}
    return str(d.get("name", "?")) + (" " + json.dumps(conf, separators=(",", ":")) if conf else "")


def _codec_name(d: Any) -> str | None:
    """A codec entry's name: {"name": ...} or a bare string (R26)."""
    if isinstance(d, str):
        return d
    return d.get("name") if isinstance(d, dict) else None


def _after(indent: str, data_type: str, fill: Any) -> str:
    return (f"{indent}   -> data_type {data_type}, fill_value "
            f"{'none' if fill is None else json.dumps(fill)}")


_CHAIN_ERROR_RE = re.compile(r"^(?:invalid array metadata: )?codecs\[(\d+)\]: ")


def _inspect_owned(codecs: list[Any], spec: Any, meta: dict[str, Any] | None, indent: str,
                   out: list[str], where: str, checked: dict[str, int],
                   problems: list[str]) -> tuple[int, Any]:
    """The leading codecs zcast owns, through zcast.Chain (the core's own reading, as a C reader
    gets it from zcast_chain_create): each codec with the data type and fill value after each of
    its steps, then one line for the chain. Returns how many codecs it owns and the chunk spec
    after them (None on a problem, which is appended to `problems`)."""
    from dataclasses import replace

    from zarr.core.dtype import get_data_type_from_json

    try:
        if meta is not None:
            chain = zcast.Chain.from_array_metadata(meta)
        else:
            fill = (None if spec.fill_value is None
                    else spec.dtype.to_json_scalar(spec.fill_value, zarr_format=3))
            chain = zcast.Chain.from_codecs(codecs, spec.dtype.to_json(zarr_format=3), fill)
    except MetadataError as err:
        message = str(err)
        m = _CHAIN_ERROR_RE.match(message)
        bad = int(m.group(1)) if m else None
        for i, d in enumerate(codecs[: (bad + 1) if bad is not None else 0]):
            out.append(f"{indent}{i}  {_describe_codec(d)}")
        detail = message[m.end():] if m else message
        problems.append(f"{where}[{bad}] {_codec_name(codecs[bad])}: {detail}" if m
                        else f"{where}: {detail}")
        out.append(f"{indent}   INVALID: {detail}")
        return 0, None
    steps = iter(chain.steps)
    for i in range(chain.owned_codecs):
        d = codecs[i]
        name = _codec_name(d)
        checked[name] = checked.get(name, 0) + 1
        out.append(f"{indent}{i}  {_describe_codec(d)}")
        if name == "numcodecs.fixedscaleoffset":  # read as two steps (R25)
            for step in (next(steps), next(steps)):
                out.append(f"{indent}   = {_describe_codec(step.codec)}")
                out.append(_after(indent + "  ", step.data_type, step.fill_value))
        else:
            step = next(steps)
            out.append(_after(indent, step.data_type, step.fill_value))
    n = chain.owned_codecs
    rest = chain.first_unowned_codec
    owned = "codec 0" if n == 1 else f"codecs 0-{n - 1}"
    out.append(f"{indent}   zcast chain: {owned}, {len(chain.steps)} step(s) in one "
               f"fused pass, {chain.data_type} -> {chain.encoded_data_type}; "
               + (f"the reader takes over at codec {n} ({rest})" if rest
                  else "it owns every codec"))
    dtype = get_data_type_from_json(chain.encoded_data_type, zarr_format=3)
    fill = chain.encoded_fill_value_json
    spec = replace(spec, dtype=dtype,
                   fill_value=None if fill is None else dtype.from_json_scalar(fill, zarr_format=3))
    return n, spec


def _inspect_chain(codecs: list[Any], spec: Any, indent: str, out: list[str], where: str,
                   checked: dict[str, int], meta: dict[str, Any] | None = None) -> list[str]:
    """Walks a codec list with the chunk spec, printing each codec and, after an array->array
    codec, the data type and fill value it produces. The leading scale_offset / cast_value /
    numcodecs.fixedscaleoffset run is read by zcast's chain (meta: the whole zarr.json, for the
    array's own list); the rest by zarr's codec classes. Returns the problems found."""
    from zarr.abc.codec import ArrayArrayCodec
    from zarr.registry import get_codec_class

    import zcast.zarr as zz

    problems: list[str] = []
    start = 0
    if codecs and _codec_name(codecs[0]) in OWNED_CODECS:
        start, spec = _inspect_owned(codecs, spec, meta, indent, out, where, checked, problems)
        if spec is None:
            return problems
    for i, d in enumerate(codecs[start:], start):
        name = _codec_name(d)
        out.append(f"{indent}{i}  {_describe_codec(d)}")
        if name in ("cast_value", "scale_offset"):  # after a codec the chain does not own
            try:
                codec = (zz.CastValue if name == "cast_value" else zz.ScaleOffset).from_dict(d)
                codec.validate(shape=spec.shape, dtype=spec.dtype, chunk_grid=None)
                spec = codec.resolve_metadata(spec)
            except (MetadataError, ValueError, TypeError) as err:
                problems.append(f"{where}[{i}] {name}: {err}")
                out.append(f"{indent}   INVALID: {err}")
                return problems
            checked[name] = checked.get(name, 0) + 1
            out.append(_after(indent, spec.dtype.to_json(zarr_format=3),
                              spec.dtype.to_json_scalar(spec.fill_value, zarr_format=3)))
            continue
        try:
            codec = get_codec_class(name).from_dict(d if isinstance(d, dict) else {"name": d})
        except Exception as err:  # noqa: BLE001 - unknown or invalid codec: report and stop
            problems.append(f"{where}[{i}] {name}: {err}")
            out.append(f"{indent}   cannot interpret: {err}")
            return problems
        if isinstance(codec, ArrayArrayCodec):
            spec = codec.resolve_metadata(spec)
            out.append(_after(indent, spec.dtype.to_json(zarr_format=3),
                              spec.dtype.to_json_scalar(spec.fill_value, zarr_format=3)))
        inner = (d.get("configuration") or {}).get("codecs") if name == "sharding_indexed" else None
        if inner is not None:
            from dataclasses import replace
            chunk_shape = tuple(d["configuration"]["chunk_shape"])
            out.append(f"{indent}   inner chunks {list(chunk_shape)}:")
            problems += _inspect_chain(inner, replace(spec, shape=chunk_shape), indent + "     ",
                                       out, f"{where}[{i}].codecs", checked)
    return problems


def cmd_inspect(args: argparse.Namespace) -> int:
    from zarr.core.array_spec import ArrayConfig, ArraySpec
    from zarr.core.buffer import default_buffer_prototype
    from zarr.core.dtype import get_data_type_from_json

    import zcast.zarr  # noqa: F401 - registers the extra data types

    path = Path(args.path)
    meta_path = path / "zarr.json" if path.is_dir() else path
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, ValueError) as err:
        raise CliError(f"cannot read {meta_path}: {err}") from None
    if meta.get("zarr_format") != 3 or meta.get("node_type") != "array":
        raise CliError(f"{meta_path} is not a Zarr v3 array")
    try:
        zdtype = get_data_type_from_json(meta["data_type"], zarr_format=3)
        fill = zdtype.from_json_scalar(meta["fill_value"], zarr_format=3)
    except Exception as err:  # noqa: BLE001
        raise CliError(f"data_type {meta.get('data_type')!r} / fill_value "
                       f"{meta.get('fill_value')!r}: {err}") from None
    grid = meta.get("chunk_grid", {}).get("configuration", {}).get("chunk_shape")
    lines = [f"{path}: Zarr v3 array, shape {meta['shape']}, chunks {grid}, "
             f"data_type {json.dumps(meta['data_type'])}, fill_value {json.dumps(meta['fill_value'])}",
             "codecs:"]
    spec = ArraySpec(shape=tuple(grid or meta["shape"]), dtype=zdtype, fill_value=fill,
                     config=ArrayConfig.from_dict({}), prototype=default_buffer_prototype())
    checked: dict[str, int] = {}
    with zcast.zarr.use():  # zarr parses inner codecs of sharding itself: no "which one" warning
        problems = _inspect_chain(meta.get("codecs", []), spec, "  ", lines, "codecs", checked,
                                  meta=meta)
    print("\n".join(lines))
    if problems:
        print(f"INVALID: {len(problems)} problem(s):")
        for p in problems:
            print(f"  {p}")
        return 1
    counts = [f"{checked[n]} {n}" for n in OWNED_CODECS if checked.get(n)]
    print(f"metadata valid ({', '.join(counts)} codec(s) checked)" if counts
          else "metadata valid (no scale_offset or cast_value codec)")
    return 0


# --------------------------------------------------------------------------------------------
# zcast convert


def _regions(shape: tuple[int, ...], block: tuple[int, ...]) -> list[tuple[slice, ...]]:
    ranges = [range(0, s, b) for s, b in zip(shape, block)]
    return [tuple(slice(o, min(o + b, s)) for o, b, s in zip(origin, block, shape))
            for origin in itertools.product(*ranges)]


def _progress(done: int, total: int, start: float) -> None:
    if not sys.stderr.isatty() and done not in (total,) and done % max(1, total // 10):
        return
    width = 30
    filled = width * done // max(total, 1)
    elapsed = time.perf_counter() - start
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} blocks "
                     f"{elapsed:.1f}s")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _copy_regions(src: Any, dst: Any, regions: list[tuple[slice, ...]],
                  stats: dict[str, float], start: float) -> None:
    """Copies each region of ``src`` into ``dst`` and adds its error statistics to ``stats``,
    one region per task on two threads per CPU this process may use (zarr's compressors and
    zcast's casts release the GIL). Statistics are merged, and a failure raised, in region order,
    so the result and the error reported are those of a one-at-a-time copy."""
    from concurrent.futures import ThreadPoolExecutor

    def one(region: tuple[slice, ...]) -> dict[str, float]:
        values = src[region]
        dst[region] = values
        if not _is_numeric(values):
            return {"count": 0, "max_abs": 0.0, "sum_sq": 0.0, "nan_mismatch": 0}
        return _error_stats(values, dst[region])

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    # Two blocks per CPU: while one waits for zarr's event loop or the disk, another computes.
    pool = ThreadPoolExecutor(max_workers=max(1, min(len(regions), 2 * (cpus or 1), 32)),
                              thread_name_prefix="zcast-convert")
    try:
        futures = [pool.submit(one, region) for region in regions]
        for i, future in enumerate(futures):
            _merge_stats(stats, future.result())
            _progress(i + 1, len(regions), start)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)  # on failure: no writes after the cleanup


def cmd_convert(args: argparse.Namespace) -> int:
    import zarr

    import zcast.zarr as zz

    src_path, dst_path = Path(args.src), Path(args.dst)
    if dst_path.exists():
        raise CliError(f"{dst_path} already exists; choose a new destination")
    with zz.use():  # the source's own scale_offset / cast_value are read by zcast too
        return _convert(zarr, zz, src_path, dst_path, args)


def _convert(zarr: Any, zz: Any, src_path: Path, dst_path: Path, args: argparse.Namespace) -> int:
    try:
        src = zarr.open_array(zarr.storage.LocalStore(src_path, read_only=True), mode="r")
    except Exception as err:  # noqa: BLE001
        raise CliError(f"cannot open {src_path} as a Zarr array: {err}") from None
    encode_map = [list(p) for p in args.maps]
    decode_map = [list(p) for p in args.decode_maps]
    if encode_map and not decode_map and not args.one_way:
        decode_map = [[b, a] for a, b in encode_map]  # NaN=0 also reads 0 back as NaN
    scalar_map = None
    if encode_map or decode_map:
        scalar_map = {k: v for k, v in (("encode", encode_map), ("decode", decode_map)) if v}
    new_filters = []
    if args.scale is not None or args.offset is not None:
        new_filters.append(zz.ScaleOffset(offset=args.offset, scale=args.scale))
    new_filters.append(zz.CastValue(data_type=args.data_type, rounding=args.rounding,
                                    out_of_range=args.out_of_range, scalar_map=scalar_map))
    # The source's own scale_offset / cast_value / fixedscaleoffset are replaced, not stacked:
    # the values written are the decoded ones. Other filters (transpose, ...) are kept.
    kept = [f for f in src.filters if _codec_name(f.to_dict()) not in OWNED_CODECS]
    replaced = [_codec_name(f.to_dict()) for f in src.filters
                if _codec_name(f.to_dict()) in OWNED_CODECS]
    serializer = src.serializer if src.shards is None else "auto"
    if isinstance(serializer, zarr.codecs.BytesCodec) and serializer.endian is None:
        # The source's encoded type had one byte; the new one may have more.
        serializer = zarr.codecs.BytesCodec(endian="little")
    block = src.shards or src.chunks
    regions = _regions(src.shape, block)
    created = False
    stats = {"count": 0, "max_abs": 0.0, "sum_sq": 0.0, "nan_mismatch": 0}
    start = time.perf_counter()
    try:
        dst = zarr.create_array(
            zarr.storage.LocalStore(dst_path), shape=src.shape, dtype=src.metadata.data_type,
            chunks=src.chunks, shards=src.shards, fill_value=src.fill_value,
            filters=[*kept, *new_filters], compressors=src.compressors,
            serializer=serializer, attributes=dict(src.attrs), dimension_names=src.metadata.dimension_names)
        created = True
        _copy_regions(src, dst, regions, stats, start)  # several blocks at a time
    except BaseException as err:
        if created or dst_path.exists():
            shutil.rmtree(dst_path, ignore_errors=True)
        if isinstance(err, (CastError, MetadataError, ValueError)):
            raise CliError(f"conversion failed, {dst_path} removed: {err}") from None
        raise
    src_bytes, dst_bytes = _stored_bytes(src_path), _stored_bytes(dst_path)
    print(f"converted {src_path} -> {dst_path}: {len(regions)} blocks, "
          f"{time.perf_counter() - start:.2f} s")
    print(f"  codecs    {' + '.join(f.spec_json for f in new_filters)}"
          + (f" (replacing the source's {', '.join(replaced)})" if replaced else ""))
    meta = json.loads((dst_path / "zarr.json").read_text())
    if meta["codecs"] and _codec_name(meta["codecs"][0]) in OWNED_CODECS:
        chain = zcast.Chain.from_array_metadata(meta)
        print(f"  chain     {chain.data_type} -> "
              + "".join(f"{s.name} -> " for s in chain.steps) + chain.encoded_data_type
              + f", fill_value {json.dumps(meta['fill_value'])} -> "
              + json.dumps(chain.encoded_fill_value_json)
              + f"; then {', '.join(str(_codec_name(c)) for c in chain.remaining_codecs)}")
    print(f"  stored    {_human(src_bytes)} -> {_human(dst_bytes)} "
          f"(ratio {src_bytes / dst_bytes if dst_bytes else float('inf'):.2f})")
    print(f"  max error {stats['max_abs']:.6g}   RMS error {_rms(stats):.6g}   "
          f"over {stats['count']} finite elements; NaN mismatches {stats['nan_mismatch']}")
    return 0


# --------------------------------------------------------------------------------------------
# zcast sample-eopf


def cmd_sample_eopf(args: argparse.Namespace) -> int:
    import zarr

    from zcast import _samples

    if not all(hasattr(zarr.codecs, c) for c in ("ScaleOffset", "CastValue")):
        raise CliError(f"the sample is written by zarr-python's own scale_offset and cast_value: "
                       f"they need zarr >= 3.2 (this is {zarr.__version__})")
    try:
        import cast_value_rs  # noqa: F401 - the engine of zarr.codecs.CastValue
    except ImportError:
        raise CliError("zarr-python's own cast_value needs cast-value-rs "
                       "(pip install cast-value-rs)") from None
    root = Path(args.dir)
    if root.exists():
        raise CliError(f"{root} already exists; choose a new directory")
    written = _samples.write_eopf_sample(root, seed=args.seed)
    print(f"wrote {root}: an EOPF-like Sentinel-2 L2A product (synthetic, seed {args.seed}), "
          f"written by zarr-python {zarr.__version__}'s own scale_offset and cast_value")
    rows = []
    for band in _samples.BANDS:
        data = written[band.path]
        grid = [-(-s // c) for s, c in zip(band.shape, band.chunks)]
        stored = sum(1 for p in (root / band.path / "c").rglob("*") if p.is_file())
        rows.append([band.path, band.dtype, "x".join(map(str, band.shape)),
                     "x".join(map(str, band.chunks)), f"{stored} of {grid[0] * grid[1]}",
                     f"{np.isnan(data).mean():.0%}"])
    print(_table(["array", "data_type", "shape", "chunks", "chunk files", "NaN"], rows,
                 left=(0, 1)))
    print(f"codecs of each band: scale_offset {{offset {_samples.OFFSET}, scale {_samples.SCALE}}}, "
          f"cast_value {{uint16, nearest-even, clamp, NaN <-> 0}}, bytes, gzip "
          f"{_samples.GZIP_LEVEL}; a chunk that is all no-data is not stored (it reads as NaN).")
    b04 = root / _samples.BANDS[2].path
    print("read it with zcast:")
    print(f"  zcast inspect {b04}")
    print(f"  build/release/zcast_read_chunk {b04 / 'zarr.json'} {b04 / 'c' / '2' / '1'} out.bin")
    return 0


def _is_numeric(a: np.ndarray) -> bool:
    try:
        np.asarray(a, dtype=np.float64)
        return True
    except (TypeError, ValueError):
        return False


# --------------------------------------------------------------------------------------------
# entry point


def _shape(text: str) -> tuple[int, int]:
    m = re.fullmatch(r"(\d+)(?:x(\d+))?", text)
    if not m:
        raise argparse.ArgumentTypeError(f"expected ROWSxCOLS, got {text!r}")
    ny = int(m.group(1))
    nx = int(m.group(2) or m.group(1))
    if ny < 1 or nx < 1:
        raise argparse.ArgumentTypeError("sizes must be positive")
    return ny, nx


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zcast", description="The exact Zarr v3 cast_value codec: demo, casts, inspection "
        "and conversion of Zarr arrays.")
    parser.add_argument("--version", action="version", version=f"zcast {zcast.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    zcast._info.add_parser(sub)  # zcast info: version and SIMD targets

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
    p.add_argument("--repeat", type=int, default=3, help="timing repetitions (best is shown)")
    p.add_argument("--no-reference", action="store_true",
                   help="skip zarr-python's own cast_value codec")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("cast", help="cast a raw binary or .npy file",
                       description="Casts every element of IN (a .npy file, or raw native-endian "
                       "binary with --from) to --to, exactly as cast_value encodes, and writes OUT "
                       "(.npy if the name ends in .npy, raw binary otherwise).")
    p.add_argument("--from", dest="from_type", metavar="S",
                   help="input data type (required for raw input)")
    p.add_argument("--to", dest="to_type", metavar="T", required=True, help="output data type")
    _add_cast_options(p)
    p.add_argument("input", metavar="IN")
    p.add_argument("output", metavar="OUT")
    p.set_defaults(func=cmd_cast)

    p = sub.add_parser("inspect", help="show a Zarr array's codec chain and validate "
                       "scale_offset / cast_value",
                       description="Shows a Zarr v3 array's codec chain with the data type and "
                       "fill value after each array->array codec, reads the leading "
                       "scale_offset / cast_value / numcodecs.fixedscaleoffset codecs as zcast's "
                       "chain does (the part a C reader gets from zcast_chain_create) and says "
                       "where the reader takes over, and validates that metadata (errors name the "
                       "key and value). Exit status 1 if invalid.")
    p.add_argument("path", metavar="PATH", help="array directory or its zarr.json")
    p.set_defaults(func=cmd_inspect)

    p = sub.add_parser("convert", help="rewrite a Zarr array with cast_value (and scale_offset) "
                       "added",
                       description="Copies the Zarr array SRC to a new array DST whose codecs "
                       "gain a cast_value to --data-type, with --scale / --offset a scale_offset "
                       "in front of it ([scale_offset, cast_value], zcast's codecs), block by "
                       "block with a progress bar, then reports the chain, sizes and error "
                       "statistics. The source's own scale_offset / cast_value / "
                       "numcodecs.fixedscaleoffset are replaced, not stacked. On failure DST is "
                       "removed; SRC is only read. With --map and no --decode-map the decode map "
                       "is the inverse of the encode map (so --map NaN=0 also reads 0 back as "
                       "NaN) unless --one-way.")
    p.add_argument("src", metavar="SRC")
    p.add_argument("dst", metavar="DST")
    p.add_argument("--data-type", required=True, metavar="T", help="encoded data type")
    _add_cast_options(p)
    p.add_argument("--decode-map", dest="decode_maps", metavar="IN=OUT", type=_parse_pair,
                   action="append", default=[], help="scalar_map decode entry (repeatable)")
    p.add_argument("--one-way", action="store_true",
                   help="do not derive the decode map from --map")
    p.add_argument("--scale", type=_parse_scalar, metavar="S",
                   help="put scale_offset in front of cast_value: encode (x - O) * S")
    p.add_argument("--offset", type=_parse_scalar, metavar="O",
                   help="the offset O of that scale_offset (S and O: scalars of the array's type)")
    p.set_defaults(func=cmd_convert)

    p = sub.add_parser("sample-eopf", help="write a small EOPF-like Sentinel-2 product with "
                       "zarr-python's own scale_offset and cast_value",
                       description="Writes a deterministic, synthetic EOPF-like Sentinel-2 L2A "
                       "product into the new directory DIR: float64 (10 m) and float32 (20 m) "
                       "reflectance with NaN no-data, stored as scale_offset + cast_value to "
                       "uint16 (NaN <-> 0), bytes and gzip, in several chunks including partial "
                       "ones. The codecs used are zarr-python's own (zarr.codecs.ScaleOffset and "
                       "CastValue), so zcast's readers are checked on data they did not write.")
    p.add_argument("dir", metavar="DIR", help="the product directory to create")
    p.add_argument("--seed", type=int, default=_SAMPLE_SEED,
                   help="data seed (default: %(default)s)")
    p.set_defaults(func=cmd_sample_eopf)

    from zcast import _bench  # zcast bench: the side-by-side benchmark (its own module)
    _bench.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except CastError as err:
        print(f"zcast {args.command}: cast failed: {err}", file=sys.stderr)
    except MetadataError as err:
        print(f"zcast {args.command}: invalid configuration: {err}", file=sys.stderr)
    except CliError as err:
        print(f"zcast {args.command}: {err}", file=sys.stderr)
    except (OSError, ValueError) as err:
        print(f"zcast {args.command}: {err}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
