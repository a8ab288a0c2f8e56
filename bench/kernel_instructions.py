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

aarch64 (--qemu CPU): valgrind cannot run the ARM targets here, so qemu-aarch64-static counts them,
one guest instruction per translation block (-singlestep) with every execution logged (-d
exec,nochain); the difference between the two repetition counts is taken as above. It counts the
whole process, not only Run (the timer's calls between runs add a few hundredths per element),
and it is a count, not a speed (qemu proves results, never speed). The binary is cross-built:

    aarch64-linux-gnu-g++ -O2 -std=c++20 -I include -I src -I build/aarch64/include \
        bench/kernel_loop.cc build/aarch64/libzcast.a -lhwy -o /tmp/kl_arm
    bench/kernel_instructions.py --qemu max,sve=off --target NEON --pair float8_e4m3 float8_e5m2 0 0 /tmp/kl_arm
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

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


def count_qemu(binary: str, pair: list[str], reps: int, target: str, cpu: str) -> tuple[int, str]:
    env = dict(os.environ, ZCAST_SIMD_TARGET=target, QEMU_LD_PREFIX="/usr/aarch64-linux-gnu")
    fd, log = tempfile.mkstemp(prefix="zcast-qemu-exec-", suffix=".log")
    os.close(fd)
    try:
        cmd = ["qemu-aarch64-static", "-cpu", cpu, "-singlestep", "-d", "exec,nochain", "-D", log,
               binary, *pair, str(ELEMENTS), str(reps)]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"{binary}: failed under qemu ({out.returncode}):\n{(out.stdout + out.stderr)[-2000:]}")
        with open(log, "rb") as f:
            executed = sum(1 for line in f if line.startswith(b"Trace"))
    finally:
        os.remove(log)
    kernel = next((line.split()[0] for line in out.stdout.splitlines() if "GB/s" in line), "?")
    return executed, kernel


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", default="AVX2", help="ZCAST_SIMD_TARGET (default AVX2)")
    ap.add_argument("--pair", nargs=4, required=True, metavar=("SRC", "DST", "ROUNDING", "OUT_OF_RANGE"),
                    help="as zcast_kernel_loop takes them (rounding 0-4, out_of_range 0-2)")
    ap.add_argument("binaries", nargs="+", help="zcast_kernel_loop builds")
    ap.add_argument("--qemu", metavar="CPU", help="count an aarch64 build under qemu-aarch64-static -cpu CPU "
                    "(e.g. max,sve=off for NEON)")
    args = ap.parse_args()
    tool = "qemu-aarch64-static" if args.qemu else "valgrind"
    if shutil.which(tool) is None:
        sys.exit(f"kernel_instructions.py: {tool} not found (Debian: apt-get install "
                 f"{'qemu-user-static' if args.qemu else 'valgrind'})")
    for binary in args.binaries:
        if args.qemu:
            lo, kernel = count_qemu(binary, args.pair, 2, args.target, args.qemu)
            hi, _ = count_qemu(binary, args.pair, 12, args.target, args.qemu)
        else:
            lo, kernel = count(binary, args.pair, 2, args.target)
            hi, _ = count(binary, args.pair, 12, args.target)
        per = (hi - lo) / (10 * RUNS_PER_REP * ELEMENTS)
        print(f"{' '.join(args.pair):34s} {kernel:34s} {per:6.2f} instructions/element  ({binary})")


if __name__ == "__main__":
    main()
