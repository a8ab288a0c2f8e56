"""The zcast command-line tool.

    zcast demo                      cast_value on built-in sample data: sizes, errors, speed
    zcast cast --from S --to T IN OUT     cast a raw binary or .npy file
    zcast inspect PATH              a Zarr array's codec chain, data type and fill value per step
    zcast convert SRC DST --data-type T [--scale S --offset O]
                                    rewrite a Zarr array with [scale_offset,] cast_value added
    zcast sample-eopf DIR           write a small EOPF-like Sentinel-2 product (zarr-python's codecs)
    zcast bench [--size N] [--json] [--quick]   zcast beside the other implementations: GB/s

Each subcommand has --help and lives in its own module (zcast._cli_demo, _cli_cast,
_cli_inspect, _cli_convert; zcast._bench), with the shared helpers in zcast._cli_common; this
module builds the parser and runs the command. Exit status: 0 on success, 1 when a cast or the
metadata fails, 2 for usage errors, 128 + N when signal N interrupted a convert.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

import zcast
from zcast import _cli_cast, _cli_convert, _cli_demo, _cli_inspect
from zcast._cli_common import CliError, _table
from zcast._samples import SEED as _SAMPLE_SEED  # numpy only: zarr is imported when writing
from zcast._errors import CastError, MetadataError

# Options whose value may begin with "-" (--map -1=255, --offset -1e3): argparse would take
# such a value for an option, so main() joins them to their option first (--map=-1=255).
_VALUE_OPTIONS = ("--map", "--decode-map", "--scale", "--offset")


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



# --------------------------------------------------------------------------------------------
# entry point


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zcast", description="The exact Zarr v3 cast_value codec: demo, casts, inspection "
        "and conversion of Zarr arrays.")
    parser.add_argument("--version", action="version", version=f"zcast {zcast.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    _cli_demo.add_parser(sub)
    _cli_cast.add_parser(sub)
    _cli_inspect.add_parser(sub)
    _cli_convert.add_parser(sub)

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

    # zcast conformance (issue 13) registers here: _conformance.add_parser(sub)

    from zcast import _bench  # zcast bench: the side-by-side benchmark (its own module)
    _bench.add_parser(sub)
    return parser


def _join_option_values(argv: Sequence[str]) -> list[str]:
    """``--map -1=255`` -> ``--map=-1=255`` (see _VALUE_OPTIONS); everything else unchanged."""
    out: list[str] = []
    it = iter(argv)
    for arg in it:
        if arg in _VALUE_OPTIONS:
            value = next(it, None)
            out.append(arg if value is None else f"{arg}={value}")
        elif arg == "--":
            out.append(arg)
            out.extend(it)
        else:
            out.append(arg)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(_join_option_values(sys.argv[1:] if argv is None else argv))
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
