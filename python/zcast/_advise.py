"""zcast.advise: for an array and an error bound, the cast_value / scale_offset encoding that
meets the bound in the fewest stored bytes, measured on the data by zcast.

    >>> advice = zcast.advise(temperature, max_abs_error=0.05)
    >>> advice.recommended["codecs"]        # [scale_offset, cast_value] as zarr.json entries
    >>> print(advice.table())

The candidates come from zcast._advise_candidates (every floating-point type narrower than the
array's, scale_offset + every integer type, decimal scales where the data is decimal), their
figures from zcast._advise_measure (every element's error, stored bytes after the compressor,
throughput); this module ranks them: those that meet the bound first, then by stored bytes.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import zcast
from zcast._advise_candidates import Bound, Candidate, Planner, RuledOut
from zcast._advise_measure import Compressor, Result, Source, measure, scan

#: The compressor measured for an array that has none (and the one a convert then writes):
#: zarr-python's default for Zarr v3.
DEFAULT_COMPRESSOR = {"name": "zstd", "configuration": {"level": 0, "checksum": False}}
#: The seed of the chunk sample (the sample is reproducible; it is printed with the basis).
SAMPLE_SEED = 0
# A numpy array is measured in chunks of at most this many bytes.
_NUMPY_CHUNK_BYTES = 1 << 20


def _auto_chunks(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    chunks = list(shape)
    while math.prod(chunks) * itemsize > _NUMPY_CHUNK_BYTES:
        i = chunks.index(max(chunks))
        chunks[i] = -(-chunks[i] // 2)
    return tuple(max(1, c) for c in chunks)


def _fill_scalar(fill: Any, data_type: str) -> Any:
    if fill is None:
        return None
    if zcast._dtypes.is_integer(data_type):
        return int(fill)
    return float(fill)


def source_of(array: Any, name: str | None = None) -> Source:
    """A numpy array (or anything np.asarray takes), a zarr.Array, or the path of a Zarr array
    (opened read-only with zcast's codecs)."""
    if isinstance(array, (str, os.PathLike)):
        import zarr

        path = Path(array)
        try:
            arr = zarr.open_array(zarr.storage.LocalStore(path, read_only=True), mode="r")
        except Exception as err:  # noqa: BLE001 - zarr raises several types; one line
            raise ValueError(f"cannot open {path} as a Zarr array: {err}") from None
        from zcast._cli_common import _stored_bytes

        src = source_of(arr, str(path))
        src.path, src.stored_bytes = str(path), _stored_bytes(path)
        return src
    if hasattr(array, "metadata") and hasattr(array, "chunks") and hasattr(array, "compressors"):
        data_type = zcast.zarr_name(array.dtype)
        own = [] if array.metadata.zarr_format == 2 else [c.to_dict() for c in array.compressors]
        # A v2 source's compressor is replaced by zarr's v3 default (zstd) in a convert.
        compressors = own or [DEFAULT_COMPRESSOR]
        return Source(name or str(getattr(array, "store_path", "zarr array")),
                      tuple(array.shape), data_type, tuple(array.chunks),
                      _fill_scalar(array.fill_value, data_type), Compressor(compressors),
                      lambda region, a=array: a[region], shards=getattr(array, "shards", None),
                      compressor_added=array.metadata.zarr_format == 3 and not own)
    values = np.asarray(array)
    if values.ndim == 0:
        values = values.reshape(1)
    data_type = zcast.zarr_name(values.dtype)
    return Source(name or f"numpy array {values.dtype}", values.shape, data_type,
                  _auto_chunks(values.shape, values.dtype.itemsize), None,
                  Compressor([DEFAULT_COMPRESSOR]), lambda region, v=values: v[region])


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


@dataclass
class Advice:
    """The result of :func:`advise`: the ranked candidates (dicts, best first), those ruled out
    before measuring (with the reason), the uncast reference, the recommended candidate (the
    first that meets the bound; None when none does) and what the figures are based on."""

    source: dict[str, Any]
    bound: Bound
    basis: dict[str, Any]
    candidates: list[dict[str, Any]]
    ruled_out: list[dict[str, str]]
    reference: dict[str, Any]
    recommended: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        """The --json document: every value JSON-compatible (an infinite error is null)."""
        strip = [{k: v for k, v in c.items()} for c in self.candidates]
        rec = None if self.recommended is None else next(
            c for c in strip if c["label"] == self.recommended["label"])
        return {"source": self.source, "bound": {f"max_{self.bound.kind}_error": self.bound.value},
                "basis": self.basis, "candidates": strip, "ruled_out": self.ruled_out,
                "reference": self.reference, "recommended": rec}

    def convert_command(self, src: str = "SRC", dst: str = "DST") -> str | None:
        """The `zcast convert` command that writes the recommended encoding."""
        import shlex

        if self.recommended is None:
            return None
        return " ".join(["zcast", "convert", shlex.quote(src), shlex.quote(dst),
                         *map(shlex.quote, self.recommended["convert_options"])])

    def table(self) -> str:
        from zcast._advise_report import table

        return table(self)


def _candidate_dict(c: Candidate, r: Result, bound: Bound, specials: list[str], scale: float,
                    index_bytes: int, raw_bytes: int) -> dict[str, Any]:
    stored = int(round(r.stored * scale)) + index_bytes
    rms_abs = math.sqrt(r.sum_sq_abs / r.elements) if r.elements else 0.0
    rms_rel = math.sqrt(r.sum_sq_rel / r.elements) if r.elements else 0.0
    has_nan = "NaN" in specials
    has_inf = any(s.endswith("Infinity") for s in specials)
    failed = r.failure is not None
    meets = (not failed and r.lost == 0 and r.nan_lost == 0 and r.inf_lost == 0
             and r.collisions == 0 and bound.met(r.max_abs, r.max_rel))
    return {
        "label": c.label, "family": c.family, "data_type": c.data_type, "codecs": c.codecs,
        "meets": meets,
        "max_abs_error": None if failed else _finite(r.max_abs),
        "rms_abs_error": None if failed else _finite(rms_abs),
        "max_rel_error": None if failed else _finite(r.max_rel),
        "rms_rel_error": None if failed else _finite(rms_rel),
        "elements": r.elements, "lost": r.lost,
        "nan_preserved": None if not has_nan else (not failed and r.nan_lost == 0),
        "inf_preserved": None if not has_inf else (not failed and r.inf_lost == 0),
        "sentinels": [[s, v] for s, v in c.sentinels], "sentinel_collisions": r.collisions,
        "stored_bytes": None if failed else stored,
        "ratio": None if failed or not stored else raw_bytes / stored,
        "encode_mb_s": None if failed or not r.enc_s else r.nbytes / r.enc_s / 1e6,
        "decode_mb_s": None if failed or not r.dec_s else r.nbytes / r.dec_s / 1e6,
        "failure": r.failure, "convert_options": c.convert_options(),
    }


def _rank_key(c: dict[str, Any]) -> tuple:
    err = c["max_abs_error"]
    return (not c["meets"], c["stored_bytes"] is None,
            c["stored_bytes"] if c["stored_bytes"] is not None else 0,
            math.inf if err is None else err, c["label"])


def advise(array: Any, *, max_abs_error: float | None = None, max_rel_error: float | None = None,
           sample: float | None = None, seed: int = SAMPLE_SEED, progress: bool = False,
           name: str | None = None) -> Advice:
    """Measures every cast_value / scale_offset encoding of ``array`` that can hold its data and
    ranks them: those meeting the bound first (every valid element within ``max_abs_error``, or
    within ``max_rel_error`` times its magnitude; NaN and ±Inf kept), then by stored bytes.

    ``array``: a numpy array, a zarr.Array, or the path of a Zarr array. ``sample``: measure a
    random fraction (0 < sample <= 1) of the chunks instead of all (the statistics the encodings
    are derived from still cover the whole array); stored bytes are then scaled up to the whole
    array and the errors are those of the sampled chunks. ``progress``: a progress bar on
    stderr for passes longer than a few seconds. Raises ValueError for invalid arguments.
    """
    if (max_abs_error is None) == (max_rel_error is None):
        raise ValueError("give exactly one of max_abs_error and max_rel_error")
    kind, value = ("abs", max_abs_error) if max_abs_error is not None else ("rel", max_rel_error)
    value = float(value)
    if not (value >= 0 and math.isfinite(value)):
        raise ValueError(f"max_{kind}_error must be a finite number >= 0, got {value!r}")
    if sample is not None and not (0 < sample <= 1):
        raise ValueError(f"sample must be a fraction in (0, 1], got {sample!r}")
    bound = Bound(kind, value)
    if isinstance(array, (str, os.PathLike)):
        import zcast.zarr as zz

        with zz.use():  # the source's own scale_offset / cast_value are read by zcast
            return _advise(source_of(array, name), bound, sample, seed, progress)
    return _advise(source_of(array, name), bound, sample, seed, progress)


def _advise(src: Source, bound: Bound, sample: float | None, seed: int,
            progress: bool) -> Advice:
    if zcast._dtypes.is_integer(src.data_type):
        raise ValueError(f"advise chooses encodings for floating-point arrays; this one is "
                         f"{src.data_type}")
    stats, probe, units = scan(src, sample, seed, progress)
    planner = Planner(stats, src.fill, probe, bound, sharded=src.shards is not None)
    candidates, ruled = planner.plan()
    results, ref = measure(src, candidates, units, progress)
    n_total = src.n_chunks()
    n_measured = sum(len(u.chunks) for u in units)
    scale = n_total / n_measured if n_measured else 1.0
    raw = src.nbytes
    specials = stats.specials(None)
    rows = [_candidate_dict(c, r, bound, specials, scale, src.index_bytes(), raw)
            for c, r in zip(candidates, results)]
    rows.sort(key=_rank_key)
    ref_stored = int(round(ref.stored * scale)) + src.index_bytes()
    reference = {"label": f"{src.data_type} (no cast)", "stored_bytes": ref_stored,
                 "ratio": raw / ref_stored if ref_stored else None,
                 "source_stored_bytes": src.stored_bytes}
    basis = {"sampled": sample is not None, "chunks_measured": n_measured, "chunks": n_total,
             "elements_measured": sum(math.prod(s.stop - s.start for s in sl)
                                      for u in units for sl, _, _ in u.chunks),
             "elements": stats.elements, "seed": seed if sample is not None else None,
             "fraction": sample}
    source = {"name": src.name, "path": src.path, "shape": list(src.shape),
              "data_type": src.data_type, "chunks": list(src.chunks),
              "shards": None if src.shards is None else list(src.shards), "fill_value":
              None if src.fill is None else zcast._api.json_scalar(src.fill).strip('"'),
              "compressors": src.compressor.codecs, "compressor_added": src.compressor_added,
              "raw_bytes": raw,
              "valid": stats.valid, "nan": stats.nan, "posinf": stats.posinf,
              "neginf": stats.neginf, "min": stats.lo, "max": stats.hi}
    recommended = next((c for c in rows if c["meets"]), None)
    return Advice(source, bound, basis, rows,
                  [{"label": r.label, "reason": r.reason} for r in ruled], reference, recommended)
