"""zcast cast: cast a raw binary or .npy file, exactly as cast_value encodes.

Byte order: --from and --to accept numpy type strings with a byte order ('>f8', '<u2'); raw
input is read in that order (native without one) and raw output written in it. A .npy file
carries its own byte order.

.npy files of the types numpy lacks (bfloat16, float8/6/4, int2/int4/uint2/uint4): numpy's own
np.save writes them as opaque bytes ('<V2'), which np.load cannot turn back into the type. zcast
writes the ml_dtypes type name as the header's descr instead ('bfloat16', 'float8_e4m3', ...), so
``import ml_dtypes; np.load(path)`` returns the ml_dtypes dtype (without ml_dtypes imported numpy
says "data type 'bfloat16' not understood"). An opaque '<V1' / '<V2' .npy written by np.save is
read as input when --from names a type of that size.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

import zcast
from zcast import _dtypes
from zcast._cli_common import CliError, _add_cast_options, _human, nan_map_hint, plural
from zcast._errors import CastError


def _read_input(path: Path, from_type: str | None) -> np.ndarray:
    if path.suffix == ".npy":
        data = np.load(path, allow_pickle=False)
        if from_type is None:
            return data
        want = _dtypes.requested_dtype(from_type)
        if data.dtype.kind == "V" and data.dtype.fields is None:
            # np.save of an ml_dtypes array: the bytes without their type; --from gives it.
            if data.dtype.itemsize != want.itemsize:
                raise CliError(f"{path} holds opaque {data.dtype.itemsize}-byte elements, "
                               f"{from_type} has {want.itemsize} bytes")
            return data.view(want)
        if _dtypes.zarr_name(from_type) != _dtypes.zarr_name(data.dtype):
            raise CliError(f"{path} holds {_dtypes.zarr_name(data.dtype)}, not {from_type}")
        return data
    if from_type is None:
        raise CliError("--from is required for raw input (only .npy files carry their type)")
    dtype = _dtypes.requested_dtype(from_type)
    size = path.stat().st_size
    if size % dtype.itemsize:
        raise CliError(f"{path} has {plural(size, 'byte')}, not a whole number of {from_type} "
                       f"elements "
                       f"({dtype.itemsize} bytes each): "
                       f"{plural(size // dtype.itemsize, 'element')} and "
                       f"{plural(size % dtype.itemsize, 'byte')} left over")
    return np.fromfile(path, dtype=dtype)


def save_npy(path: Path, arr: np.ndarray) -> None:
    """np.save, except that an ml_dtypes array's header names its type (see the module doc)."""
    name = _dtypes.zarr_name(arr.dtype)
    if _dtypes.is_numpy_native(name):
        np.save(path, arr, allow_pickle=False)
        return
    arr = np.ascontiguousarray(arr)
    header = {"descr": name, "fortran_order": False, "shape": arr.shape}
    with open(path, "wb") as f:
        np.lib.format.write_array_header_1_0(f, header)
        f.write(arr.tobytes())


def cmd_cast(args: argparse.Namespace) -> int:
    src_path, dst_path = Path(args.input), Path(args.output)
    data = _read_input(src_path, args.from_type)
    t0 = time.perf_counter()
    try:
        out = zcast.cast_array(data, args.to_type, rounding=args.rounding,
                               out_of_range=args.out_of_range, scalar_map=args.maps or None)
    except CastError as err:
        hint = nan_map_hint(str(err), args.to_type, args.maps)
        if not hint:
            raise
        raise CastError(f"{err}{hint}", index=err.index) from None
    dt = time.perf_counter() - t0
    if dst_path.suffix == ".npy":
        save_npy(dst_path, out)
    else:
        out.tofile(dst_path)
    print(f"cast {data.size} elements {_dtypes.zarr_name(data.dtype)} -> {args.to_type} "
          f"({args.rounding}{', ' + args.out_of_range if args.out_of_range else ''}) "
          f"in {dt * 1e3:.1f} ms: wrote {dst_path} ({_human(out.nbytes)})")
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("cast", help="cast a raw binary or .npy file",
                       description="Casts every element of IN (a .npy file, or raw binary with "
                       "--from) to --to, exactly as cast_value encodes, and writes OUT (.npy if "
                       "the name ends in .npy, raw binary otherwise). Raw files are in native "
                       "byte order unless the type says otherwise ('>f8', '<u2'). .npy output "
                       "of bfloat16 / float8 / ... names the ml_dtypes type in its header: "
                       "np.load reads it back once ml_dtypes is imported.")
    p.add_argument("--from", dest="from_type", metavar="S",
                   help="input data type (required for raw input; a numpy string such as '>f8' "
                   "gives the byte order)")
    p.add_argument("--to", dest="to_type", metavar="T", required=True,
                   help="output data type ('>i2': big-endian output)")
    _add_cast_options(p)
    p.add_argument("input", metavar="IN")
    p.add_argument("output", metavar="OUT")
    p.set_defaults(func=cmd_cast)
