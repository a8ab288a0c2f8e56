"""The zcast command-line tool.

    zcast demo                      cast_value on built-in sample data: sizes, errors, speed
    zcast cast --from S --to T IN OUT     cast a raw binary or .npy file
    zcast inspect PATH              a Zarr array's codec chain, data type and fill value per step
    zcast convert SRC DST --data-type T [--scale S --offset O]
                                    rewrite a Zarr array with [scale_offset,] cast_value added
    zcast advise SRC --max-abs-error E   the encoding that meets an error bound in the fewest
                                    stored bytes, measured on the data (zcast._advise*)
    zcast sample-eopf DIR           write a Sentinel-2 product in the EOPF layout (zarr-python's codecs)
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
from zcast._cli_common import CliError, _table, describe_os_error
from zcast._samples import SEED as _SAMPLE_SEED  # numpy only: zarr is imported when writing
from zcast._errors import CastError, MetadataError

# Options whose value may begin with "-" (--map -1=255, --offset -1e3): argparse would take
# such a value for an option, so main() joins them to their option first (--map=-1=255).
_VALUE_OPTIONS = ("--map", "--decode-map", "--scale", "--offset")


# --------------------------------------------------------------------------------------------
# zcast sample-eopf



def cmd_sample_eopf(args: argparse.Namespace) -> int:
    from zcast import _samples  # the command lives with the sample it writes

    try:
        return _samples.sample_eopf_command(args.dir, size=args.size, seed=args.seed)
    except _samples.SampleError as e:
        raise CliError(str(e)) from None



# --------------------------------------------------------------------------------------------
# entry point


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zcast", description="The exact Zarr v3 cast_value codec: demo, casts, inspection "
        "and conversion of Zarr arrays.")
    parser.add_argument("--version", action="version", version=f"zcast {zcast.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    zcast._info.add_parser(sub)  # zcast info: version and SIMD targets

    _cli_demo.add_parser(sub)
    _cli_cast.add_parser(sub)
    _cli_inspect.add_parser(sub)
    _cli_convert.add_parser(sub)
    __import__("zcast._advise_cli")._advise_cli.add_parser(sub)  # zcast advise (own modules)

    p = sub.add_parser("sample-eopf", help="write a synthetic Sentinel-2 product in the EOPF "
                       "layout with zarr-python's own scale_offset and cast_value",
                       description="Writes a deterministic, synthetic Sentinel-2 L2A product in "
                       "the exact layout of EOPF Zarr products into the new directory DIR: float32 "
                       "reflectance bands at 10, 20 and 60 m with NaN no-data, each one shard "
                       "(sharding_indexed, crc32c index) of inner chunks stored as scale_offset + "
                       "cast_value to uint16 (NaN <-> 0), bytes and blosc zstd, with partial edge "
                       "chunks and inner chunks never written. The codecs used are zarr-python's "
                       "own, so zcast's readers are checked on data they did not write.")
    p.add_argument("dir", metavar="DIR", help="the product directory to create")
    p.add_argument("--size", choices=("small", "full"), default="small",
                   help="small (default): seconds to write; full: the real 10980 x 10980 bands")
    p.add_argument("--seed", type=int, default=_SAMPLE_SEED,
                   help="data seed (default: %(default)s)")
    p.set_defaults(func=cmd_sample_eopf)

    # zcast conformance registers here: _conformance.add_parser(sub)

    from zcast import _bench  # zcast bench: the side-by-side benchmark (its own module)
    _bench.add_parser(sub)
    __import__("zcast._conformance")._conformance.add_parser(sub)  # zcast conformance (own module)
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
    except OSError as err:
        print(f"zcast {args.command}: {describe_os_error(err)}", file=sys.stderr)
    except ValueError as err:
        print(f"zcast {args.command}: {err}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
