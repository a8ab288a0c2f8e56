"""The encodings `zcast advise` measures, derived from the data's statistics and the error bound.

* Every floating-point cast_value data type narrower than the array's type. Its range is checked
  by casting the data's extremes with zcast: a type the data overflows is offered with
  ``out_of_range: "clamp"`` only when the clamped extreme stays within the bound. NaN / ±Inf that
  the type cannot represent get scalar_map sentinels: values of the type outside the interval the
  data's extremes cast to, so no valid value can reach them.
* scale_offset + every integer type no wider than the array's type, with the largest step that
  meets the bound (probed by running the chain on a subset of the data and shrunk until it does),
  the offset at the range's start (unsigned) or centre (signed), and NaN / ±Inf sentinels at the
  ends of the integer range the data does not reach.
* Where the data is decimal, scale 10^k with the smallest k at which a scale_offset round trip
  is exact on the probe values (exactly: decode(encode(x)) == x for every one, computed by zcast,
  with offsets 0 and the range's start or centre on the 10^-j grids, j <= k).

Every candidate is then measured on the data by zcast (zcast._advise_measure); nothing here is
a figure of merit, only a configuration and the reason a type is ruled out.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np

import zcast
from zcast._errors import CastError, MetadataError

SPECIALS = ("NaN", "Infinity", "-Infinity")


@dataclass(frozen=True)
class Bound:
    """The error bound: ``kind`` "abs" (|decoded - x| <= value) or "rel" (<= value * |x|)."""

    kind: str
    value: float

    def met(self, max_abs: float, max_rel: float) -> bool:
        return (max_abs if self.kind == "abs" else max_rel) <= self.value

    def option(self) -> str:
        return f"--max-{self.kind}-error {self.value:g}"


@dataclass
class DataStats:
    """What one pass over the data finds: counts, the finite range, zeros and the smallest
    nonzero magnitude (what a relative bound allows an integer step to be)."""

    data_type: str
    elements: int = 0
    valid: int = 0  # finite elements
    nan: int = 0
    posinf: int = 0
    neginf: int = 0
    lo: float | None = None
    hi: float | None = None
    min_abs_nonzero: float | None = None
    has_zero: bool = False

    def update(self, values: np.ndarray) -> None:
        x = np.asarray(values).reshape(-1)
        if x.dtype.kind != "f":
            x = x.astype(np.float32 if x.dtype.itemsize <= 2 else np.float64)  # exact: ml_dtypes
        self.elements += x.size
        finite = np.isfinite(x)
        valid = int(np.count_nonzero(finite))
        if valid < x.size:
            self.nan += int(np.count_nonzero(np.isnan(x)))
            self.posinf += int(np.count_nonzero(x == np.inf))
            self.neginf += int(np.count_nonzero(x == -np.inf))
            x = x[finite]
        if not valid:
            return
        self.valid += valid
        lo, hi = float(x.min()), float(x.max())
        self.lo = lo if self.lo is None else min(self.lo, lo)
        self.hi = hi if self.hi is None else max(self.hi, hi)
        a = np.abs(x)
        nonzero = a > 0
        if nonzero.any():
            m = float(np.min(a, where=nonzero, initial=np.inf))
            self.min_abs_nonzero = m if self.min_abs_nonzero is None else min(
                self.min_abs_nonzero, m)
        self.has_zero = self.has_zero or not bool(nonzero.all())

    def specials(self, fill: Any) -> list[str]:
        """The non-finite values an encoding must carry: those in the data, and the fill value
        (zarr pads edge chunks and fills unwritten ones with it)."""
        need = {"NaN": self.nan > 0, "Infinity": self.posinf > 0, "-Infinity": self.neginf > 0}
        if isinstance(fill, float):
            if math.isnan(fill):
                need["NaN"] = True
            elif math.isinf(fill):
                need["Infinity" if fill > 0 else "-Infinity"] = True
        return [s for s in SPECIALS if need[s]]


@dataclass
class Candidate:
    """One encoding: its array -> array codecs and what `zcast convert` needs to write it."""

    label: str
    family: str  # "float", "scale_offset" or "decimal"
    data_type: str  # the stored type
    codecs: list[dict[str, Any]]
    scale: float | int | None = None
    offset: float | None = None
    out_of_range: str | None = None
    sentinels: list[tuple[str, Any]] = field(default_factory=list)  # (special, stored value)
    chain: Any = None

    def convert_options(self) -> list[str]:
        opts = ["--data-type", self.data_type]
        if self.scale is not None:
            opts += ["--scale", _text(self.scale), "--offset", _text(self.offset)]
        if self.out_of_range:
            opts += ["--out-of-range", self.out_of_range]
        for special, value in self.sentinels:
            opts += ["--map", f"{special}={_text(value)}"]
        return opts

    def maps_text(self) -> str:
        return ", ".join(f"{s}->{_text(v)}" for s, v in self.sentinels) or "-"


@dataclass(frozen=True)
class RuledOut:
    label: str
    reason: str


def _text(v: Any) -> str:
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e16:
        return str(int(v)) if not (v == 0 and math.copysign(1, v) < 0) else "-0.0"
    return repr(v) if isinstance(v, float) else str(v)


def _cast_codec(data_type: str, out_of_range: str | None = None,
                sentinels: list[tuple[str, Any]] | None = None) -> dict[str, Any]:
    cfg: dict[str, Any] = {"data_type": data_type}
    if out_of_range:
        cfg["out_of_range"] = out_of_range
    if sentinels:
        cfg["scalar_map"] = {"encode": [[s, v] for s, v in sentinels],
                             "decode": [[v, s] for s, v in sentinels]}
    return {"name": "cast_value", "configuration": cfg}


def _scale_offset_codec(scale: Any, offset: Any) -> dict[str, Any]:
    return {"name": "scale_offset", "configuration": {"offset": offset, "scale": scale}}


def _value_of(x: float, dtype: np.dtype) -> float:
    """x rounded to the array's type, as the shortest decimal that reads back as that value (so
    that the codec JSON and the convert command show 0.1, not 0.10000000149011612)."""
    return float(str(dtype.type(x)))


def _dtype(name: str) -> np.dtype:
    return zcast.numpy_dtype(name)


def _bits(name: str) -> int:
    dt = _dtype(name)
    return (ml_dtypes.iinfo(dt) if zcast._dtypes.is_integer(name) else ml_dtypes.finfo(dt)).bits


def _round_trip(chain: Any, values: np.ndarray) -> np.ndarray:
    return chain.decode(chain.encode(values)).astype(np.float64)


def probe_error(chain: Any, probe: np.ndarray) -> tuple[float, float]:
    """(max abs, max rel) error of the chain's round trip on the probe values (all finite);
    infinite when the chain refuses one."""
    if not probe.size:
        return 0.0, 0.0
    try:
        back = _round_trip(chain, probe)
    except CastError:
        return math.inf, math.inf
    x = probe.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = np.abs(back - x)
        diff[~np.isfinite(back)] = np.inf
        rel = np.where(x == 0, np.where(diff == 0, 0.0, np.inf), diff / np.abs(x))
    return float(diff.max()), float(rel.max())


class Planner:
    """Builds the candidates for one array: its type and fill value, the data's statistics,
    probe values (a subset of the finite values with the extremes) and the bound."""

    def __init__(self, stats: DataStats, fill: Any, probe: np.ndarray, bound: Bound,
                 sharded: bool = False) -> None:
        self.stats, self.fill, self.bound = stats, fill, bound
        # zarr-python checks a sharded array's inner codecs with the fill value 0 (its
        # ShardingCodec validation), so there 0 must round-trip as well (R9).
        self.sharded = sharded
        self.type = stats.data_type
        self.dtype = _dtype(self.type)
        self.probe = probe.astype(self.dtype)
        self.specials = stats.specials(fill)
        self.fill_json = fill  # Chain.from_codecs takes the fill value as in zarr.json
        lo, hi = stats.lo, stats.hi
        if isinstance(fill, (int, float)) and math.isfinite(fill):
            lo = fill if lo is None else min(lo, fill)  # the fill value must encode too
            hi = fill if hi is None else max(hi, fill)
        self.lo, self.hi = lo, hi
        self.candidates: list[Candidate] = []
        self.ruled_out: list[RuledOut] = []

    # -- helpers -------------------------------------------------------------------------------
    def _bind(self, c: Candidate) -> bool:
        try:
            c.chain = zcast.Chain.from_codecs(c.codecs, self.type, self.fill_json)
        except (MetadataError, CastError, ValueError) as err:
            self.ruled_out.append(RuledOut(c.label, f"the codecs do not bind: {err}"))
            return False
        if self.sharded:
            try:
                zcast.Chain.from_codecs(c.codecs, self.type, 0)
            except (MetadataError, CastError, ValueError) as err:
                self.ruled_out.append(RuledOut(c.label, (
                    f"zarr-python validates a sharded array's inner codecs with fill value 0, "
                    f"which this encoding does not round-trip: {err}")))
                return False
        return True

    def _within(self, err_abs: float, err_rel: float) -> bool:
        return self.bound.met(err_abs, err_rel)

    def _extremes(self) -> np.ndarray:
        vals = [v for v in (self.lo, self.hi) if v is not None]
        return np.array(vals, dtype=self.dtype)

    # -- floating-point types ------------------------------------------------------------------
    def float_candidates(self) -> None:
        src_bits = _bits(self.type)
        for name in zcast.DATA_TYPES:
            if zcast._dtypes.is_integer(name) or _bits(name) >= src_bits:
                continue
            self._float_candidate(name)

    def _float_candidate(self, name: str) -> None:
        ext = self._extremes()
        oor = None
        if ext.size:
            try:
                cast = zcast.cast_array(ext, name).astype(np.float64)
                overflow = not np.isfinite(cast).all()
            except CastError:
                overflow = True
            if overflow:
                try:
                    clamped = zcast.cast_array(ext, name, out_of_range="clamp").astype(np.float64)
                except CastError as err:
                    self.ruled_out.append(RuledOut(name, f"the data's range does not fit: {err}"))
                    return
                x = ext.astype(np.float64)
                with np.errstate(invalid="ignore", divide="ignore"):
                    err_abs = np.abs(clamped - x)
                    err_rel = np.where(x == 0, np.where(err_abs == 0, 0, np.inf), err_abs / np.abs(x))
                if not np.isfinite(clamped).all() or not self._within(err_abs.max(), err_rel.max()):
                    top = float(np.abs(x).max())
                    self.ruled_out.append(RuledOut(name, (
                        f"the data reaches {top:.7g}, beyond the largest {name} "
                        f"({float(ml_dtypes.finfo(_dtype(name)).max):.7g}); clamping would err "
                        f"by {float(err_abs.max()):.7g}, outside {self.bound.option()}")))
                    return
                oor = "clamp"
        sentinels = self._float_sentinels(name, oor)
        if sentinels is None:
            return
        label = name + (" clamp" if oor else "")
        c = Candidate(label, "float", name, [_cast_codec(name, oor, sentinels)],
                      out_of_range=oor, sentinels=sentinels)
        if self._bind(c):
            self.candidates.append(c)

    def _float_sentinels(self, name: str, oor: str | None) -> list[tuple[str, Any]] | None:
        """Sentinels for the specials the type lacks (found by casting each with zcast): values
        of the type beyond what the data's extremes cast to. None (and a ruled-out entry) when
        the data reaches every value."""
        lacking = []
        for s in self.specials:
            try:
                zcast.cast_array(np.array([float(s.replace("Infinity", "inf"))], self.dtype), name)
            except CastError:
                lacking.append(s)
        if not lacking:
            return []
        dt = _dtype(name)
        every = np.arange(256, dtype=np.uint8).view(dt).astype(np.float64) if dt.itemsize == 1 \
            else np.array([], dtype=np.float64)
        every = np.unique(every[np.isfinite(every) & (every != 0)])
        ext = self._extremes()
        if ext.size:
            reach = zcast.cast_array(ext, name, out_of_range=oor).astype(np.float64)
            below = list(every[every < reach.min()])          # lowest first
            above = list(every[every > reach.max()][::-1])    # highest first
        else:
            below, above = list(every), []
        out = []
        for s in lacking:
            # NaN and -Infinity take the lowest unreached value, Infinity the highest.
            first, second = (above, below) if s == "Infinity" else (below, above)
            pool = first if first else second
            if not pool:
                self.ruled_out.append(RuledOut(name, (
                    f"{name} has no {s}, and the data reaches every {name} value that could "
                    f"stand for it")))
                return None
            out.append((s, float(pool.pop(0))))
        return out

    # -- scale_offset + integer types ----------------------------------------------------------
    def _int_types(self) -> list[str]:
        src_bits = _bits(self.type)
        names = [n for n in zcast.DATA_TYPES if zcast._dtypes.is_integer(n) and _bits(n) <= src_bits]
        return sorted(names, key=lambda n: (n.startswith("u"), _bits(n)))

    def _int_sentinels(self, name: str, n_lo: int, n_hi: int) -> list[tuple[str, int]] | str:
        """Sentinels at the ends of the integer range outside [n_lo, n_hi] (the stored values of
        the data's extremes), or the reason none fit."""
        info = ml_dtypes.iinfo(_dtype(name))
        low, high = int(info.min), int(info.max)  # the next free value at each end
        out = []
        for s in self.specials:
            # Unsigned: every sentinel at the top (the data starts at 0). Signed: NaN and
            # -Infinity at the bottom, Infinity at the top; either end when one is full.
            want_high = s == "Infinity" or info.min == 0
            high_free, low_free = high > n_hi, low < n_lo
            if not (high_free or low_free):
                return (f"the data needs stored values {n_lo}..{n_hi} and {len(self.specials)} "
                        f"sentinel(s) for {', '.join(self.specials)}; {name} holds "
                        f"{int(info.min)}..{int(info.max)}")
            if (want_high and high_free) or not low_free:
                out.append((s, high))
                high -= 1
            else:
                out.append((s, low))
                low += 1
        return out

    def _stored_extremes(self, scale: Any, offset: Any) -> tuple[int, int] | str:
        if self.lo is None:
            return 0, 0
        try:
            chain = zcast.Chain.from_codecs(
                [_scale_offset_codec(scale, offset), _cast_codec("int64")], self.type)
            n = chain.encode(self._extremes())
        except (CastError, MetadataError) as err:
            return f"the data's extremes do not encode at scale {_text(scale)}: {err}"
        return int(n.min()), int(n.max())

    def _int_candidate(self, name: str, scale: Any, offset: Any, family: str) -> Candidate | str:
        ext = self._stored_extremes(scale, offset)
        if isinstance(ext, str):
            return ext
        n_lo, n_hi = ext
        info = ml_dtypes.iinfo(_dtype(name))
        if n_lo < int(info.min) or n_hi > int(info.max):
            return (f"at scale {_text(scale)} offset {_text(offset)} the data needs stored values "
                    f"{n_lo}..{n_hi}; {name} holds {int(info.min)}..{int(info.max)}")
        sentinels = self._int_sentinels(name, n_lo, n_hi)
        if isinstance(sentinels, str):
            return sentinels
        label = (f"{name} scale {_text(scale)} offset {_text(offset)}"
                 + (" (decimal)" if family == "decimal" else ""))
        return Candidate(label, family, name,
                         [_scale_offset_codec(scale, offset), _cast_codec(name, None, sentinels)],
                         scale=scale, offset=offset, sentinels=sentinels)

    def _step_bound(self) -> float | None:
        """The absolute error an integer step may make: the bound, or for a relative bound that
        times the smallest nonzero magnitude. None when no integer step can meet it."""
        if self.bound.kind == "abs":
            return self.bound.value
        if self.stats.min_abs_nonzero is None:
            return 1.0  # only zeros (or no valid value): any step is exact
        return self.bound.value * self.stats.min_abs_nonzero

    def _offset(self, signed: bool) -> float:
        if self.lo is None:
            return 0.0
        if self.sharded or (self.bound.kind == "rel" and self.stats.has_zero):
            # Zero must stay exactly zero: under a relative bound, and in a sharded array, whose
            # inner codecs zarr-python checks with fill value 0 (R9 needs (0 - offset) * scale
            # to be an integer exactly).
            return 0.0
        return _value_of(self.lo if not signed else (self.lo + self.hi) / 2, self.dtype)

    def _scale_for(self, offset: float, e: float) -> tuple[float, float] | None:
        """The largest step (as its scale, 1 / step, rounded up to 4 significant digits) whose
        round trip on the probe values meets the bound; shrunk while it does not. Returns
        (scale, probe error) or None."""
        big = max(abs(v) for v in (self.lo or 0.0, self.hi or 0.0, offset))
        ulp = float(np.spacing(self.dtype.type(big))) if big else 0.0
        step = 2 * (e - 2 * ulp) if e > 4 * ulp else e
        for _ in range(8):
            if not step > 0 or not math.isfinite(step):
                return None
            scale = _nice_up(1.0 / step)
            if not math.isfinite(_value_of(scale, self.dtype)):
                return None
            probe_chain = zcast.Chain.from_codecs(
                [_scale_offset_codec(scale, offset), _cast_codec("int64", "clamp")], self.type)
            err_abs, err_rel = probe_error(probe_chain, np.concatenate([self.probe,
                                                                        self._extremes()]))
            if self._within(err_abs, err_rel):
                return scale, err_abs
            excess = (err_abs - e) if self.bound.kind == "abs" else (
                (err_rel - self.bound.value) * (self.stats.min_abs_nonzero or 1.0))
            step = min(step * 0.9, step - 2 * excess)
        return None

    def int_candidates(self) -> None:
        e = self._step_bound()
        fitted: set[tuple[bool, str]] = set()  # (signed, family) with a narrower type that fits
        scales: dict[float, tuple[float, float] | None] = {}
        for name in self._int_types():
            signed = not name.startswith("u")
            offset = self._offset(signed)
            key = (signed, "scale_offset")
            if key in fitted:
                self.ruled_out.append(RuledOut(name, "stores the same values as a narrower "
                                               "integer type that holds them, in more bytes"))
                continue
            if offset not in scales:  # the same offset gives the same step for every width
                scales[offset] = self._scale_for(offset, e) if e is not None else None
            found = scales[offset]
            if found is None:
                self.ruled_out.append(RuledOut(name, (
                    f"no scale_offset step meets {self.bound.option()} in {self.type} "
                    f"arithmetic")))
                continue
            c = self._int_candidate(name, found[0], offset, "scale_offset")
            if isinstance(c, str):
                self.ruled_out.append(RuledOut(f"{name} scale_offset", c))
                continue
            if self._bind(c):
                self.candidates.append(c)
                fitted.add(key)

    # -- decimal data --------------------------------------------------------------------------
    def _decimal_digits(self) -> int:
        return {2: 4, 4: 7, 8: 15}.get(self.dtype.itemsize, 0)

    def decimal_scale(self) -> tuple[int, list[float]] | None:
        """The smallest k for which scale 10^k round-trips every probe value exactly with some
        offset, and the offsets that do; None if no k up to the type's decimal precision does."""
        if self.lo is None or zcast._dtypes.is_integer(self.type):
            return None
        probe = np.concatenate([self.probe, self._extremes()])
        for k in range(self._decimal_digits() + 1):
            scale = 10 ** k
            if (self.hi - self.lo) * scale >= 2.0 ** 32:
                return None
            offsets = [0.0]
            for j in range(k + 1):
                p = 10 ** j
                offsets += [math.floor(self.lo * p) / p, round((self.lo + self.hi) / 2 * p) / p]
            exact = []
            for o in dict.fromkeys(_value_of(o, self.dtype) for o in offsets):
                chain = zcast.Chain.from_codecs([_scale_offset_codec(scale, o), _cast_codec("int64")],
                                                self.type)
                # The first thousand values reject most scales; the rest confirm the survivors.
                for part in (probe[:1000], probe[1000:]):
                    try:
                        if not np.array_equal(chain.decode(chain.encode(part)), part):
                            break
                    except CastError:
                        break
                else:
                    exact.append(o)
            if exact:
                return k, exact
        return None

    def decimal_candidates(self) -> None:
        found = self.decimal_scale()
        if found is None:
            return
        k, offsets = found
        fitted: set[bool] = set()
        for name in self._int_types():
            signed = not name.startswith("u")
            if signed in fitted:
                continue
            reasons = []
            for o in offsets:
                c = self._int_candidate(name, 10 ** k, o, "decimal")
                if isinstance(c, str):
                    reasons.append(c)
                    continue
                if self._bind(c):
                    self.candidates.append(c)
                    fitted.add(signed)
                break
            else:
                self.ruled_out.append(RuledOut(f"{name} scale {10 ** k} (decimal)", reasons[0]))

    def plan(self) -> tuple[list[Candidate], list[RuledOut]]:
        self.float_candidates()
        self.decimal_candidates()
        self.int_candidates()
        seen, unique = set(), []
        for c in self.candidates:
            key = json.dumps(c.codecs, sort_keys=True)
            if key not in seen:
                seen.add(key)
                unique.append(c)
        return unique, self.ruled_out


def _nice_up(x: float) -> float:
    """x rounded up to 4 significant digits (a scale that is a little larger: a smaller step)."""
    if x <= 0 or not math.isfinite(x):
        return x
    e = math.floor(math.log10(x)) - 3
    q = math.ceil(x / 10 ** e - 1e-9)
    v = q * 10 ** e if e >= 0 else q / 10 ** -e
    return float(int(v)) if v.is_integer() else v
