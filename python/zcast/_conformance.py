"""zcast conformance: the shared cast_value / scale_offset test vectors through each installed
implementation (conformance/README.md for the format, docs/conformance.md for the measured table).

    zcast conformance                       zcast alone
    zcast conformance --impl all            zcast, zarr-python, cast-value, cast-value-rs
    zcast conformance --impl zarr-python --vectors conformance/vectors --json

Implementations:

- ``zcast``: :class:`zcast.Chain` built from the case's codecs, data type and fill value (the
  metadata reaches the core as the exact JSON text of the vector).
- ``zarr-python``: zarr's own ``CastValue`` / ``ScaleOffset`` codecs (``from_dict``,
  ``validate``, ``resolve_metadata``, then ``_encode_sync`` / ``_decode_sync``), i.e. what a zarr
  array does per chunk; its casts run in cast-value-rs.
- ``cast-value``: cast-value's NumPy backend ``cast_array`` (a single cast_value codec only).
- ``cast-value-rs``: ``cast_value_rs.cast_array`` (a single cast_value codec only).

A case an implementation cannot express is skipped with the reason (a data type it lacks, a
scale_offset, a codec metadata layer it does not have). The peers never name the failing element,
so for them a cast failure passes when the case expects one at any index; zcast must also give
the index.

The vectors are found in --vectors DIR, else in the installed package (``zcast/conformance``,
package data, the files of the checkout's ``conformance/vectors/``), else in the source checkout's
``conformance/vectors/``.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
import sys
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable

import numpy as np

from zcast import _dtypes

IMPLEMENTATIONS = ("zcast", "zarr-python", "cast-value", "cast-value-rs")
CATEGORIES = ("rounding", "range", "nan-inf", "signed-zero", "scalar-map", "fill-value", "metadata")
NUMPY_TYPES = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
               "float32", "float64"}


class Skip(Exception):
    """The implementation cannot express this case; the message says why."""


@dataclass
class Case:
    line: dict[str, Any]  # numbers kept exact (Decimal for non-integers)
    raw_codecs: str       # the codecs as JSON text, numbers as written
    file: str

    @property
    def id(self) -> str:
        return self.line["id"]

    @property
    def category(self) -> str:
        return self.line["category"]

    def want(self) -> str:
        err = self.line.get("error")
        if err is None:
            return "ok " + self.line["expected"]
        if err["class"] == "invalid-metadata":
            return "invalid-metadata"
        return f"cast-failure {err['index']}"


def _exact_json(value: Any) -> str:
    """JSON text of a value read with parse_float=Decimal: numbers come back as written
    (1e-50 stays 1E-50, never a rounded double)."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{_exact_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_exact_json(v) for v in value) + "]"
    return json.dumps(value)


def _plain(value: Any) -> Any:
    """The same value with Decimals as Python floats (what a JSON reader gives zarr-python)."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def default_vectors() -> Path:
    here = Path(__file__).resolve().parent
    for cand in (here / "conformance", here.parents[1] / "conformance" / "vectors"):
        if (cand / "named.jsonl").is_file():
            return cand
    raise FileNotFoundError("no conformance vectors: not in the installed package "
                            f"({here / 'conformance'}) nor in a checkout's conformance/vectors; "
                            "pass --vectors DIR")


def load(paths: list[Path]) -> list[Case]:
    cases = []
    for root in paths:
        files = [root] if root.is_file() else sorted(root.rglob("*.jsonl"))
        if not files:
            raise FileNotFoundError(f"no .jsonl files in {root}")
        for f in files:
            with open(f, encoding="utf-8") as fh:
                for text in fh:
                    if not text.strip():
                        continue
                    line = json.loads(text, parse_float=Decimal)
                    cases.append(Case(line, _exact_json(line["codecs"]), str(f)))
    return cases


def _to_array(hex_text: str, name: str) -> np.ndarray:
    dt = np.dtype(_dtypes.numpy_dtype(name))
    raw = bytes.fromhex(hex_text)
    return np.frombuffer(raw, dtype=dt.newbyteorder("<")).astype(dt)


def _to_hex(arr: np.ndarray) -> str:
    arr = np.ascontiguousarray(arr)
    return arr.astype(arr.dtype.newbyteorder("<")).tobytes().hex()


# ---- implementations: each returns "ok <hex>", "cast-failure <index or ?>" or "invalid-metadata"

@functools.lru_cache(maxsize=64)
def _zcast_chain(codecs: str, data_type: str, fill: str | None) -> Any:
    """The bound chain, or the MetadataError (binding builds the kernels' tables: once per
    configuration, not per case)."""
    from zcast import _zcast
    from zcast._chain import Chain
    from zcast._errors import MetadataError
    try:
        return Chain(_zcast.Chain.from_codecs(codecs, data_type, fill))
    except MetadataError as err:
        return err


def _run_zcast(case: Case) -> str:
    from zcast._errors import CastError, MetadataError
    line = case.line
    fill = line["fill_value"]
    chain = _zcast_chain(case.raw_codecs, line["data_type"],
                         None if fill is None else _exact_json(fill))
    if isinstance(chain, MetadataError):
        return "invalid-metadata"
    decode = line["direction"] == "decode"
    src = chain.encoded_data_type if decode else chain.data_type
    x = _to_array(line["input"], src)
    try:
        y = chain.decode(x) if decode else chain.encode(x)
    except CastError as err:
        return f"cast-failure {err.index[0] if err.index else '?'}"
    got = "ok " + _to_hex(y)
    want_fill = line.get("encoded_fill_value")
    if want_fill is not None and got == case.want():
        have = chain.encoded_fill_value_json
        if json.dumps(_plain(want_fill)) != json.dumps(have):
            got += f" (encoded fill {have!r})"
    return got


def _zarr_types_check(case: Case, permitted: set[str], who: str) -> None:
    names = [case.line["data_type"]]
    for codec in case.line["codecs"]:
        config = codec.get("configuration") if isinstance(codec, dict) else None
        dt = config.get("data_type") if isinstance(config, dict) else None
        names.append(dt.get("name") if isinstance(dt, dict) else dt)
    for n in names:
        if isinstance(n, str) and n in _dtypes.DATA_TYPES and n not in permitted:
            raise Skip(f"{who} has no {n}")


def _run_zarr(case: Case) -> str:
    import zarr
    from zarr.core.array_spec import ArrayConfig, ArraySpec
    from zarr.core.buffer import default_buffer_prototype
    from zarr.core.dtype import get_data_type_from_json
    line = case.line
    # zarr-python 3.4.2's cast_value names all 26 types, but zarr has dtypes for the 11 numpy
    # ones only (the others reach it from zcast's own zarr.data_type entry points, which must not
    # be measured here) and its backend, cast-value-rs 0.5.1, casts those 11 only.
    _zarr_types_check(case, NUMPY_TYPES, f"zarr-python {zarr.__version__}")
    classes = {"cast_value": zarr.codecs.CastValue, "scale_offset": zarr.codecs.ScaleOffset}
    decode = line["direction"] == "decode"
    try:
        zdtype = get_data_type_from_json(line["data_type"], zarr_format=3)
        fill = line["fill_value"]
        fill = zdtype.default_scalar() if fill is None else zdtype.from_json_scalar(
            _plain(fill), zarr_format=3)
        proto = default_buffer_prototype()
        codecs, specs = [], []
        n = len(bytes.fromhex(line["input"]))  # an upper bound is enough for the shape check
        spec = ArraySpec(shape=(n,), dtype=zdtype, fill_value=fill,
                         config=ArrayConfig.from_dict({}), prototype=proto)
        for meta in _plain(line["codecs"]):
            name = meta.get("name") if isinstance(meta, dict) else meta
            codec = classes[name].from_dict(meta)
            codec.validate(shape=spec.shape, dtype=spec.dtype, chunk_grid=None)
            specs.append(spec)
            if line["fill_value"] is None:
                # No fill value in the case: zarr needs one, but it must not decide the case
                # (e.g. the default 0 through scale_offset{offset: 1} into uint8 underflows).
                spec = dataclasses.replace(spec, dtype=getattr(codec, "dtype", spec.dtype))
            else:
                spec = codec.resolve_metadata(spec)
            codecs.append(codec)
    except Exception:  # noqa: BLE001 - any rejection of the metadata
        return "invalid-metadata"
    src = (spec if decode else specs[0]).dtype.to_json(zarr_format=3)
    x = _to_array(line["input"], src)
    buf = proto.nd_buffer.from_ndarray_like(x)
    try:
        if decode:
            for codec, s in reversed(list(zip(codecs, specs))):
                buf = codec._decode_sync(buf, s)  # noqa: SLF001 - the per-chunk path
        else:
            for codec, s in zip(codecs, specs):
                buf = codec._encode_sync(buf, s)  # noqa: SLF001
    except Exception:  # noqa: BLE001 - zarr-python reports failures as ValueError and others
        return "cast-failure ?"
    return "ok " + _to_hex(np.asarray(buf.as_ndarray_like()))


def _entry(value: Any, name: str) -> Any:
    """A scalar_map JSON scalar as the Python number the cast libraries take."""
    if isinstance(value, str):
        special = {"NaN": math.nan, "Infinity": math.inf, "+Infinity": math.inf,
                   "-Infinity": -math.inf}
        if value not in special:
            raise Skip(f"no way to pass the scalar {value!r} (raw bits) as a number")
        return special[value]
    if _dtypes.is_integer(name):
        return int(value)
    return float(value)


def _function_runner(who: str, call: Callable[..., np.ndarray]) -> Callable[[Case], str]:
    def run(case: Case) -> str:
        line = case.line
        if case.category in ("metadata", "fill-value"):
            raise Skip(f"{who} is a cast function without a codec metadata layer")
        codecs = line["codecs"]
        if len(codecs) != 1 or codecs[0].get("name") != "cast_value":
            raise Skip(f"{who} implements cast_value only")
        config = codecs[0]["configuration"]
        decode = line["direction"] == "decode"
        src, dst = line["data_type"], config["data_type"]
        if decode:
            src, dst = dst, src
        for n in (src, dst):
            if n not in NUMPY_TYPES:
                raise Skip(f"{who} has no {n}")
        pairs = (config.get("scalar_map") or {}).get("decode" if decode else "encode")
        entries = None if pairs is None else [(_entry(k, src), _entry(v, dst)) for k, v in pairs]
        x = _to_array(line["input"], src)
        try:
            y = call(x, dst, config.get("rounding", "nearest-even"), config.get("out_of_range"),
                     entries)
        except Exception:  # noqa: BLE001 - ValueError, OverflowError, TypeError: all failures
            return "cast-failure ?"
        return "ok " + _to_hex(np.asarray(y).astype(_dtypes.numpy_dtype(dst), copy=False))
    return run


def _impl(name: str) -> tuple[Callable[[Case], str] | None, str]:
    """(runner, version) of an implementation, or (None, why it is unavailable)."""
    from importlib import metadata
    try:
        if name == "zcast":
            import zcast
            return _run_zcast, zcast.__version__
        if name == "zarr-python":
            import zarr
            import zarr.codecs.cast_value  # noqa: F401
            return _run_zarr, f"{zarr.__version__} (cast-value-rs {metadata.version('cast-value-rs')})"
        if name == "cast-value":
            from cast_value.impl._numpy import cast_array as cv
            return _function_runner("cast-value", lambda x, dst, r, o, m: cv(
                x, target_dtype=np.dtype(dst), rounding_mode=r, out_of_range_mode=o,
                scalar_map_entries=m)), metadata.version("cast-value")
        if name == "cast-value-rs":
            import cast_value_rs
            return _function_runner("cast-value-rs", lambda x, dst, r, o, m: cast_value_rs.cast_array(
                x, target_dtype=dst, rounding_mode=r, out_of_range_mode=o,
                scalar_map_entries=m)), metadata.version("cast-value-rs")
    except ImportError as err:
        return None, f"not installed ({err})"
    raise ValueError(f"unknown implementation {name!r}")


@dataclass
class Tally:
    run: int = 0
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    first_failure: dict[str, str] | None = None


@dataclass
class Report:
    impl: str
    version: str
    available: bool
    by_category: dict[str, Tally] = field(default_factory=dict)
    skip_reasons: dict[str, int] = field(default_factory=dict)
    failures: list[dict[str, str]] = field(default_factory=list)

    def total(self, what: str) -> int:
        return sum(getattr(t, what) for t in self.by_category.values())


def output_type(line: dict[str, Any]) -> str:
    """The data type of a case's output elements, from its metadata alone."""
    if line["direction"] == "decode":
        return line["data_type"]
    name = line["data_type"]
    for codec in line["codecs"]:
        if isinstance(codec, dict) and codec.get("name") == "cast_value":
            dt = codec["configuration"]["data_type"]
            name = dt["name"] if isinstance(dt, dict) else dt
    return name


_FNUZ = ("float8_e4m3fnuz", "float8_e4m3b11fnuz", "float8_e5m2fnuz")


def _ieee_fields(name: str) -> tuple[int, int] | None:
    """(mantissa bits, exponent bits) of the IEEE-like float types (the ones with Inf)."""
    if name not in ("float8_e3m4", "float8_e4m3", "float8_e5m2", "bfloat16", "float16",
                    "float32", "float64"):
        return None
    import ml_dtypes
    info = ml_dtypes.finfo(_dtypes.numpy_dtype(name))
    return int(info.nmant), int(info.nexp)


def _nan_test(name: str) -> Callable[[int], bool]:
    """Whether an encoding of the type is a NaN (semantics.md's type table)."""
    if name in _FNUZ:
        return lambda b: b == 0x80
    if name == "float8_e8m0fnu":
        return lambda b: b == 0xFF
    fields = _ieee_fields(name)
    if fields is None:
        return lambda b: False
    m, e = fields
    return lambda b: (b >> m) & ((1 << e) - 1) == (1 << e) - 1 and b & ((1 << m) - 1) != 0


def _same_output(case: Case, want_hex: str, got_hex: str) -> bool:
    """Equal bytes, except that an expected NaN matches any NaN: the specification requires NaN
    to be propagated but neither its payload nor its sign ("Payload preservation is not
    required"); zcast's canonical quiet NaN with the sign kept (R3) and its unchanged NaN through
    scale_offset (R23) are one valid answer. In scalar-map cases a NaN must match exactly: a
    mapped value is emitted as written (R10)."""
    if want_hex == got_hex:
        return True
    if len(want_hex) != len(got_hex):
        return False
    name = output_type(case.line)
    size = 2 * _dtypes.numpy_dtype(name).itemsize
    is_nan = _nan_test(name)
    for i in range(0, len(want_hex), size):
        w = int.from_bytes(bytes.fromhex(want_hex[i:i + size]), "little")
        g = int.from_bytes(bytes.fromhex(got_hex[i:i + size]), "little")
        if w != g and not (case.category != "scalar-map" and is_nan(w) and is_nan(g)):
            return False
    return True


def _matches(case: Case, want: str, got: str, strict: bool) -> bool:
    """strict (zcast): the exact bytes and the failing index. Otherwise a cast failure at an
    unreported index ("?") passes, and NaN payloads and signs are free (_same_output)."""
    if want == got:
        return True
    if strict:
        return False
    if want.startswith("cast-failure ") and got == "cast-failure ?":
        return True
    return (want.startswith("ok ") and got.startswith("ok ") and
            _same_output(case, want[3:], got[3:]))


def run(impl: str, cases: list[Case]) -> Report:
    runner, version = _impl(impl)
    report = Report(impl, version, runner is not None)
    for cat in CATEGORIES:
        report.by_category[cat] = Tally()
    if runner is None:
        return report
    for case in cases:
        t = report.by_category.setdefault(case.category, Tally())
        try:
            got = runner(case)
        except Skip as why:
            t.skipped += 1
            report.skip_reasons[str(why)] = report.skip_reasons.get(str(why), 0) + 1
            continue
        except Exception as err:  # noqa: BLE001 - a crash is a failed case, not a crashed run
            got = f"crash: {type(err).__name__}: {err}"
        t.run += 1
        want = case.want()
        if _matches(case, want, got, strict=impl == "zcast"):
            t.passed += 1
            continue
        t.failed += 1
        failure = {"id": case.id, "category": case.category, "file": case.file,
                   "input": case.line["input"], "expected": want, "got": got}
        report.failures.append(failure)
        if t.first_failure is None:
            t.first_failure = failure
    return report


def _short(text: str, limit: int = 96) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def format_table(reports: list[Report]) -> str:
    cats = [c for c in CATEGORIES if any(r.by_category.get(c) and r.by_category[c].run +
                                         r.by_category[c].skipped for r in reports)]
    header = ["implementation", "run", "passed", "failed", "skipped"] + cats
    rows = []
    for r in reports:
        if not r.available:
            rows.append([r.impl, "-", "-", "-", "-"] + ["-"] * len(cats))
            continue
        rows.append([f"{r.impl} {r.version}", str(r.total("run")), str(r.total("passed")),
                     str(r.total("failed")), str(r.total("skipped"))] +
                    [f"{r.by_category[c].passed}/{r.by_category[c].run}" for c in cats])
    widths = [max(len(row[i]) for row in rows + [header]) for i in range(len(header))]
    out = ["  ".join(h.ljust(w) for h, w in zip(header, widths))]
    out += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in rows]
    out.append("(per category: passed/run)")
    for r in reports:
        if not r.available:
            out.append(f"{r.impl}: {r.version}")
            continue
        for reason, n in sorted(r.skip_reasons.items()):
            out.append(f"{r.impl}: skipped {n}: {reason}")
        for c in CATEGORIES:
            f = r.by_category[c].first_failure
            if f:
                out.append(f"{r.impl}: first {c} failure: {f['id']}\n"
                           f"    input    {_short(f['input'])}\n"
                           f"    expected {_short(f['expected'])}\n"
                           f"    got      {_short(f['got'])}")
    return "\n".join(out)


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "conformance", help="run the shared cast_value / scale_offset test vectors",
        description="Runs the conformance vectors (conformance/README.md) through zcast and the "
        "other implementations installed beside it, and prints cases run, passed and failed by "
        "category with the first failing case of each. Exit status 1 if zcast, or an "
        "implementation named explicitly with --impl, fails a case.")
    p.add_argument("--impl", choices=IMPLEMENTATIONS + ("all",), default="zcast",
                   help="implementation to run (default: zcast)")
    p.add_argument("--vectors", metavar="DIR", type=Path, action="append",
                   help="a vector directory or .jsonl file (repeatable; default: the vectors "
                   "installed with zcast)")
    p.add_argument("--json", action="store_true", help="print the reports as JSON")
    p.set_defaults(func=cmd_conformance)
    return p


def cmd_conformance(args: argparse.Namespace) -> int:
    cases = load(args.vectors or [default_vectors()])
    impls = IMPLEMENTATIONS if args.impl == "all" else (args.impl,)
    reports = [run(i, cases) for i in impls]
    if args.json:
        print(json.dumps([{
            "impl": r.impl, "version": r.version, "available": r.available,
            "run": r.total("run"), "passed": r.total("passed"), "failed": r.total("failed"),
            "skipped": r.total("skipped"),
            "by_category": {c: {"run": t.run, "passed": t.passed, "failed": t.failed,
                                "skipped": t.skipped} for c, t in r.by_category.items()},
            "skip_reasons": r.skip_reasons, "failures": r.failures} for r in reports], indent=1))
    else:
        print(f"{len(cases)} cases")
        print(format_table(reports))
    strict = [r for r in reports if r.impl == "zcast" or args.impl != "all"]
    if any(not r.available for r in strict if args.impl != "all"):
        return 1
    return 1 if any(r.total("failed") for r in strict) else 0
