"""``zcast info``: the version, the SIMD target in use and the targets compiled and supported.

The target is Highway's name (SSE4, AVX2, AVX3, AVX3_DL, NEON, SVE, ...; ``baseline`` for the
portable loops alone): the best the CPU supports, capped by the environment variable
``ZCAST_SIMD_TARGET=NAME``, decided once per process.
"""

from __future__ import annotations

import argparse
import os

from zcast import _zcast


def simd_target() -> str:
    """The SIMD target this process's kernels use, e.g. ``"AVX2"``."""
    return _zcast.simd_target()


def simd_targets(supported: bool = False) -> list[str]:
    """The SIMD targets compiled into zcast (or, with ``supported=True``, those this CPU runs),
    worst first, ``"baseline"`` first."""
    return _zcast.simd_targets_supported() if supported else _zcast.simd_targets_compiled()


def _cap_note(cap: str | None) -> str:
    """What ZCAST_SIMD_TARGET did to the target in use, as the core applies it (case-insensitive
    Highway names; a name that is no compiled target is ignored, with a warning from the core)."""
    if not cap:
        return ""
    if cap.upper() not in (t.upper() for t in simd_targets()):
        return f" (ZCAST_SIMD_TARGET={cap} ignored: no compiled target has that name)"
    if simd_target() != simd_targets(supported=True)[-1]:
        return f" (capped by ZCAST_SIMD_TARGET={cap})"
    return f" (the best this CPU supports; ZCAST_SIMD_TARGET={cap} does not lower it)"


def cmd_info(args: argparse.Namespace) -> int:
    import zcast

    print(f"zcast {zcast.__version__}")
    print(f"SIMD target: {simd_target()}{_cap_note(os.environ.get('ZCAST_SIMD_TARGET'))}")
    print("compiled targets: " + " ".join(simd_targets()))
    print("supported targets: " + " ".join(simd_targets(supported=True)))
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("info", help="print the version and the SIMD targets",
                       description="Prints zcast's version, the SIMD target its kernels use "
                       "(the best this CPU supports, capped by ZCAST_SIMD_TARGET=NAME), and the "
                       "targets compiled and supported, by Highway's names.")
    p.set_defaults(func=cmd_info)
