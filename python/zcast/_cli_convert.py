"""zcast convert: rewrite a Zarr array with [scale_offset,] cast_value added.

What the command promises (README "Command line", docs/semantics-additions.md R27-R29):

* Nothing appears at DST until the new array is complete and checked: it is written into a
  temporary sibling directory (``.DST.zcast-partial-XXXX``) and renamed into place only on
  success. A failure, Ctrl-C or SIGTERM removes the temporary; SIGKILL or an OOM kill leaves it
  behind, hidden and named as partial, but never a plausible DST. SIGTERM is handled like SIGINT:
  one line on stderr, exit status 128 + signal number, no traceback.
* DST must not be SRC or lie inside it. An existing DST is refused unless --overwrite, which
  replaces it (only a Zarr node or an empty directory) after the new array is complete.
* Every element must read back (R28): one whose stored value cannot be decoded (e.g. clamped to
  32767 under scale 2 of an integer array, R24) fails the convert naming it.
* A valid element stored as a sentinel of the decode map reads back as that map's output (e.g.
  a value clamped to 0 under NaN <-> 0 reads back as NaN); that fails the convert, naming how
  many and the first one, unless --allow-sentinel-collisions (R27).
* Errors name the element by its index in the whole array and the chunk holding it (R29).
* A Zarr v2 source is converted to a Zarr v3 array (its data, shape, chunks, fill value and
  attributes; its v2 compressor is replaced by zarr-python's default for v3).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any


import zcast
from zcast._chain import OWNED_CODECS
from zcast._cli_common import (CliError, _add_cast_options, _codec_name, _error_stats, _human,
                               describe_os_error, nan_map_hint,
                               _is_numeric, _merge_stats, _parse_pair, _parse_scalar, _rms,
                               _stored_bytes)
from zcast._cli_convert_checks import RegionChecker, locate
from zcast._errors import CastError, MetadataError


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived: unwind, remove the temporary, exit 128 + signum."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _regions(shape: tuple[int, ...], block: tuple[int, ...]) -> list[tuple[slice, ...]]:
    ranges = [range(0, s, b) for s, b in zip(shape, block)]
    return [tuple(slice(o, min(o + b, s)) for o, b, s in zip(origin, block, shape))
            for origin in itertools.product(*ranges)]


def _progress(done: int, total: int, start: float) -> None:
    """A bar redrawn in place on a terminal. Elsewhere (a log, a pipe) no carriage returns: a
    plain line each time another tenth of the blocks is done, and only for a convert of ten
    blocks or more, so that a log holds a few readable lines."""
    elapsed = time.perf_counter() - start
    if not sys.stderr.isatty():
        if total >= 10 and done * 10 // total != (done - 1) * 10 // total:
            sys.stderr.write(f"zcast convert: {done}/{total} blocks, {elapsed:.1f} s\n")
            sys.stderr.flush()
        return
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} blocks "
                     f"{elapsed:.1f}s")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _convert_region(src: Any, dst: Any, region: tuple[slice, ...],
                    checker: RegionChecker) -> dict[str, Any]:
    """One block: checks it (R27, R28), writes it, reads it back for the statistics."""
    values = src[region]
    numeric = _is_numeric(values)
    result = checker.check(values, region) if numeric else {"collisions": 0, "first": None}
    try:
        dst[region] = values
    except CastError as err:  # a codec outside the chain: name the block at least
        raise CastError(f"block {locate(region)}: {err}", index=err.index) from None
    stats = ({"count": 0, "max_abs": 0.0, "sum_sq": 0.0, "nan_mismatch": 0} if not numeric
             else _error_stats(values, dst[region]))
    return {"stats": stats, **result}


def _copy_regions(src: Any, dst: Any, regions: list[tuple[slice, ...]], checker: RegionChecker,
                  stats: dict[str, float], start: float) -> dict[str, Any]:
    """Converts each region, one per task on two threads per CPU this process may use (zarr's
    compressors and zcast's casts release the GIL). Statistics are merged, and a failure raised,
    in region order, so the result and the error reported are those of a one-at-a-time copy.
    Returns the sentinel collisions: their count and the first (lowest flat index)."""
    from concurrent.futures import ThreadPoolExecutor

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    # Two blocks per CPU: while one waits for zarr's event loop or the disk, another computes.
    pool = ThreadPoolExecutor(max_workers=max(1, min(len(regions), 2 * (cpus or 1), 32)),
                              thread_name_prefix="zcast-convert")
    collisions = {"collisions": 0, "first": None}
    done = 0
    try:
        futures = [pool.submit(_convert_region, src, dst, region, checker) for region in regions]
        for done, future in enumerate(futures):
            part = future.result()
            _merge_stats(stats, part["stats"])
            collisions["collisions"] += part["collisions"]
            first = part["first"]
            if first is not None and (collisions["first"] is None
                                      or first["flat"] < collisions["first"]["flat"]):
                collisions["first"] = first
            _progress(done + 1, len(regions), start)
    except BaseException:
        if done and sys.stderr.isatty():
            sys.stderr.write("\n")  # end the progress bar's line before the error
        raise
    finally:
        # On failure or a signal: no writes after this returns (the temporary is removed next).
        pool.shutdown(wait=True, cancel_futures=True)
    return collisions


def _check_paths(src_path: Path, dst_path: Path, overwrite: bool) -> None:
    src_real, dst_real = src_path.resolve(), dst_path.resolve()
    if dst_real == src_real:
        raise CliError(f"DST {dst_path} is SRC itself; choose a new destination")
    if src_real in dst_real.parents:
        raise CliError(f"DST {dst_path} is inside SRC {src_path}; choose a destination outside it")
    if not dst_path.exists() and not dst_path.is_symlink():
        return
    if not overwrite:
        raise CliError(f"{dst_path} already exists; choose a new destination or pass "
                       f"--overwrite to replace it")
    if dst_real in src_real.parents:
        raise CliError(f"--overwrite would replace {dst_path}, which holds SRC {src_path}")
    if not dst_path.is_dir() or dst_path.is_symlink() or not (
            any((dst_path / n).exists() for n in ("zarr.json", ".zarray", ".zgroup"))
            or not any(dst_path.iterdir())):
        raise CliError(f"--overwrite replaces a Zarr array or group or an empty directory only; "
                       f"{dst_path} is neither")


_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class _SignalGuard:
    """SIGINT and SIGTERM while converting: before DST is in place, unwind (Interrupted);
    after, the array is complete and kept, so the signal is only remembered."""

    def __init__(self) -> None:
        self.committed = False
        self.pending: int | None = None

    def __call__(self, signum: int, frame: Any) -> None:
        if self.committed:
            self.pending = signum
            return
        for s in _SIGNALS:  # further ones are ignored while the temporary is removed
            signal.signal(s, signal.SIG_IGN)
        raise Interrupted(signum)

    def commit(self, move: Any) -> None:
        """Runs ``move`` (the rename into place) with both signals held back, so that DST
        either is not there or is there and counted as committed."""
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
        try:
            move()
            self.committed = True
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _SIGNALS)


def cmd_convert(args: argparse.Namespace) -> int:
    import zarr

    import zcast.zarr as zz

    src_path, dst_path = Path(args.src), Path(args.dst)
    _check_paths(src_path, dst_path, args.overwrite)
    guard, old = _SignalGuard(), {}
    try:
        for s in _SIGNALS:
            old[s] = signal.signal(s, guard)
    except ValueError:
        pass  # not the main thread (an embedding caller): its own signal handling stays
    try:
        with zz.use():  # the source's own scale_offset / cast_value are read by zcast too
            _convert(zarr, zz, src_path, dst_path, args, guard)
    except Interrupted as sig:
        name = signal.Signals(sig.signum).name
        print(f"zcast convert: interrupted by {name}; {dst_path} not written", file=sys.stderr)
        return 128 + sig.signum
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)
    if guard.pending is not None:
        print(f"zcast convert: {signal.Signals(guard.pending).name} arrived after {dst_path} "
              f"was complete; it is kept", file=sys.stderr)
        return 128 + guard.pending
    return 0


def _open_source(zarr: Any, src_path: Path) -> Any:
    try:
        return zarr.open_array(zarr.storage.LocalStore(src_path, read_only=True), mode="r")
    except Exception as err:  # noqa: BLE001 - zarr raises several types; one line
        what = describe_os_error(err) if isinstance(err, OSError) else str(err)
        raise CliError(f"cannot open {src_path} as a Zarr array: {what}") from None


def _new_filters(zz: Any, args: argparse.Namespace) -> list[Any]:
    encode_map = [list(p) for p in args.maps]
    decode_map = [list(p) for p in args.decode_maps]
    if encode_map and not decode_map and not args.one_way:
        decode_map = [[b, a] for a, b in encode_map]  # NaN=0 also reads 0 back as NaN
    scalar_map = None
    if encode_map or decode_map:
        scalar_map = {k: v for k, v in (("encode", encode_map), ("decode", decode_map)) if v}
    filters = []
    if args.scale is not None or args.offset is not None:
        filters.append(zz.ScaleOffset(offset=args.offset, scale=args.scale))
    filters.append(zz.CastValue(data_type=args.data_type, rounding=args.rounding,
                                out_of_range=args.out_of_range, scalar_map=scalar_map))
    return filters


def _layout(zarr: Any, src: Any) -> dict[str, Any]:
    """The new array's layout arguments for create_array. The source's own scale_offset /
    cast_value / fixedscaleoffset are replaced, not stacked: the values written are the decoded
    ones. A v3 source keeps its other filters, compressors and serializer; a v2 source (R29's
    companion: v2 is converted to v3) gets zarr's v3 defaults for them."""
    if src.metadata.zarr_format == 2:
        return {"dtype": src.metadata.dtype, "filters": [], "compressors": "auto",
                "serializer": "auto", "dimension_names": None, "replaced": []}
    kept = [f for f in src.filters if _codec_name(f.to_dict()) not in OWNED_CODECS]
    replaced = [_codec_name(f.to_dict()) for f in src.filters
                if _codec_name(f.to_dict()) in OWNED_CODECS]
    serializer = src.serializer if src.shards is None else "auto"
    if isinstance(serializer, zarr.codecs.BytesCodec) and serializer.endian is None:
        # The source's encoded type had one byte; the new one may have more.
        serializer = zarr.codecs.BytesCodec(endian="little")
    return {"dtype": src.metadata.data_type, "filters": kept, "compressors": src.compressors,
            "serializer": serializer, "dimension_names": src.metadata.dimension_names,
            "replaced": replaced}


def _convert(zarr: Any, zz: Any, src_path: Path, dst_path: Path, args: argparse.Namespace,
             guard: _SignalGuard) -> None:
    src = _open_source(zarr, src_path)
    new_filters = _new_filters(zz, args)
    layout = _layout(zarr, src)
    block = src.shards or src.chunks
    regions = _regions(src.shape, block)
    stats = {"count": 0, "max_abs": 0.0, "sum_sq": 0.0, "nan_mismatch": 0}
    start = time.perf_counter()
    dst_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dst_path.name}.zcast-partial-", dir=dst_path.parent))
    try:
        dst = zarr.create_array(
            zarr.storage.LocalStore(tmp), shape=src.shape, dtype=layout["dtype"],
            chunks=src.chunks, shards=src.shards, fill_value=src.fill_value,
            filters=[*layout["filters"], *new_filters],
            # zcast advise passes the compressor it measured for a source without one.
            compressors=getattr(args, "compressors", None) or layout["compressors"],
            serializer=layout["serializer"], attributes=dict(src.attrs),
            dimension_names=layout["dimension_names"], zarr_format=3, overwrite=True)
        checker = RegionChecker(new_filters, zcast.zarr_name(dst.metadata.data_type),
                                src.shape, src.chunks)
        collisions = _copy_regions(src, dst, regions, checker, stats, start)
        if collisions["collisions"] and not args.allow_sentinel_collisions:
            raise CliError(checker.collision_message(collisions) + "; pass "
                           "--allow-sentinel-collisions to write it anyway")
        guard.commit(lambda: _move_into_place(tmp, dst_path))
    except BaseException as err:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(err, (CliError, CastError, MetadataError, ValueError)):
            hint = nan_map_hint(str(err), args.data_type, args.maps) or _fill_hint(str(err), src, args)
            raise CliError(f"conversion failed, nothing written to {dst_path}: {err}{hint}") \
                from None
        raise  # Interrupted (reported by cmd_convert), OSError (by main), or a bug
    _report(src_path, dst_path, regions, new_filters, layout["replaced"], stats, collisions,
            checker, start)


def _fill_hint(message: str, src: Any, args: argparse.Namespace) -> str:
    """For a fill value that --scale / --offset take out of the stored type's range (R9): which
    fill value was checked, and why it is 0 for a sharded array whose own fill value is not."""
    if "fill_value" not in message or "(R9)" not in message or args.offset is None and \
            args.scale is None:
        return ""
    fill = src.fill_value
    if src.shards is not None and not (fill == 0):  # NaN != 0 too
        return ("; zarr-python checks the codecs inside a shard with a fill value of 0, not the "
                f"array's own ({fill}): choose --scale / --offset for which (0 - offset) * scale "
                f"is in the range of {args.data_type} and is not a --map sentinel")
    return (f"; the array's fill value {fill} is stored too: choose --scale / --offset for which "
            f"({fill} - offset) * scale is in the range of {args.data_type}")


def _move_into_place(tmp: Path, dst_path: Path) -> None:
    """Renames the finished array to DST (atomic on one file system); an existing DST, which
    _check_paths allowed under --overwrite, is moved aside first and removed after."""
    old = None
    if dst_path.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{dst_path.name}.zcast-old-", dir=dst_path.parent))
        os.replace(dst_path, old / "x")
    os.replace(tmp, dst_path)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _report(src_path: Path, dst_path: Path, regions: list[Any], new_filters: list[Any],
            replaced: list[Any], stats: dict[str, float], collisions: dict[str, Any],
            checker: RegionChecker, start: float) -> None:
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
    if collisions["collisions"]:
        print(f"  warning   {checker.collision_message(collisions)} "
              f"(allowed by --allow-sentinel-collisions)")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("convert", help="rewrite a Zarr array with cast_value (and scale_offset) "
                       "added",
                       description="Copies the Zarr array SRC (v3, or v2: converted to v3) to a "
                       "new array DST whose codecs gain a cast_value to --data-type, with --scale "
                       "/ --offset a scale_offset in front of it ([scale_offset, cast_value], "
                       "zcast's codecs), block by block with a progress bar, then reports the "
                       "chain, sizes and error statistics. The source's own scale_offset / "
                       "cast_value / numcodecs.fixedscaleoffset are replaced, not stacked. DST is "
                       "written in a temporary sibling directory and renamed into place only when "
                       "complete: on failure, Ctrl-C or SIGTERM nothing is left at DST. SRC is "
                       "only read. Every element must read back: one whose stored value cannot be "
                       "decoded, or a valid one stored as a decode-map sentinel (it would read "
                       "back as NaN, say), fails the convert. With --map and no --decode-map the "
                       "decode map is the inverse of the encode map (so --map NaN=0 also reads 0 "
                       "back as NaN) unless --one-way.")
    p.add_argument("src", metavar="SRC")
    p.add_argument("dst", metavar="DST", help="a new path outside SRC")
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
    p.add_argument("--allow-sentinel-collisions", action="store_true",
                   help="write the array even if valid elements are stored as a decode-map "
                   "sentinel and so read back as its output (e.g. NaN); they are counted in a "
                   "warning")
    p.add_argument("--overwrite", action="store_true",
                   help="replace an existing DST (a Zarr array or group, or an empty directory) "
                   "once the new array is complete")
    p.set_defaults(func=cmd_convert)
