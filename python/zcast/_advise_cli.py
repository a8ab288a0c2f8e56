"""zcast advise: the cast_value / scale_offset encoding of a Zarr array that meets an error bound
in the fewest stored bytes, measured on the data (zcast._advise), as a ranked table or JSON, a
plot, and the `zcast convert` command that applies it (--write runs that convert)."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Any

from zcast._cli_common import CliError


def _fraction(text: str) -> float:
    try:
        f = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction, got {text!r}") from None
    if not 0 < f <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {text}")
    return f


def _bound(text: str) -> float:
    try:
        f = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (f >= 0 and f != float("inf")):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text}")
    return f


def _write(advice: Any, src: str, dst: str) -> int:
    """Runs `zcast convert SRC DST` with the recommended encoding's options (the same atomic
    convert: nothing at DST unless it completes)."""
    from zcast import _cli_convert, cli

    options = advice.recommended["convert_options"]
    ns = cli.build_parser().parse_args(cli._join_option_values(["convert", src, dst, *options]))
    if advice.source["compressors"] and advice.source.get("compressor_added"):
        ns.compressors = advice.source["compressors"]
    print(f"writing {dst} with zcast convert {' '.join(map(shlex.quote, options))}")
    return _cli_convert.cmd_convert(ns)


def cmd_advise(args: argparse.Namespace) -> int:
    from zcast import _advise, _advise_report

    if args.plot:  # fail before the measuring, not after it
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise CliError("--plot needs matplotlib: pip install matplotlib "
                           "(or pip install 'zcast[advise]')") from None
    try:
        advice = _advise.advise(args.src, max_abs_error=args.max_abs_error,
                                max_rel_error=args.max_rel_error, sample=args.sample,
                                progress=not args.quiet)
    except ValueError as err:
        raise CliError(str(err)) from None
    if args.json:
        print(json.dumps(advice.to_json(), indent=2, allow_nan=False))
    else:
        print(advice.table())
    if args.plot:
        _advise_report.plot(advice, args.plot)
        if not args.json:
            print(f"\nplot: {args.plot}")
    rec = advice.recommended
    if rec is None:
        closest = min((c for c in advice.candidates if c[f"max_{advice.bound.kind}_error"]
                       is not None), key=lambda c: c[f"max_{advice.bound.kind}_error"],
                      default=None)
        hint = "" if closest is None else (
            f"; the closest is {closest['label']} with max {advice.bound.kind} error "
            f"{closest[f'max_{advice.bound.kind}_error']:.3g}")
        raise CliError(f"no candidate encoding meets {advice.bound.option()}{hint}"
                       + (f" ({len(advice.candidates)} measured, {len(advice.ruled_out)} ruled "
                          f"out)") + "; keep the array as it is or loosen the bound")
    if not args.json:
        print()
        print(f"recommended: {rec['label']} ({rec['stored_bytes']} bytes"
              + (" estimated" if advice.basis["sampled"] else "") + ")")
        print("codecs: " + json.dumps(rec["codecs"]))
        print("apply: " + advice.convert_command(args.src, args.write or "DST"))
    if args.write:
        sys.stdout.flush()
        return _write(advice, args.src, args.write)
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("advise", help="the cast_value / scale_offset encoding that meets an error "
                       "bound in the fewest stored bytes, measured on the data",
                       description="Measures, on the Zarr array SRC, every cast_value data type "
                       "that can hold its data (the narrower floating-point types, clamped only "
                       "where clamping stays within the bound) and scale_offset + every integer "
                       "type (the largest step that meets the bound; decimal scales where the "
                       "data is decimal), with NaN / Infinity sentinels no valid value reaches: "
                       "each element's exact error, whether NaN / Inf survive, the stored bytes "
                       "after the array's own compressor (zstd when it has none), and encode / "
                       "decode throughput. Prints them ranked (meeting the bound first, then by "
                       "stored bytes), the recommended encoding's codecs and the zcast convert "
                       "command that applies it. Exit status 1 when no encoding meets the bound.")
    p.add_argument("src", metavar="SRC", help="a Zarr array (v3 or v2)")
    bound = p.add_mutually_exclusive_group(required=True)
    bound.add_argument("--max-abs-error", type=_bound, metavar="E",
                       help="every valid element within E of its value")
    bound.add_argument("--max-rel-error", type=_bound, metavar="R",
                       help="every valid element within R times its magnitude")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--plot", metavar="FILE.png",
                   help="draw stored size against error for every candidate (needs matplotlib)")
    p.add_argument("--sample", type=_fraction, metavar="FRACTION",
                   help="measure a random fraction of the chunks (e.g. 0.05) instead of all; the "
                   "basis of the estimate is printed")
    p.add_argument("--write", metavar="DST",
                   help="convert SRC to DST with the recommended encoding (zcast convert)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_advise)
