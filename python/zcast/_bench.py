"""``zcast bench``: zcast side by side with the other cast_value implementations and baselines.

On the same input arrays, in one process, for each conversion:

- ``zcast-1t`` / ``zcast-Nt``: :func:`zcast.cast_array_into` into a preallocated output, with one
  thread and with all threads (``zcast.set_num_threads``);
- ``cv-rs``: cast-value-rs ``cast_array_into`` into a preallocated output (its allocating
  ``cast_array`` is what zarr-python's codec calls, so the ``zarr`` column covers it);
- ``zarr``: zarr-python's own ``CastValue`` codec, ``_encode_sync`` on one chunk holding the whole
  array (what the codec pipelines call per chunk: the async ``_encode_single`` only wraps it);
  it allocates its output;
- ``cast-value``: the NumPy backend of the ``cast-value`` package (``cast_value.cast_array``,
  several numpy passes; allocates);
- ``np-spec``: a spec-faithful numpy (+ ml_dtypes) pipeline into preallocated buffers: NaN/Inf
  checks, ``rint``, ``clip``, the scalar_map, the cast, the overflow check of rule R1;
- ``astype``: ``np.copyto(out, x, casting="unsafe")`` into a preallocated output, i.e. numpy's
  unchecked nearest-even cast loop, and ml_dtypes' for bfloat16 / float8 targets. Not a cast_value
  implementation (no range checks, no scalar_map): a speed baseline.

Inputs are deterministic; outputs and scratch buffers are allocated and first-touched by an untimed
warm-up call, whose result is also compared bit for bit with zcast's. Then every round runs each
implementation once (round-robin, the starting implementation rotating from round to round), and
the median over the rounds is reported. Throughput is bytes read + written per second (10^9).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import os
import platform
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

import zcast
from zcast import _api, _dtypes

NUMPY_TYPES = frozenset(["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                         "float16", "float32", "float64"])


# --------------------------------------------------------------------------------------------
# conversions and their inputs


def _log_uniform(rng: np.random.Generator, n: int, lo: float, hi: float, dtype: Any) -> np.ndarray:
    """Magnitudes 2^U(lo, hi) with random signs: every binade in between, full mantissas."""
    x = np.exp2(rng.uniform(lo, hi, n))
    x[rng.integers(0, 2, n, dtype=np.uint8).astype(bool)] *= -1
    return x.astype(dtype)


def _uniform_spill(rng: np.random.Generator, n: int, lo: float, hi: float, spill: float,
                   dtype: Any) -> np.ndarray:
    """Uniform over [lo, hi] widened by ``spill`` of the width on each side (out of range)."""
    w = hi - lo
    return rng.uniform(lo - spill * w, hi + spill * w, n).astype(dtype)


def _with_nans(x: np.ndarray, rng: np.random.Generator, share: float) -> np.ndarray:
    x[rng.random(x.size) < share] = np.nan
    return x


def _finite_float16(rng: np.random.Generator, n: int) -> np.ndarray:
    """Every finite float16 encoding equally likely (subnormals and zeros included)."""
    bits = rng.integers(0, 0x7C00, n, dtype=np.uint16)
    bits |= rng.integers(0, 2, n, dtype=np.uint16) << np.uint16(15)
    return bits.view(np.float16)


@dataclass(frozen=True)
class Conversion:
    name: str
    src: str
    dst: str
    make_input: Callable[[np.random.Generator, int], np.ndarray]
    input_note: str
    out_of_range: str | None = None
    nan_to: int | None = None  # scalar_map encode [["NaN", nan_to]]
    widening: bool = False  # every source value is exact in the target: no checks needed

    @property
    def scalar_map(self) -> list[tuple[Any, Any]] | None:
        return None if self.nan_to is None else [("NaN", self.nan_to)]

    @property
    def bytes_per_element(self) -> int:
        return _dtypes.numpy_dtype(self.src).itemsize + _dtypes.numpy_dtype(self.dst).itemsize

    @property
    def config_text(self) -> str:
        parts = [f"{self.src}->{self.dst}"]
        if self.out_of_range:
            parts.append(self.out_of_range)
        if self.nan_to is not None:
            parts.append(f"NaN->{self.nan_to}")
        return " ".join(parts)


CONVERSIONS: tuple[Conversion, ...] = (
    Conversion("float64->float32", "float64", "float32",
               lambda r, n: _log_uniform(r, n, -20, 20, np.float64), "+-2^U(-20,20)"),
    Conversion("float32->uint8 clamp", "float32", "uint8",
               lambda r, n: _uniform_spill(r, n, 0, 255, 0.005, np.float32),
               "U(0,255), 1% outside", out_of_range="clamp"),
    Conversion("float32->uint8 clamp NaN->0", "float32", "uint8",
               lambda r, n: _with_nans(_uniform_spill(r, n, 0, 255, 0.005, np.float32), r, 1 / 1024),
               "U(0,255), 1% outside, 1/1024 NaN", out_of_range="clamp", nan_to=0),
    Conversion("float32->int16 clamp", "float32", "int16",
               lambda r, n: _uniform_spill(r, n, -32768, 32767, 0.005, np.float32),
               "U(-32768,32767), 1% outside", out_of_range="clamp"),
    Conversion("float32->float16", "float32", "float16",
               lambda r, n: _log_uniform(r, n, -26, 15.9, np.float32), "+-2^U(-26,15.9)"),
    Conversion("float32->bfloat16", "float32", "bfloat16",
               lambda r, n: _log_uniform(r, n, -40, 40, np.float32), "+-2^U(-40,40)"),
    Conversion("float32->float8_e4m3", "float32", "float8_e4m3",
               lambda r, n: _log_uniform(r, n, -11, 7.9, np.float32), "+-2^U(-11,7.9)"),
    Conversion("float32->float8_e5m2", "float32", "float8_e5m2",
               lambda r, n: _log_uniform(r, n, -18, 15.8, np.float32), "+-2^U(-18,15.8)"),
    Conversion("uint8->float32", "uint8", "float32",
               lambda r, n: r.integers(0, 256, n, dtype=np.uint8), "U{0..255}", widening=True),
    Conversion("float16->float32", "float16", "float32", _finite_float16,
               "every finite float16", widening=True),
    Conversion("float64->int64 clamp", "float64", "int64",
               lambda r, n: _log_uniform(r, n, -2, 62, np.float64), "+-2^U(-2,62)",
               out_of_range="clamp"),
)


# --------------------------------------------------------------------------------------------
# implementations: each prepares, outside the timed region, a callable that returns the result


@dataclass(frozen=True)
class Impl:
    key: str
    #: claims the cast_value semantics: its result must equal zcast's on every conversion it runs
    exact: bool
    #: (conversion, input) -> the timed callable, or None when the conversion is not supported
    prepare: Callable[[Conversion, np.ndarray], Callable[[], np.ndarray] | None]
    note: str = ""


def _zcast_impl(threads: int) -> Callable[[Conversion, np.ndarray], Callable[[], np.ndarray]]:
    def prepare(conv: Conversion, x: np.ndarray) -> Callable[[], np.ndarray]:
        out = np.empty(x.shape, dtype=_dtypes.numpy_dtype(conv.dst))
        smap = conv.scalar_map

        def run() -> np.ndarray:
            zcast.set_num_threads(threads)
            return zcast.cast_array_into(x, out, out_of_range=conv.out_of_range, scalar_map=smap)
        return run
    return prepare


def _cv_rs_prepare(conv: Conversion, x: np.ndarray) -> Callable[[], np.ndarray] | None:
    try:
        import cast_value_rs
    except ImportError:
        return None
    if conv.src not in NUMPY_TYPES or conv.dst not in NUMPY_TYPES:
        return None
    out = np.empty(x.shape, dtype=np.dtype(conv.dst))
    entries = None if conv.nan_to is None else [(float("nan"), conv.nan_to)]
    into = getattr(cast_value_rs, "cast_array_into", None)
    if into is None:  # older versions: only the allocating call
        return lambda: cast_value_rs.cast_array(
            x, target_dtype=conv.dst, rounding_mode="nearest-even",
            out_of_range_mode=conv.out_of_range, scalar_map_entries=entries)

    def run() -> np.ndarray:
        into(x, out, rounding_mode="nearest-even", out_of_range_mode=conv.out_of_range,
             scalar_map_entries=entries)
        return out
    return run


def _zarr_prepare(conv: Conversion, x: np.ndarray) -> Callable[[], np.ndarray] | None:
    try:
        import cast_value_rs  # noqa: F401 - the backend zarr's codec needs
        import zarr
        from zarr.core.array_spec import ArrayConfig, ArraySpec
        from zarr.core.buffer import default_buffer_prototype
        from zarr.core.dtype import get_data_type_from_json
    except ImportError:
        return None
    cls = getattr(zarr.codecs, "CastValue", None)
    if cls is None or conv.src not in NUMPY_TYPES or conv.dst not in NUMPY_TYPES:
        return None
    smap = None if conv.nan_to is None else {"encode": [["NaN", conv.nan_to]]}
    codec = cls(data_type=conv.dst, out_of_range=conv.out_of_range, scalar_map=smap)
    zdtype = get_data_type_from_json(conv.src, zarr_format=3)
    codec.validate(shape=x.shape, dtype=zdtype, chunk_grid=None)
    prototype = default_buffer_prototype()
    spec = ArraySpec(shape=x.shape, dtype=zdtype, fill_value=zdtype.default_scalar(),
                     config=ArrayConfig.from_dict({}), prototype=prototype)
    chunk = prototype.nd_buffer.from_ndarray_like(x)
    return lambda: codec._encode_sync(chunk, spec).as_ndarray_like()  # noqa: SLF001


def _cast_value_prepare(conv: Conversion, x: np.ndarray) -> Callable[[], np.ndarray] | None:
    try:
        from cast_value.impl._numpy import cast_array as cv_cast
    except ImportError:
        try:
            from cast_value import cast_array as cv_cast
        except ImportError:
            return None
    if conv.src not in NUMPY_TYPES or conv.dst not in NUMPY_TYPES:
        return None
    entries = None if conv.nan_to is None else [(float("nan"), conv.nan_to)]
    dt = np.dtype(conv.dst)
    return lambda: cv_cast(x, target_dtype=dt, rounding_mode="nearest-even",
                           out_of_range_mode=conv.out_of_range, scalar_map_entries=entries)


class SpecError(ValueError):
    """The numpy pipeline found an element without a result (cast_value would raise)."""


def _np_spec_prepare(conv: Conversion, x: np.ndarray) -> Callable[[], np.ndarray] | None:
    """A spec-faithful numpy pipeline for the benchmark's configurations (nearest-even)."""
    dst = _dtypes.numpy_dtype(conv.dst)
    out = np.empty(x.shape, dtype=dst)
    if conv.widening:  # exact: the plain cast is the whole procedure
        def widen() -> np.ndarray:
            np.copyto(out, x, casting="unsafe")
            return out
        return widen
    src_int = _dtypes.is_integer(conv.src)
    dst_int = _dtypes.is_integer(conv.dst)
    if src_int:
        return None  # no integer-source configuration needs a pipeline here
    if not dst_int:
        if conv.nan_to is not None or conv.out_of_range is not None:
            return None
        bad = np.empty(x.shape, dtype=bool)

        def float_to_float() -> np.ndarray:
            with np.errstate(over="ignore", invalid="ignore"):
                np.copyto(out, x, casting="unsafe")  # nearest-even
            # R1: a finite value that rounds beyond the largest finite value is out of range.
            np.isinf(out, out=bad)
            if bad.any() and (bad & np.isfinite(x)).any():
                raise SpecError(f"{conv.src} value out of the range of {conv.dst}")
            return out
        return float_to_float

    info = np.iinfo(dst)
    lo, hi = int(info.min), int(info.max)
    if conv.out_of_range != "clamp":
        return None
    ft = x.dtype.type
    top = ft(hi)
    over = None
    if int(top) > hi:  # hi is not a float of the source type (int64 from float64: 2^63)
        over = np.empty(x.shape, dtype=bool)
        top_clip = np.nextafter(top, ft(0))  # the largest source float <= hi
    else:
        top_clip = top
    tmp = np.empty_like(x)
    mask = np.empty(x.shape, dtype=bool)
    nans = np.empty(x.shape, dtype=bool) if conv.nan_to is not None else None

    def float_to_int() -> np.ndarray:
        if nans is None:
            np.isfinite(x, out=mask)
            if not mask.all():
                raise SpecError("NaN or infinity without a scalar_map entry")
        else:
            np.isinf(x, out=mask)
            if mask.any():  # clamp does not apply to infinities
                raise SpecError("infinity without a scalar_map entry")
            np.isnan(x, out=nans)
        np.rint(x, out=tmp)  # nearest-even, exact in the source type
        if over is not None:
            np.greater_equal(tmp, top, out=over)
        np.clip(tmp, lo, top_clip, out=tmp)
        if nans is not None:
            np.copyto(tmp, conv.nan_to, where=nans)
        np.copyto(out, tmp, casting="unsafe")
        if over is not None:
            np.copyto(out, hi, where=over)
        return out
    return float_to_int


def _astype_prepare(conv: Conversion, x: np.ndarray) -> Callable[[], np.ndarray]:
    out = np.empty(x.shape, dtype=_dtypes.numpy_dtype(conv.dst))

    def run() -> np.ndarray:
        with np.errstate(all="ignore"):
            np.copyto(out, x, casting="unsafe")
        return out
    return run


def implementations(threads: int) -> list[Impl]:
    return [
        Impl("zcast-1t", True, _zcast_impl(1), "zcast.cast_array_into, 1 thread"),
        Impl(f"zcast-{threads}t", True, _zcast_impl(threads),
             f"zcast.cast_array_into, {threads} threads"),
        Impl("cv-rs", True, _cv_rs_prepare, "cast-value-rs cast_array_into (preallocated)"),
        Impl("zarr", True, _zarr_prepare,
             "zarr-python CastValue._encode_sync on one chunk (cast-value-rs cast_array; allocates)"),
        Impl("cast-value", True, _cast_value_prepare,
             "cast-value's NumPy backend cast_array (allocates)"),
        Impl("np-spec", True, _np_spec_prepare,
             "spec-faithful numpy/ml_dtypes pipeline into preallocated buffers"),
        Impl("astype", False, _astype_prepare,
             "np.copyto(out, x, casting='unsafe'): numpy's / ml_dtypes' unchecked cast"),
    ]


# --------------------------------------------------------------------------------------------
# running


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two results are the same encodings (NaN payloads and -0.0 included)."""
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    if a.shape != b.shape or a.dtype.itemsize != b.dtype.itemsize:
        return False
    if _dtypes.zarr_name(a.dtype) != _dtypes.zarr_name(b.dtype):
        return False
    return bool(np.array_equal(a.view(np.uint8), b.view(np.uint8)))


def _first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0][:100] if text else ''}"


def _timed(fn: Callable[[], Any], calls: int = 1) -> float:
    """Seconds per call of ``calls`` calls in a row (one timing: the clock's own cost, about
    0.1 us, stays small beside a batch of chunk-sized calls)."""
    if calls == 1:
        t0 = time.perf_counter()
        result = fn()
        t1 = time.perf_counter()
        del result  # freeing an allocated result is not part of the measured call
        return t1 - t0
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()  # an allocating implementation frees each result at once, as a chunk loop does
    return (time.perf_counter() - t0) / calls


def calls_per_timing(nbytes: int) -> int:
    """Calls per timing: one at the streaming size, else as many as move about 4 MiB."""
    return max(1, (4 << 20) // max(1, nbytes))


def _median_copy_gbps(n_bytes: int, rounds: int) -> float:
    """A plain memcpy (np.copyto of n_bytes) in GB/s read + written: the machine's pace now."""
    a = np.ones(n_bytes, dtype=np.uint8)
    b = np.ones(n_bytes, dtype=np.uint8)  # touched: no page faults in the timed copies
    np.copyto(b, a)
    times = [_timed(lambda: np.copyto(b, a)) for _ in range(rounds)]
    return 2 * n_bytes / statistics.median(times) / 1e9


def run_bench(size: int, rounds: int, *, conversions: list[Conversion] | None = None,
              impls: list[Impl] | None = None, threads: int | None = None,
              seed: int = 20261130, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Runs the benchmark; returns the results as a JSON-serialisable dict."""
    if rounds < 1 or size < 1:
        raise ValueError("size and rounds must be >= 1")
    saved_threads = _api._threads  # noqa: SLF001 - restored afterwards
    threads = threads or saved_threads
    conversions = list(CONVERSIONS if conversions is None else conversions)
    impls = implementations(threads) if impls is None else impls
    results: dict[str, Any] = {
        "meta": machine_info(),
        "size": size, "rounds": rounds, "threads": threads,
        "implementations": {i.key: {"exact": i.exact, "note": i.note} for i in impls},
        "conversions": [],
    }
    results["meta"]["memcpy_GBps_before"] = round(_median_copy_gbps(size * 4, max(3, rounds // 2)), 2)
    gc_was = gc.isenabled()
    try:
        for conv in conversions:
            if progress:
                progress(conv.name)
            rng = np.random.default_rng([seed, zlib_crc(conv.name)])
            x = conv.make_input(rng, size)
            rows: dict[str, Any] = {}
            runners: list[tuple[str, Callable[[], np.ndarray]]] = []
            reference = None
            for impl in impls:
                row: dict[str, Any] = {"supported": False, "error": None, "equal": None}
                rows[impl.key] = row
                try:
                    fn = impl.prepare(conv, x)
                except Exception as err:  # noqa: BLE001 - reported in the table
                    row["error"] = _first_line(err)
                    continue
                if fn is None:
                    continue
                row["supported"] = True
                try:
                    result = fn()  # warm-up: first touch of outputs and scratch, and the result
                except Exception as err:  # noqa: BLE001
                    row["error"] = _first_line(err)
                    continue
                if reference is None:
                    reference = np.array(result, copy=True)  # zcast-1t comes first
                    row["equal"] = True
                else:
                    row["equal"] = same_bits(reference, result)
                del result
                runners.append((impl.key, fn))
            times: dict[str, list[float]] = {k: [] for k, _ in runners}
            gc.collect()
            gc.disable()
            nbytes = size * conv.bytes_per_element
            calls = calls_per_timing(nbytes)
            for r in range(rounds):
                start = r % len(runners) if runners else 0
                for key, fn in runners[start:] + runners[:start]:
                    times[key].append(_timed(fn, calls))
            if gc_was:
                gc.enable()
            for key, ts in times.items():
                med = statistics.median(ts)
                rows[key].update({"median_s": med, "min_s": min(ts), "GBps": nbytes / med / 1e9,
                                  "times_s": ts})
            base = rows[impls[0].key].get("median_s")
            for key, row in rows.items():
                if base and row.get("median_s"):
                    row["zcast_1t_speedup"] = row["median_s"] / base
            results["conversions"].append({
                "name": conv.name, "src": conv.src, "dst": conv.dst,
                "out_of_range": conv.out_of_range,
                "scalar_map": None if conv.nan_to is None else [["NaN", conv.nan_to]],
                "input": conv.input_note, "bytes_per_element": conv.bytes_per_element,
                "calls_per_timing": calls, "results": rows,
            })
            del x, runners, reference
            gc.collect()
    finally:
        if gc_was:
            gc.enable()
        zcast.set_num_threads(saved_threads)
    results["meta"]["memcpy_GBps_after"] = round(_median_copy_gbps(size * 4, max(3, rounds // 2)), 2)
    return results


def zlib_crc(text: str) -> int:
    import zlib
    return zlib.crc32(text.encode())


def machine_info() -> dict[str, Any]:
    info: dict[str, Any] = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "cpu": platform.processor() or platform.machine(),
    }
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
        if m:
            info["cpu"] = m.group(1).strip()
    except OSError:
        pass
    try:
        info["loadavg"] = [round(v, 2) for v in os.getloadavg()]
    except OSError:
        pass
    from importlib.metadata import PackageNotFoundError, version
    versions = {}
    for pkg in ("zcast", "numpy", "ml_dtypes", "zarr", "cast-value-rs", "cast-value"):
        try:
            versions[pkg] = version(pkg)
        except PackageNotFoundError:
            versions[pkg] = None
    info["versions"] = versions
    return info


# --------------------------------------------------------------------------------------------
# output


def _table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, rows)])


def format_results(res: dict[str, Any]) -> str:
    keys = list(res["implementations"])
    meta = res["meta"]
    v = meta["versions"]
    lines = [
        f"zcast bench: {res['size']} elements per array, median of {res['rounds']} interleaved "
        f"rounds" + (", each a batch of calls moving about 4 MiB" if any(
            c.get("calls_per_timing", 1) > 1 for c in res["conversions"]) else "") +
        f"; {meta['cpu']}, {meta['cpus']} CPUs, load {meta.get('loadavg')}, {meta['date']}",
        "versions: " + ", ".join(f"{k} {v[k]}" for k in v if v[k]),
        f"memcpy reference (np.copyto, {4 * res['size'] / 2**20:g} MiB): "
        f"{meta['memcpy_GBps_before']} GB/s before, {meta['memcpy_GBps_after']} GB/s after",
        "",
        "GB/s (bytes read + written per second, 10^9), higher is better:",
    ]
    rows = []
    marks = False
    for c in res["conversions"]:
        row = [c["name"], f"{c['bytes_per_element']}"]
        for k in keys:
            r = c["results"][k]
            if r["error"]:
                row.append("error")
            elif not r["supported"]:
                row.append("-")
            else:
                cell = f"{r['GBps']:.2f}"
                if r["equal"] is False:
                    cell += "!"
                    marks = True
                row.append(cell)
        rows.append(row)
    lines.append(_table(["conversion", "B/elem", *keys], rows))
    lines.append("")
    lines.append(f"zcast-1t speed-up over each (median time of the other / median time of "
                 f"zcast-1t); {keys[1]}/1t: zcast's own speed-up from {res['threads']} threads:")
    rows = []
    for c in res["conversions"]:
        row = [c["name"]]
        for i, k in enumerate(keys[1:]):
            r = c["results"][k]
            s = r.get("zcast_1t_speedup")
            if s and i == 0:
                s = 1 / s  # zcast-Nt: time of 1 thread / time of N threads
            row.append(f"{s:.2f}x" if s else ("error" if r["error"] else "-"))
        rows.append(row)
    lines.append(_table(["conversion", f"{keys[1]}/1t", *keys[2:]], rows))
    lines.append("")
    notes = [f"{k}: {res['implementations'][k]['note']}" for k in keys]
    lines += notes
    lines.append("'-': not supported by that implementation. 'error': it raised (see --json).")
    if marks:
        lines.append("'!': the result differs from zcast's (expected only for astype, which "
                     "neither clamps nor maps).")
    errors = [(c["name"], k, c["results"][k]["error"]) for c in res["conversions"] for k in keys
              if c["results"][k]["error"]]
    for name, k, e in errors:
        lines.append(f"error: {name}, {k}: {e}")
    lines.append("inputs: " + "; ".join(f"{c['name']}: {c['input']}" for c in res["conversions"]))
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# command line


def parse_size(text: str) -> int:
    m = re.fullmatch(r"\s*(\d+)\s*([kKmMgG]i?)?\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"expected a number of elements such as 16Mi, got {text!r}")
    unit = (m.group(2) or "").lower()
    mult = {"": 1, "k": 1000, "ki": 1 << 10, "m": 10**6, "mi": 1 << 20, "g": 10**9, "gi": 1 << 30}
    n = int(m.group(1)) * mult[unit]
    if n < 1:
        raise argparse.ArgumentTypeError("size must be >= 1")
    return n


# The sizes of real chunks: 16 Ki, a Sentinel-2 10 m chunk (244 x 244) and 1 Mi elements.
CHUNK_SIZES = (16 << 10, 244 * 244, 1 << 20)


def parse_sizes(text: str) -> list[int]:
    return [parse_size(part) for part in text.split(",")]


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "bench", help="zcast side by side with the other cast_value implementations",
        description="Runs zcast (1 thread and all threads), cast-value-rs, zarr-python's "
        "CastValue codec, cast-value's NumPy backend, a spec-faithful numpy pipeline and numpy / "
        "ml_dtypes astype on the same arrays in one process, checks that every result equals "
        "zcast's, and prints the median throughput of interleaved rounds (GB/s read + written) "
        "and zcast's speed-up over each. Exit status 1 if zcast fails or an implementation "
        "that claims cast_value semantics disagrees with it.")
    p.add_argument("--size", type=parse_sizes, default=[16 << 20], metavar="N[,N...]",
                   help="elements per array, e.g. 16Mi, 1M, 65536, or a list (16Ki,59536,1Mi): "
                   "one table per size (default: 16Mi). Sizes under 1 Mi time batches of calls "
                   "(about 4 MiB each) and show each call's own cost, as Zarr calls a codec once "
                   "per chunk")
    p.add_argument("--chunks", action="store_true",
                   help="the streaming size and the sizes of real chunks: 16Mi,16Ki,59536,1Mi")
    p.add_argument("--rounds", type=int, default=11, help="interleaved rounds (default: 11)")
    p.add_argument("--threads", type=int, default=None,
                   help="threads of the multi-threaded zcast column (default: all CPUs)")
    p.add_argument("--only", metavar="TEXT", action="append", default=[],
                   help="run only conversions whose name contains TEXT (repeatable)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument("--quick", action="store_true",
                   help="a tiny run (64 Ki elements, 3 rounds) to check that everything works")
    p.set_defaults(func=cmd_bench)
    return p


def cmd_bench(args: argparse.Namespace) -> int:
    sizes, rounds = list(args.size), args.rounds
    if args.chunks:
        sizes = [16 << 20, *CHUNK_SIZES]
    if args.quick:
        sizes, rounds = [1 << 16], 3
    if rounds < 1:
        raise ValueError("--rounds must be >= 1")
    if args.threads is not None and args.threads < 1:
        raise ValueError("--threads must be >= 1")
    convs = [c for c in CONVERSIONS if not args.only or any(t in c.name for t in args.only)]
    if not convs:
        raise ValueError(f"no conversion matches {args.only}")

    def progress(name: str) -> None:
        if sys.stderr.isatty():
            sys.stderr.write(f"\r{name:<40}")
            sys.stderr.flush()
    wrong: list[tuple[str, str]] = []
    zcast_failed: list[str] = []
    results = []
    for size in sizes:
        res = run_bench(size, rounds, conversions=convs, threads=args.threads, progress=progress)
        if sys.stderr.isatty():
            sys.stderr.write("\r" + " " * 40 + "\r")
        results.append(res)
        if not args.json:
            print(format_results(res))
            if size != sizes[-1]:
                print()
        # A wrong result of an implementation that claims cast_value semantics is a failure.
        wrong += [(f"{c['name']} (n={size})", k) for c in res["conversions"]
                  for k, r in c["results"].items()
                  if res["implementations"][k]["exact"] and r["equal"] is False]
        zcast_failed += [f"{c['name']} (n={size})" for c in res["conversions"]
                         if any(r["error"] for k, r in c["results"].items()
                                if k.startswith("zcast-"))]
    if args.json:
        print(json.dumps(results[0] if len(results) == 1 else results, indent=1))
    for name, k in wrong:
        print(f"zcast bench: {k} disagrees with zcast on {name}", file=sys.stderr)
    for name in zcast_failed:
        print(f"zcast bench: zcast failed on {name}", file=sys.stderr)
    return 1 if zcast_failed or wrong else 0
