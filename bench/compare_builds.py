#!/usr/bin/env python3
"""Old library against new, interleaved: two zcast_bench binaries run in turns (old, new, old,
new, ... for --rounds rounds) on the same cases and SIMD target, and the medians compared.

    bench/compare_builds.py --old-rev 1cbf992 --new build/release/bench/zcast_bench \\
        --filter 'cast/float32->' --target AVX2 --rounds 5

--old-rev REV builds the bench of git revision REV in /tmp/zcast-bench-REV (once; reused after),
or --old BIN takes a built binary. ZCAST_SIMD_TARGET=--target is set for both (a library that
knows fewer targets treats an unknown name as "best": revisions before the Highway port know
only "baseline", and their best is AVX2); --old-target sets the old side's alone, so that one
binary on two targets is compared the same way. Each run is one zcast_bench invocation over
every case of --filter; the report gives, per case, the medians over rounds of GB/s (read +
written, 1e9 bytes/s) and of the same-run ceiling ratio (bench/cast_bench.cc) for old and new,
and new/old of both medians. Interleaving puts both builds under the same machine drift; say the
machine load when quoting the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def build_revision(rev: str, jobs: int) -> Path:
    root = Path(tempfile.gettempdir()) / f"zcast-bench-{rev}"
    binary = root / "build" / "bench" / "zcast_bench"
    if binary.exists():
        return binary
    src = root / "src"
    src.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    subprocess.run(["cmake", "-S", str(src), "-B", str(root / "build"), "-G", "Ninja",
                    "-DCMAKE_BUILD_TYPE=Release", "-DZCAST_BUILD_TESTS=OFF",
                    "-DZCAST_BUILD_ORACLE_TESTS=OFF", "-DZCAST_BUILD_BENCHMARKS=ON"],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", str(root / "build"), "-j", str(jobs), "--target",
                    "zcast_bench"], check=True, stdout=subprocess.DEVNULL)
    return binary


def run_bench(binary: Path, filt: str, target: str | None, min_time: float) -> dict[str, dict]:
    env = dict(os.environ)
    if target:
        env["ZCAST_SIMD_TARGET"] = target
    else:
        env.pop("ZCAST_SIMD_TARGET", None)
    out = subprocess.run([str(binary), f"--benchmark_filter={filt}", "--benchmark_format=json",
                          f"--benchmark_min_time={min_time}"], env=env, check=True,
                         capture_output=True, text=True).stdout
    res = {}
    for b in json.loads(out)["benchmarks"]:
        if "GBps" in b:
            res[b["name"]] = {"GBps": b["GBps"], "ratio": b["ceiling_ratio"],
                              "label": b.get("label", "")}
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    old = ap.add_mutually_exclusive_group(required=True)
    old.add_argument("--old", type=Path, help="the old zcast_bench binary")
    old.add_argument("--old-rev", help="git revision to build the old bench from (in /tmp)")
    ap.add_argument("--new", type=Path, required=True, help="the new zcast_bench binary")
    ap.add_argument("--filter", default="cast/", help="--benchmark_filter regex (default: all)")
    ap.add_argument("--target", help="ZCAST_SIMD_TARGET for both runs (default: unset, the best)")
    ap.add_argument("--old-target", help="ZCAST_SIMD_TARGET for the old side only (default: "
                    "--target); with --old and --new the same binary, two targets of one build")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.3, help="--benchmark_min_time, seconds")
    ap.add_argument("--jobs", type=int, default=2, help="build parallelism for --old-rev")
    ap.add_argument("--json", type=Path, help="also write every run's figures here")
    args = ap.parse_args(argv)

    old_bin = args.old or build_revision(args.old_rev, args.jobs)
    runs: dict[str, list[dict]] = {"old": [], "new": []}
    old_target = args.old_target or args.target
    for r in range(args.rounds):
        for side, binary, target in (("old", old_bin, old_target), ("new", args.new, args.target)):
            runs[side].append(run_bench(binary, args.filter, target, args.min_time))
            print(f"round {r + 1}/{args.rounds} {side} done", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1))

    cases = [c for c in runs["new"][0] if all(c in run for run in runs["old"] + runs["new"])]
    targets = (f"target {args.target or '(best)'}" if old_target == args.target else
               f"old target {old_target or '(best)'}, new target {args.target or '(best)'}")
    print(f"{targets}, {args.rounds} interleaved rounds, medians; "
          f"old {old_bin}, new {args.new}\n")
    print("| case | old GB/s | new GB/s | new/old | old ratio | new ratio | new/old ratio | new kernel |")
    print("|---|---|---|---|---|---|---|---|")
    for c in cases:
        med = {s: {k: statistics.median(run[c][k] for run in runs[s]) for k in ("GBps", "ratio")}
               for s in runs}
        label = runs["new"][0][c]["label"].removeprefix("kernel=")
        print(f"| {c.removeprefix('cast/')} | {med['old']['GBps']:.1f} | {med['new']['GBps']:.1f} | "
              f"{med['new']['GBps'] / med['old']['GBps']:.2f} | {med['old']['ratio']:.2f} | "
              f"{med['new']['ratio']:.2f} | {med['new']['ratio'] / med['old']['ratio']:.2f} | "
              f"{label} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
