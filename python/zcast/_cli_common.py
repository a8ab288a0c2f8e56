"""Helpers shared by the zcast subcommands (zcast.cli and its _cli_* modules): the error type
reported as one line, --map parsing and the cast options, sizes, error statistics and tables."""

from __future__ import annotations

import argparse
import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROUNDINGS = ["nearest-even", "nearest-away", "towards-zero", "towards-positive", "towards-negative"]
OUT_OF_RANGE = ["clamp", "wrap"]


class CliError(Exception):
    """A failure to report as one line on stderr with exit status 1."""


def plural(n: int, word: str) -> str:
    """``1 element``, ``2 elements``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def nan_map_hint(message: str, data_type: str, maps: Sequence[tuple[Any, Any]]) -> str:
    """For a failure about NaN (an element, or a NaN fill value that must read back, R9) into a
    type without NaN and no --map NaN=...: the option that stores NaN, with a value to try (the
    type's largest value for an unsigned type, its smallest for a signed one); else ""."""
    if "NaN" not in message or any(str(k) == "NaN" for k, _ in maps):
        return ""
    from zcast import _dtypes

    try:
        name = _dtypes.zarr_name(_dtypes.requested_dtype(data_type))
    except Exception:  # noqa: BLE001 - an unknown type is reported by the failure itself
        return ""
    if not _dtypes.is_integer(name):
        return ("; to store NaN, map it to a value valid data does not reach: --map NaN=V "
                "(read back as NaN)")
    bits = int(re.search(r"\d+", name).group())
    value = 2**bits - 1 if name.startswith("u") else -(2 ** (bits - 1))
    return (f"; to store NaN, map it to a {name} value valid data does not reach: "
            f"--map NaN={value} (read back as NaN)")


def describe_os_error(err: OSError) -> str:
    """An OSError in words, naming its file(s): ``in.bin: no such file or directory`` rather
    than Python's ``[Errno 2] No such file or directory: 'in.bin'``."""
    what = (err.strerror or str(err)).rstrip(".")
    what = what[:1].lower() + what[1:]
    if err.filename is not None and err.filename2 is not None:
        return f"{os.fsdecode(err.filename)} -> {os.fsdecode(err.filename2)}: {what}"
    if err.filename is not None:
        return f"{os.fsdecode(err.filename)}: {what}"
    return what


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


def _codec_name(d: Any) -> str | None:
    """A codec entry's name: {"name": ...} or a bare string (R26)."""
    if isinstance(d, str):
        return d
    return d.get("name") if isinstance(d, dict) else None




def _is_numeric(a: np.ndarray) -> bool:
    try:
        np.asarray(a, dtype=np.float64)
        return True
    except (TypeError, ValueError):
        return False

