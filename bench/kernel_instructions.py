#!/usr/bin/env python3
"""Instructions per element of one kernel, counted by valgrind (callgrind), for one or more
zcast_kernel_loop binaries side by side.

    bench/kernel_instructions.py --target AVX2 --pair float32 uint8 0 1 \\
        build/release/bench/zcast_kernel_loop /tmp/kl_old

Why: on these shared machines an in-cache timing of the same binary moves by 10-50 % between
runs, while callgrind's count of the instructions a kernel executes is the same every time (it
counts, it does not time). So two builds' kernels can be compared exactly on the work they do
per element, which is what decides their speed when they are compute-bound (in cache, or on a
fast memory path); streaming speed is still measured by zcast_bench (bench/compare_builds.py).

Method: each binary runs the pair on 4096 elements with 2 and with 12 repetitions (20 runs of
the kernel per repetition, bench/kernel_loop.cc), counting only inside the kernels' Run
functions (--toggle-collect='*BlockKernel*::Run*': the set-up, the reference path's binding and
the timer do not count); the difference over the 10 extra repetitions, divided by 200 runs and
4096 elements, is the kernel's instructions per element, its tail and per-run set-up included.
valgrind runs the x86 targets up to AVX2 (it has no AVX-512: ZCAST_SIMD_TARGET=AVX3 runs AVX2).

The hand-written AVX2 kernels (revision 1cbf992) have the same internal API, so
bench/kernel_loop.cc builds against that revision's static library too:

    g++ -O2 -std=c++20 -I SRC/include -I SRC/src bench/kernel_loop.cc BUILD/libzcast.a -o /tmp/kl_old

(SRC/BUILD: bench/compare_builds.py --old-rev 1cbf992 leaves them in /tmp/zcast-bench-1cbf992.)
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

ELEMENTS = 4096
RUNS_PER_REP = 20  # bench/kernel_loop.cc


def count(binary: str, pair: list[str], reps: int, target: str) -> tuple[int, str]:
    env = dict(os.environ, ZCAST_SIMD_TARGET=target)
    cmd = ["valgrind", "--tool=callgrind", "--toggle-collect=*BlockKernel*::Run*",
           "--callgrind-out-file=/dev/null", binary, *pair, str(ELEMENTS), str(reps)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True)
    text = out.stdout + out.stderr
    m = re.search(r"Collected : (\d+)", text)
    if out.returncode != 0 or not m:
        sys.exit(f"{binary}: failed ({out.returncode}):\n{text[-2000:]}")
    kernel = next((line.split()[0] for line in out.stdout.splitlines() if "GB/s" in line), "?")
    return int(m.group(1)), kernel


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", default="AVX2", help="ZCAST_SIMD_TARGET (default AVX2)")
    ap.add_argument("--pair", nargs=4, required=True, metavar=("SRC", "DST", "ROUNDING", "OUT_OF_RANGE"),
                    help="as zcast_kernel_loop takes them (rounding 0-4, out_of_range 0-2)")
    ap.add_argument("binaries", nargs="+", help="zcast_kernel_loop builds")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("kernel_instructions.py: valgrind not found (Debian: apt-get install valgrind)")
    for binary in args.binaries:
        lo, kernel = count(binary, args.pair, 2, args.target)
        hi, _ = count(binary, args.pair, 12, args.target)
        per = (hi - lo) / (10 * RUNS_PER_REP * ELEMENTS)
        print(f"{' '.join(args.pair):34s} {kernel:34s} {per:6.2f} instructions/element  ({binary})")


if __name__ == "__main__":
    main()
