"""cast_array / cast_array_into: the cast_value procedure on numpy arrays.

Each call builds the cast_value codec metadata as JSON, lets the C++ core parse and bind it
(CastValueSpec::FromJson, CastValueCodec::Bind with the array's type and no fill value), and runs
its encode kernel. Bound codecs are cached per configuration, so a repeated call costs one dict
lookup before the kernel runs.
"""

from __future__ import annotations

import functools
import json
import math
import numbers
import os
import re
import threading
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np

from zcast import _dtypes, _zcast
from zcast._errors import CastError, MetadataError, brief

ScalarLike = int | float | str | np.generic
ScalarMapLike = Iterable[tuple[ScalarLike, ScalarLike]] | Mapping[ScalarLike, ScalarLike]

# Arrays at least this large are split into blocks cast by several threads (the core releases the
# GIL). Smaller ones are not worth a thread hand-off.
_PARALLEL_MIN_ELEMENTS = 1 << 20
# A large cast is cut into up to this many blocks per thread (of at least half the minimum above),
# so that a thread that starts late or runs slowly leaves its share to the others (_run_blocks).
_BLOCKS_PER_THREAD = 4
_threads = max(1, os.cpu_count() or 1)
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()  # guards creating / growing _pool


def _forget_pool_after_fork() -> None:
    """In a forked child: the parent's pool has no threads here (fork copies only the calling
    thread), yet its idle-worker count says it has, so a task submitted to it would wait forever.
    Drop it without shutting it down (that would wait for those threads, or take one of its locks,
    which a parent worker may have held at the fork) and start with a fresh lock; the next large
    cast builds a new pool in the child."""
    global _pool, _pool_lock
    _pool = None
    _pool_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_pool_after_fork)


def set_num_threads(n: int) -> None:
    """Sets how many threads cast one large array (default: the number of CPUs; 1 disables)."""
    global _threads
    if n < 1:
        raise ValueError(f"number of threads must be >= 1, got {brief(repr(n))}")
    _threads = int(n)


def json_scalar(value: Any) -> str:
    """The JSON text of one scalar_map entry or fill value.

    Python ints stay integers; floats keep their exact value and sign (``-0.0`` stays ``-0.0``,
    NaN and infinities become the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``); strings are
    passed on as JSON strings, so ``"NaN"`` or raw bits like ``"0x7e00"`` mean what the cast_value
    spec says. numpy and ml_dtypes scalars are converted exactly first.
    """
    if isinstance(value, (bool, np.bool_)):
        raise MetadataError(f"scalar {brief(repr(value))}: booleans are not cast_value scalars")
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, np.generic):
        # float16/32/64 and every ml_dtypes float widen to a Python float exactly; the sub-byte
        # ml_dtypes ints are not numbers.Integral, but they are integers.
        if _dtypes.is_integer(_dtypes.zarr_name(value.dtype)):
            return str(int(value))
        value = float(value)
    if isinstance(value, float):
        if math.isnan(value):
            return '"NaN"'
        if math.isinf(value):
            return '"Infinity"' if value > 0 else '"-Infinity"'
        return repr(value)  # shortest round-trip decimal; "-0.0" keeps the sign
    raise MetadataError(f"scalar {brief(repr(value))}: expected an int, a float or a JSON scalar "
                        "string")


def _pairs_json(pairs: ScalarMapLike) -> str:
    if isinstance(pairs, Mapping):
        pairs = pairs.items()
    out = []
    for i, pair in enumerate(pairs):
        try:
            key, value = pair
        except (TypeError, ValueError):
            raise MetadataError(
                f"scalar_map[{i}]: expected an (input, output) pair, got {brief(repr(pair))}"
            ) from None
        out.append(f"[{json_scalar(key)},{json_scalar(value)}]")
    return "[" + ",".join(out) + "]"


def codec_json(data_type: Any, *, rounding: str | None = "nearest-even",
               out_of_range: str | None = None, scalar_map: ScalarMapLike | None = None,
               decode_map: ScalarMapLike | None = None) -> str:
    """The cast_value codec metadata as JSON text, defaults omitted.

    ``scalar_map`` is the encode direction's list of (input, output) pairs, ``decode_map`` the
    decode direction's.
    """
    config = [f'"data_type":{json.dumps(_dtypes.zarr_name(data_type))}']
    if rounding is not None and rounding != "nearest-even":
        config.append(f'"rounding":{json.dumps(rounding)}')
    if out_of_range is not None:
        config.append(f'"out_of_range":{json.dumps(out_of_range)}')
    if scalar_map is not None or decode_map is not None:
        parts = []
        if scalar_map is not None:
            parts.append(f'"encode":{_pairs_json(scalar_map)}')
        if decode_map is not None:
            parts.append(f'"decode":{_pairs_json(decode_map)}')
        config.append('"scalar_map":{' + ",".join(parts) + "}")
    return '{"name":"cast_value","configuration":{' + ",".join(config) + "}}"


@functools.lru_cache(maxsize=64)
def parse_spec(spec_json: str) -> _zcast.Spec:
    """CastValueSpec::FromJson, cached on the JSON text."""
    return _zcast.Spec.from_json(spec_json)


@functools.lru_cache(maxsize=256)
def bind(spec_json: str, array_type: str, fill_value_json: str | None = None) -> _zcast.Codec:
    """CastValueCodec::Bind of the spec to an array type and fill value, cached per configuration.
    Bound codecs are immutable and thread-safe, so sharing them is safe."""
    return _zcast.Codec.bind(parse_spec(spec_json), array_type, fill_value_json)


@functools.lru_cache(maxsize=256)
def scalar_from_json(json_text: str, name: str) -> np.generic:
    """A JSON scalar (its text: ``'0'``, ``'"NaN"'``, ``'"0x7e00"'``, ...) as a value of the Zarr
    type ``name``, read by the core's own JSON scalar rules, exactly (NaN payloads and -0.0
    included): it is the output of the scalar_map entry ``[0, value]`` of a cast_value from int8,
    applied to a zero. Raises MetadataError naming the value if it is not one of the type."""
    spec = ('{"name":"cast_value","configuration":{"data_type":' + json.dumps(name) +
            ',"scalar_map":{"encode":[[0,' + json_text + ']]}}}')
    try:
        codec = bind(spec, "int8")
    except MetadataError as err:
        raise MetadataError(f"{brief(json_text)} is not a {name} value: {err}") from None
    out = np.empty(1, dtype=_dtypes.numpy_dtype(name))
    codec.encode(np.zeros(1, dtype=np.uint8), out.view(np.uint8))
    return out[0]


def _native_contiguous(arr: np.ndarray) -> np.ndarray:
    if not _dtypes.is_native_order(arr.dtype):
        arr = arr.astype(arr.dtype.newbyteorder("="))  # exact: a byte swap
    return np.ascontiguousarray(arr)


_ELEMENT_RE = re.compile(r"^element (\d+): ")


def _with_index(err: CastError, offset: int, shape: tuple[int, ...]) -> CastError:
    """Rewrites the core's "element N: ..." (N flat, C order) into a numpy index tuple."""
    message = str(err)
    m = _ELEMENT_RE.match(message)
    if not m:
        return CastError(message)
    flat = int(m.group(1)) + offset
    index = tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()
    return CastError(f"element {index}: {message[m.end():]}", index=index)


def run(fn: Callable[[Any, Any], None], src: np.ndarray, dst: np.ndarray, *,
        parallel: bool = True) -> None:
    """Runs a bound codec's encode or decode (``fn``) from ``src`` into ``dst`` (same shape, any
    layout). Raises CastError naming the first failing element's index tuple in ``src``.
    ``parallel=False`` keeps a large array in one call (one thread)."""
    if src.shape != dst.shape:
        raise ValueError(f"shape mismatch: source {src.shape}, destination {dst.shape}")
    shape = src.shape
    n = src.size
    if (n < _PARALLEL_MIN_ELEMENTS or not parallel) and src.flags.c_contiguous and \
            dst.flags.c_contiguous and _dtypes.is_native_order(src.dtype) and \
            _dtypes.is_native_order(dst.dtype):
        # A chunk-sized call: the binding reads both arrays in place and copies an overlapping
        # source itself, so nothing is made here.
        try:
            fn(src, dst)
        except CastError as err:
            if err.index is not None:
                raise
            raise _with_index(err, 0, shape) from None
        return
    src = _native_contiguous(src)
    direct = dst.flags.c_contiguous and _dtypes.is_native_order(dst.dtype)
    target = dst if direct else np.empty(shape, dtype=dst.dtype.newbyteorder("="))
    if direct and np.may_share_memory(src, target):
        src = src.copy()  # the core requires buffers that do not overlap
    src_bytes = src.reshape(-1).view(np.uint8)
    dst_bytes = target.reshape(-1).view(np.uint8)
    nthreads = 1
    if parallel and n >= _PARALLEL_MIN_ELEMENTS:
        nthreads = min(_threads, n // (_PARALLEL_MIN_ELEMENTS // 2))
    try:
        if nthreads <= 1:
            fn(src_bytes, dst_bytes)
        else:
            _run_blocks(fn, src_bytes, dst_bytes, n, nthreads, shape)
    except CastError as err:
        if err.index is not None:
            raise
        raise _with_index(err, 0, shape) from None
    if not direct:
        dst[...] = target


def _run_blocks(fn, src_bytes, dst_bytes, n, nthreads, shape) -> None:
    """Casts ``n`` elements on ``nthreads`` threads: the calling thread and ``nthreads - 1`` pool
    workers take blocks in index order from a shared counter until none is left.

    Why not one block per thread, each handed to a worker: on a VM a worker can start milliseconds
    late (its idle vCPU has to be woken) or run slowly, and with fixed halves the whole cast waits
    for it. Measured on a 2-vCPU Xeon (float32 -> uint8 clamp, 16 Mi elements, the second core idle
    before each call): 10.3 GB/s with two workers on fixed halves, below one thread's 10.8; 18.1 GB/s
    with the caller working and 8 blocks (docs/performance.md, "Two cores"). The caller taking part
    also saves one thread hand-off per call.
    """
    global _pool
    workers = nthreads - 1
    with _pool_lock:
        if _pool is None or _pool._max_workers < workers:  # noqa: SLF001 - sized lazily
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="zcast")
        pool = _pool
    in_size = src_bytes.size // n
    out_size = dst_bytes.size // n
    nblocks = max(nthreads, min(nthreads * _BLOCKS_PER_THREAD, n // (_PARALLEL_MIN_ELEMENTS // 2)))
    bounds = [n * i // nblocks for i in range(nblocks + 1)]
    lock = threading.Lock()
    taken = 0  # blocks handed out so far, in index order (guarded by lock)
    failed: dict[int, Exception] = {}  # block -> its error (guarded by lock)

    def work() -> None:
        nonlocal taken
        while True:
            with lock:
                # Blocks are handed out in index order, so once a block has failed every block not
                # yet handed out lies after it and cannot hold the first failing element: stop.
                if taken >= nblocks or failed:
                    return
                i = taken
                taken += 1
            lo, hi = bounds[i], bounds[i + 1]
            try:
                fn(src_bytes[lo * in_size:hi * in_size], dst_bytes[lo * out_size:hi * out_size])
            except Exception as exc:  # noqa: BLE001 - re-raised below, lowest block first
                with lock:
                    failed[i] = exc

    futures = [pool.submit(work) for _ in range(workers)]
    try:
        work()
    finally:
        # Also when the caller is interrupted (KeyboardInterrupt): hand out no more blocks and wait
        # for the workers, so that no thread writes into the output after this call has returned.
        # A worker that has not started yet is cancelled instead of waited for: it would take no
        # block, and waiting for its vCPU to wake would only delay the return.
        with lock:
            taken = nblocks
        for future in futures:
            if future.cancel():
                continue
            exc = future.exception()  # waits; work() itself keeps every Exception in failed
            if exc is not None:
                raise exc
    if failed:
        # Every block before the lowest failing one ran to the end: its error is the first failing
        # element of the whole array, as in a single-threaded run.
        i = min(failed)
        exc = failed[i]
        if isinstance(exc, CastError):
            raise _with_index(exc, bounds[i], shape) from None
        raise exc


@functools.lru_cache(maxsize=256)
def _plain_cast(dtype: Any, src_dtype: np.dtype, rounding: str,
                out_of_range: str | None) -> tuple[_zcast.Codec, np.dtype]:
    """The bound codec of a cast without a scalar_map and its numpy target, cached on the
    arguments themselves: building the JSON text and naming both types was most of a small call's
    time (1,024 elements)."""
    spec = codec_json(dtype, rounding=rounding, out_of_range=out_of_range)
    return bind(spec, _dtypes.zarr_name(src_dtype)), _dtypes.requested_dtype(dtype)


def _cast_codec(dtype: Any, src_dtype: np.dtype, rounding: str, out_of_range: str | None,
                scalar_map: ScalarMapLike | None) -> tuple[_zcast.Codec, np.dtype]:
    # Only keys whose equality is their meaning take the cache: a str, a numpy dtype (byte order
    # included) or a scalar type; anything else (a ZDType, a scalar_map) is resolved each time.
    if scalar_map is None and isinstance(dtype, (str, np.dtype, type)) and \
            isinstance(rounding, str) and (out_of_range is None or isinstance(out_of_range, str)):
        return _plain_cast(dtype, src_dtype, rounding, out_of_range)
    target = _dtypes.requested_dtype(dtype)  # TypeError for None; keeps a '>i2' byte order
    spec = codec_json(dtype, rounding=rounding, out_of_range=out_of_range, scalar_map=scalar_map)
    return bind(spec, _dtypes.zarr_name(src_dtype)), target


def cast_array(arr: Any, dtype: Any, *, rounding: str = "nearest-even",
               out_of_range: str | None = None,
               scalar_map: ScalarMapLike | None = None) -> np.ndarray:
    """Casts every element of ``arr`` to ``dtype`` exactly as the cast_value codec encodes it.

    ``dtype`` is a Zarr type name (``"float8_e4m3"``, ``"uint8"``, ...) or a numpy / ml_dtypes
    dtype. ``rounding`` is one of nearest-even, nearest-away, towards-zero, towards-positive,
    towards-negative; ``out_of_range`` is None (error), "clamp" or "wrap" (integer targets only);
    ``scalar_map`` is a list of (input, output) pairs (numbers or JSON scalar strings such as
    ``"NaN"``, ``"-Infinity"`` or ``"0x7e00"``), or a dict, applied before anything else.

    A numpy dtype or type string with a byte order (``">i2"``) gives the result in that byte
    order (the values are the same). Returns a new C-contiguous array of the input's shape.
    Raises TypeError if ``dtype`` is None (numpy would read None as float64), CastError (a
    ValueError) naming the first failing element's index, value, types and reason, MetadataError
    for an invalid configuration. The GIL is released while casting.
    """
    src = np.asarray(arr)
    codec, target = _cast_codec(dtype, src.dtype, rounding, out_of_range, scalar_map)
    out = np.empty(src.shape, dtype=target)
    run(codec.encode, src, out)
    return out


def cast_array_into(arr: Any, out: np.ndarray, *, rounding: str = "nearest-even",
                    out_of_range: str | None = None,
                    scalar_map: ScalarMapLike | None = None) -> np.ndarray:
    """Like cast_array, but writes into ``out`` (same shape; its dtype is the target type; any
    layout). Returns ``out``. On CastError the contents of ``out`` are unspecified."""
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out must be a numpy array, got {type(out).__name__}")
    if not out.flags.writeable:
        raise ValueError("out is read-only")
    src = np.asarray(arr)
    codec, _ = _cast_codec(out.dtype, src.dtype, rounding, out_of_range, scalar_map)
    run(codec.encode, src, out)
    return out
