"""Reading an array for `zcast advise` and measuring each candidate encoding on it with zcast.

The array is read block by block (a row of chunks, or one chunk when a row is large). A first
pass gathers the statistics the candidates are derived from (zcast._advise_candidates) and the
probe values; the second pass runs every candidate's chain on every block, or on a random sample
of chunks: encode and decode (timed), the exact error of every valid element, whether NaN and
±Inf come back, sentinel collisions, and the size of each chunk after the array's compressor.

Chunks are stored as zarr-python stores them: an edge chunk is padded to the full chunk shape
with the fill value (its encoded form), a chunk whose every element is the fill value is not
written (zarr's default write_empty_chunks=False), and a sharded array adds each shard's index
(16 bytes per inner chunk and a crc32c).
"""

from __future__ import annotations

import itertools
import math
import os
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from zcast._advise_candidates import Candidate, DataStats
from zcast._errors import CastError

_ELEMENT_RE = re.compile(r"^element \([^)]*\): ")
# Blocks are rows of chunks while a row holds at most this many elements.
_BLOCK_ELEMENTS = 1 << 23
# Probe values kept from the first pass (the step search runs chains on them).
_PROBE_ELEMENTS = 1 << 20
# An array this large is read again for the second pass instead of being kept in memory.
_CACHE_BYTES = 3 << 30


class Compressor:
    """The bytes -> bytes codecs after `bytes` (little endian), as numcodecs objects."""

    def __init__(self, codecs: list[dict[str, Any]]) -> None:
        import numcodecs

        self.codecs = codecs
        self._make: list[Callable[[int], Any]] = []
        self.extra = 0  # bytes a checksum codec adds
        for c in codecs:
            name, cfg = c["name"], c.get("configuration", {})
            if name == "blosc":
                shuffle = {"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}[cfg.get("shuffle", "shuffle")]
                self._make.append(lambda itemsize, cfg=cfg, shuffle=shuffle: numcodecs.Blosc(
                    cname=cfg.get("cname", "zstd"), clevel=cfg.get("clevel", 5), shuffle=shuffle,
                    blocksize=cfg.get("blocksize", 0), typesize=cfg.get("typesize") or itemsize))
            elif name == "zstd":
                self._make.append(lambda itemsize, cfg=cfg: numcodecs.Zstd(
                    level=cfg.get("level", 0), checksum=cfg.get("checksum", False)))
            elif name == "gzip":
                self._make.append(lambda itemsize, cfg=cfg: numcodecs.GZip(level=cfg.get("level", 5)))
            elif name == "crc32c":
                self.extra += 4
            else:
                raise ValueError(f"compressor {name!r}: advise measures blosc, zstd, gzip and "
                                 f"crc32c")

    def for_itemsize(self, itemsize: int) -> list[Any]:
        return [make(itemsize) for make in self._make]

    def describe(self) -> str:
        return " + ".join(c["name"] + (f" {c['configuration']}" if c.get("configuration") else "")
                          for c in self.codecs) or "none"


@dataclass
class Source:
    """An array to advise on: its layout and a reader of regions (numpy values)."""

    name: str
    shape: tuple[int, ...]
    data_type: str
    chunks: tuple[int, ...]
    fill: Any  # a Python scalar, None for a numpy array (chunks are then not padded)
    compressor: Compressor
    read: Callable[[tuple[slice, ...]], np.ndarray]
    shards: tuple[int, ...] | None = None
    path: str | None = None
    stored_bytes: int | None = None  # of the source as it is stored, if known
    compressor_added: bool = False  # the source has none: zstd is measured (and written)

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * np.dtype(_np_dtype(self.data_type)).itemsize

    def chunk_grid(self) -> tuple[int, ...]:
        return tuple(-(-s // c) for s, c in zip(self.shape, self.chunks))

    def n_chunks(self) -> int:
        return math.prod(self.chunk_grid())

    def index_bytes(self) -> int:
        if self.shards is None:
            return 0
        per_shard = math.prod(s // c for s, c in zip(self.shards, self.chunks))
        n_shards = math.prod(-(-a // s) for a, s in zip(self.shape, self.shards))
        return n_shards * (16 * per_shard + 4)


def _np_dtype(name: str) -> np.dtype:
    import zcast

    return zcast.numpy_dtype(name)


@dataclass
class Unit:
    """A region read together, and its chunks: (slice within the region, padded?, all fill?)."""

    region: tuple[slice, ...]
    chunks: list[tuple[tuple[slice, ...], bool, bool]] = field(default_factory=list)
    values: np.ndarray | None = None


def _chunk_region(index: tuple[int, ...], src: Source) -> tuple[slice, ...]:
    return tuple(slice(i * c, min((i + 1) * c, s)) for i, c, s in zip(index, src.chunks, src.shape))


def blocks(src: Source) -> list[Unit]:
    """The first pass's blocks: rows of chunks along the first axis (all chunks of a row), or
    single chunks when a row is larger than _BLOCK_ELEMENTS."""
    grid = src.chunk_grid()
    row = math.prod(src.shape[1:]) * src.chunks[0]
    units = []
    if row <= _BLOCK_ELEMENTS:
        for i in range(grid[0]):
            region = (slice(i * src.chunks[0], min((i + 1) * src.chunks[0], src.shape[0])),
                      *(slice(0, s) for s in src.shape[1:]))
            u = Unit(region)
            for rest in itertools.product(*(range(g) for g in grid[1:])):
                r = _chunk_region((i, *rest), src)
                local = (slice(0, r[0].stop - r[0].start), *r[1:])
                u.chunks.append((local, _partial(r, src), False))
            units.append(u)
    else:
        for index in itertools.product(*(range(g) for g in grid)):
            r = _chunk_region(index, src)
            units.append(Unit(r, [(tuple(slice(0, x.stop - x.start) for x in r),
                                   _partial(r, src), False)]))
    return units


def _partial(region: tuple[slice, ...], src: Source) -> bool:
    return src.fill is not None and any(r.stop - r.start != c for r, c in zip(region, src.chunks))


def _all_fill(values: np.ndarray, fill: Any) -> bool:
    if fill is None:
        return False
    if isinstance(fill, float) and math.isnan(fill):
        return bool(np.isnan(values.astype(np.float64)).all())
    return bool((values == fill).all())


class Progress:
    """The convert command's progress bar (zcast._cli_convert), shown once a pass has taken a
    few seconds; on a terminal it redraws one line, elsewhere it prints a plain line at every
    tenth, without carriage returns."""

    def __init__(self, what: str, total: int, enabled: bool) -> None:
        self.what, self.total, self.enabled = what, total, enabled
        self.start = time.perf_counter()
        self.shown = False
        self.tty = sys.stderr.isatty()
        self.last_tenth = -1
        self.finished = False

    def step(self, done: int) -> None:
        if not self.enabled or time.perf_counter() - self.start < 2.0:
            return
        if self.tty:
            from zcast._cli_convert import _progress

            if not self.shown:
                sys.stderr.write(f"{self.what}\n")
            _progress(done, self.total, self.start)
            self.shown, self.finished = True, done == self.total
            return
        tenth = 10 * done // max(self.total, 1)
        if tenth != self.last_tenth:
            self.last_tenth = tenth
            sys.stderr.write(f"{self.what}: {done}/{self.total} blocks "
                             f"{time.perf_counter() - self.start:.1f}s\n")
            sys.stderr.flush()
            self.shown = True

    def end(self) -> None:
        """Ends a terminal line left open (the last step is drawn with a newline by
        _progress; one skipped by the two-second rule may leave the bar unfinished)."""
        if self.shown and self.tty and not self.finished:
            sys.stderr.write("\n")
            sys.stderr.flush()


def _workers() -> int:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cpus or 1, 8))


def _ordered(pool: ThreadPoolExecutor, fn: Callable[[Unit], Any], units: list[Unit],
             progress: Progress):
    """fn over the units on the pool, at most two per worker in flight, results in order."""
    window = 2 * pool._max_workers  # noqa: SLF001
    pending = []
    done = 0
    for u in units:
        pending.append(pool.submit(fn, u))
        if len(pending) >= window:
            yield pending.pop(0).result()
            done += 1
            progress.step(done)
    for f in pending:
        yield f.result()
        done += 1
        progress.step(done)


def scan(src: Source, sample: float | None, seed: int, progress: bool
         ) -> tuple[DataStats, np.ndarray, list[Unit]]:
    """The first pass: statistics and probe values over the whole array, and the units the
    second pass measures (every block, or the sampled chunks), with their values kept in memory
    unless the array is larger than _CACHE_BYTES."""
    units = blocks(src)
    chosen: set[tuple[int, ...]] | None = None
    if sample is not None:
        n = src.n_chunks()
        k = max(1, min(n, round(sample * n)))
        rng = np.random.default_rng(seed)
        flat = rng.choice(n, size=k, replace=False)
        chosen = {tuple(int(i) for i in np.unravel_index(f, src.chunk_grid())) for f in flat}
    keep = sample is not None or src.nbytes <= _CACHE_BYTES
    stats = DataStats(src.data_type)
    total = math.prod(src.shape)
    stride = max(1, total // _PROBE_ELEMENTS)
    probes: list[np.ndarray] = []
    measured: list[Unit] = []
    bar = Progress("zcast advise: reading", len(units), progress)

    def read(u: Unit) -> tuple[Unit, DataStats, np.ndarray]:
        values = np.asarray(src.read(u.region))
        part = DataStats(src.data_type)
        part.update(values)
        flat = values.reshape(-1)[::stride].astype(np.float64)
        probe = flat[np.isfinite(flat)]
        u.chunks = [(sl, padded, _all_fill(values[sl], src.fill)) for sl, padded, _ in u.chunks]
        return u, part, probe, values

    with ThreadPoolExecutor(max_workers=_workers(), thread_name_prefix="zcast-advise") as pool:
        for u, part, probe, values in _ordered(pool, read, units, bar):
            _merge(stats, part)
            probes.append(probe)
            if chosen is None:
                u.values = values if keep else None
                measured.append(u)
                continue
            for sl, padded, fill in u.chunks:
                index = tuple((r.start + s.start) // c for r, s, c in zip(u.region, sl, src.chunks))
                if index in chosen:
                    region = tuple(slice(r.start + s.start, r.start + s.stop)
                                   for r, s in zip(u.region, sl))
                    local = tuple(slice(0, s.stop - s.start) for s in sl)
                    measured.append(Unit(region, [(local, padded, fill)], values[sl].copy()))
    bar.end()
    probe = np.concatenate(probes) if probes else np.zeros(0)
    return stats, probe, measured


def _merge(total: DataStats, part: DataStats) -> None:
    total.elements += part.elements
    total.valid += part.valid
    total.nan += part.nan
    total.posinf += part.posinf
    total.neginf += part.neginf
    for name, pick in (("lo", min), ("hi", max), ("min_abs_nonzero", min)):
        a, b = getattr(total, name), getattr(part, name)
        setattr(total, name, b if a is None else a if b is None else pick(a, b))
    total.has_zero = total.has_zero or part.has_zero


@dataclass
class Result:
    """What one candidate measured (sums over the units it ran on)."""

    elements: int = 0   # valid elements compared
    max_abs: float = 0.0
    sum_sq_abs: float = 0.0
    max_rel: float = 0.0
    sum_sq_rel: float = 0.0
    lost: int = 0       # valid elements that did not come back finite
    nan_lost: int = 0
    inf_lost: int = 0
    collisions: int = 0  # valid elements stored as a sentinel
    stored: int = 0      # compressed bytes of the chunks measured
    chunks: int = 0
    enc_s: float = 0.0
    dec_s: float = 0.0
    nbytes: int = 0      # array bytes encoded and decoded
    failure: str | None = None

    def add(self, o: Result) -> None:
        for k in ("elements", "sum_sq_abs", "sum_sq_rel", "lost", "nan_lost", "inf_lost",
                  "collisions", "stored", "chunks", "enc_s", "dec_s", "nbytes"):
            setattr(self, k, getattr(self, k) + getattr(o, k))
        self.max_abs = max(self.max_abs, o.max_abs)
        self.max_rel = max(self.max_rel, o.max_rel)
        if self.failure is None:
            self.failure = o.failure


def _sentinel_bits(c: Candidate) -> list[np.ndarray]:
    from zcast import _api

    dt = c.chain.encoded_dtype
    width = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
    return [np.asarray(_api.scalar_from_json(_api.json_scalar(v), c.data_type)).view(width)
            for _, v in c.sentinels]


class Measure:
    """Runs every candidate (and the uncast reference) on a unit."""

    def __init__(self, src: Source, candidates: list[Candidate]) -> None:
        self.src, self.candidates = src, candidates
        self.sentinels = [_sentinel_bits(c) for c in candidates]
        self.fills = [c.chain.encoded_fill_value if src.fill is not None else None
                      for c in candidates]

    def unit(self, u: Unit) -> tuple[list[Result], Result]:
        values = u.values if u.values is not None else np.ascontiguousarray(self.src.read(u.region))
        x = values.reshape(-1).astype(np.float64)  # exact for every type advised
        valid = np.isfinite(x)
        all_valid = bool(valid.all())
        xv = x if all_valid else x[valid]
        absx = np.abs(xv)
        zero = np.flatnonzero(xv == 0)
        nan = np.flatnonzero(np.isnan(x))
        pinf, ninf = np.flatnonzero(x == np.inf), np.flatnonzero(x == -np.inf)
        results = []
        for c, sentinels, fill in zip(self.candidates, self.sentinels, self.fills):
            r = Result()
            try:
                t0 = time.perf_counter()
                enc = c.chain.encode(values)
                t1 = time.perf_counter()
                dec = c.chain.decode(enc)
                t2 = time.perf_counter()
            except CastError as err:
                message = _ELEMENT_RE.sub("", str(err), count=1)
                if err.index is not None:
                    where = tuple(s.start + i for s, i in zip(u.region, err.index))
                    message = f"element {where}: {message}"
                r.failure = message
                results.append(r)
                continue
            r.enc_s, r.dec_s, r.nbytes = t1 - t0, t2 - t1, values.nbytes
            d = dec.reshape(-1).astype(np.float64)
            diff = d - xv if all_valid else d[valid]
            if not all_valid:
                np.subtract(diff, xv, out=diff)
            np.abs(diff, out=diff)
            r.elements = int(xv.size)
            if xv.size:
                r.max_abs = float(diff.max())
                if not math.isfinite(r.max_abs):  # NaN or Inf for a valid element: lost
                    bad = ~np.isfinite(diff)
                    r.lost = int(np.count_nonzero(bad))
                    diff[bad] = np.inf
                    r.max_abs = math.inf
                r.sum_sq_abs = float(np.dot(diff, diff)) if not r.lost else math.inf
                with np.errstate(invalid="ignore", divide="ignore"):
                    rel = np.divide(diff, absx)
                if zero.size:  # zero: exact or infinitely wrong
                    rel[zero] = np.where(diff[zero] == 0, 0.0, np.inf)
                r.max_rel = float(rel.max())
                r.sum_sq_rel = float(np.dot(rel, rel)) if math.isfinite(r.max_rel) else math.inf
            if nan.size:
                r.nan_lost = int(np.count_nonzero(~np.isnan(d[nan])))
            if pinf.size or ninf.size:
                r.inf_lost = int(np.count_nonzero(d[pinf] != np.inf)
                                 + np.count_nonzero(d[ninf] != -np.inf))
            if sentinels:
                stored = enc.reshape(-1).view(sentinels[0].dtype)
                hit = np.zeros(stored.shape, dtype=bool)
                for s in sentinels:
                    hit |= stored == s
                r.collisions = int(np.count_nonzero(hit & valid))
            r.stored, r.chunks = self._compress(u, enc, fill)
            results.append(r)
        ref = Result(nbytes=values.nbytes)
        ref.stored, ref.chunks = self._compress(u, values, self.src.fill)
        return results, ref

    def _compress(self, u: Unit, enc: np.ndarray, fill: Any) -> tuple[int, int]:
        codecs = self.src.compressor.for_itemsize(enc.dtype.itemsize)
        total = 0
        for sl, padded, all_fill in u.chunks:
            if all_fill:
                continue  # zarr does not write a chunk that is all fill value
            chunk = enc[sl]
            if padded:
                full = np.full(self.src.chunks, fill, dtype=enc.dtype)
                full[tuple(slice(0, s.stop - s.start) for s in sl)] = chunk
                chunk = full
            data: Any = np.ascontiguousarray(chunk).view(np.uint8).reshape(-1)
            for codec in codecs:
                data = codec.encode(data)
            total += (data.nbytes if isinstance(data, np.ndarray) else len(data)) \
                + self.src.compressor.extra
        return total, len(u.chunks)


def measure(src: Source, candidates: list[Candidate], units: list[Unit], progress: bool
            ) -> tuple[list[Result], Result]:
    """The second pass: every candidate on every unit, on all CPUs; sums in unit order."""
    m = Measure(src, candidates)
    totals = [Result() for _ in candidates]
    ref = Result()
    bar = Progress(f"zcast advise: measuring {len(candidates)} encodings", len(units), progress)
    with ThreadPoolExecutor(max_workers=_workers(), thread_name_prefix="zcast-advise") as pool:
        for results, r in _ordered(pool, m.unit, units, bar):
            for t, part in zip(totals, results):
                t.add(part)
            ref.add(r)
    bar.end()
    return totals, ref
