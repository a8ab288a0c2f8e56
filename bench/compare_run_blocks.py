"""Old against new: how zcast shares one large cast between threads, in one interleaved run.

    .venv/bin/python bench/compare_run_blocks.py [--old-rev REV] [--rounds 21] [--size 16Mi]

Loads python/zcast/_api.py as it was at REV (git show) and runs the installed zcast's conversions
of `zcast bench` with: zcast-1t; zcast-2t (the installed _run_blocks); zcast-2t-old (REV's
_run_blocks, swapped in for its calls only); and cast-value-rs, rounds interleaved as in
`zcast bench`. Reports median GB/s (bytes read + written) and the ratios the speed targets name
(docs/performance.md): two threads over cast-value-rs, and two threads over one.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

import zcast
from zcast import _api, _bench

ROOT = Path(__file__).resolve().parent.parent


def load_old_api(rev: str):
    text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:python/zcast/_api.py"],
                          check=True, capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp(prefix="zcast-old-api-")) / "_api_old.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("zcast._api_old", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def with_run_blocks(run_blocks, prepare):
    """An Impl.prepare whose timed calls run with `run_blocks` in place of the installed one."""
    def wrapped(conv, x):
        fn = prepare(conv, x)

        def run():
            saved = _api._run_blocks
            _api._run_blocks = run_blocks
            try:
                return fn()
            finally:
                _api._run_blocks = saved
        return run
    return wrapped


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--old-rev", default="1abddcf", help="revision of the old _api.py")
    p.add_argument("--rounds", type=int, default=21)
    p.add_argument("--size", default="16Mi")
    p.add_argument("--old-first", action="store_true",
                   help="time zcast-2t-old before zcast-2t in each round (the rounds rotate the "
                        "order, but the one after zcast-1t more often follows a one-thread call, "
                        "whose idle second vCPU a two-thread call then has to wake)")
    args = p.parse_args()
    old = load_old_api(args.old_rev)
    new2 = _bench.Impl("zcast-2t", True, _bench._zcast_impl(2))
    old2 = _bench.Impl("zcast-2t-old", True, with_run_blocks(old._run_blocks, _bench._zcast_impl(2)))
    impls = [
        _bench.Impl("zcast-1t", True, _bench._zcast_impl(1)),
        *((old2, new2) if args.old_first else (new2, old2)),
        _bench.Impl("cv-rs", True, _bench._cv_rs_prepare),
    ]
    res = _bench.run_bench(_bench.parse_size(args.size), args.rounds, impls=impls, threads=2)
    meta = res["meta"]
    print(f"{meta.get('cpu', '')}; old _run_blocks from {args.old_rev}; {args.rounds} rounds; "
          f"memcpy {meta['memcpy_GBps_before']} / {meta['memcpy_GBps_after']} GB/s before / after")
    print(f"{'conversion':28} {'1t':>6} {'2t':>6} {'2t-old':>6} {'cv-rs':>6} "
          f"{'2t/cv-rs':>8} {'old/cv-rs':>9} {'2t/1t':>6} {'old/1t':>6}")
    for conv in res["conversions"]:
        r = conv["results"]
        g = {k: r[k].get("GBps") for k in r}
        if not all(r[k].get("equal") in (True, None) for k in r):
            print(f"{conv['name']}: results differ", file=sys.stderr)
            return 1

        def ratio(a, b):
            return f"{g[a] / g[b]:.2f}x" if g.get(a) and g.get(b) else "-"

        cells = [f"{g[k]:6.2f}" if g.get(k) else f"{'-':>6}"
                 for k in ("zcast-1t", "zcast-2t", "zcast-2t-old", "cv-rs")]
        print(f"{conv['name']:28} {' '.join(cells)} {ratio('zcast-2t', 'cv-rs'):>8} "
              f"{ratio('zcast-2t-old', 'cv-rs'):>9} {ratio('zcast-2t', 'zcast-1t'):>6} "
              f"{ratio('zcast-2t-old', 'zcast-1t'):>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
