"""Reading one band of the EOPF-layout sample, four ways, interleaved (docs/performance.md,
"Reading a full Sentinel-2 band"):

  c1, c2     examples/reader (zcast_read_chunk) on 1 and 2 threads, OUT on /dev/shm: the wall
             time of a plain run, the split of the time from a second run with --timing
  zarr       zarr-python 3.4.2 with its own ScaleOffset and CastValue
  zarr+zcast zarr-python with zcast's codecs (zcast.zarr.use())

    python bench/eopf_read.py PRODUCT.zarr [--band measurements/reflectance/r10m/b02]
                              [--repeat 5] [--reader build/release/zcast_read_chunk]

Write the product first: zcast sample-eopf /tmp/S2.zarr --size full. Each round runs every
variant once (in a rotated order), so that a change of machine load hits all of them; the table
gives the median and the range over rounds, and the C reader's own split of its thread time
(read / decompress / zcast / other; the first touch of the output buffer, which --timing does
before decoding, is given on its own). The C reader's wall time includes parsing zarr.json and
writing OUT to /dev/shm (its timing line gives both); zarr-python's includes opening the array.
Every variant's result is checked bit for bit against the first zarr-python read.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import zarr

REPO = Path(__file__).resolve().parents[1]
OWN = {"codecs.cast_value": "zarr.codecs.cast_value.CastValue",
       "codecs.scale_offset": "zarr.codecs.scale_offset.ScaleOffset"}
TIMING = re.compile(r"decode ([\d.]+) s wall \(read ([\d.]+) s, decompress ([\d.]+) s, zcast "
                    r"([\d.]+) s, other ([\d.]+) s.*first touch of the output of ([\d.]+) s, "
                    r"write OUT ([\d.]+) s")


def read_zarr(path: Path, use_zcast: bool) -> tuple[float, np.ndarray]:
    import zcast.zarr as zz
    t = time.perf_counter()
    if use_zcast:
        with zz.use():
            a = zarr.open_array(zarr.storage.LocalStore(path, read_only=True), mode="r")[...]
    else:
        with zarr.config.set(OWN):
            a = zarr.open_array(zarr.storage.LocalStore(path, read_only=True), mode="r")[...]
    return time.perf_counter() - t, a


def read_c(reader: Path, path: Path, threads: int, out: Path) -> tuple[float, dict, np.ndarray]:
    """The wall time of a plain run, then the split of a --timing run (which first touches the
    output buffer: a different wall time, so not the one reported)."""
    t = time.perf_counter()
    subprocess.run([str(reader), "--threads", str(threads), str(path), str(out)], check=True)
    wall = time.perf_counter() - t
    proc = subprocess.run([str(reader), "--threads", str(threads), "--timing", str(path), str(out)],
                          capture_output=True, text=True, check=True)
    m = TIMING.search(proc.stderr)
    parts = dict(zip(("decode", "read", "decompress", "zcast", "other", "touch", "write"),
                     map(float, m.groups())))
    data = np.fromfile(out, dtype=np.float32)
    out.unlink()
    return wall, parts, data


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("product", type=Path)
    ap.add_argument("--band", default="measurements/reflectance/r10m/b02")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--reader", type=Path, default=REPO / "build" / "release" / "zcast_read_chunk")
    args = ap.parse_args()
    path = args.product / args.band
    out = Path("/dev/shm") / f"eopf_read_{os.getpid()}.bin"
    _, reference = read_zarr(path, use_zcast=False)
    bits = reference.view(np.uint32).reshape(-1)
    names = ["c1", "c2", "zarr", "zarr+zcast"]
    times: dict[str, list[float]] = {n: [] for n in names}
    splits: dict[str, list[dict]] = {"c1": [], "c2": []}
    for r in range(args.repeat):
        order = names[r % 4:] + names[:r % 4]
        for name in order:
            if name.startswith("c"):
                wall, parts, data = read_c(args.reader, path, int(name[1]), out)
                splits[name].append(parts)
            else:
                wall, data = read_zarr(path, use_zcast=name == "zarr+zcast")
            assert np.array_equal(data.view(np.uint32).reshape(-1), bits), name
            times[name].append(wall)
        print(f"round {r + 1}: " + ", ".join(f"{n} {times[n][-1]:.3f} s" for n in names),
              file=sys.stderr)
    print(f"{path}: {reference.shape[0]} x {reference.shape[1]} {reference.dtype}, "
          f"{args.repeat} interleaved rounds, load average {os.getloadavg()[0]:.2f}")
    print(f"{'variant':<12} {'median s':>9} {'min':>7} {'max':>7}   split of the C reader's thread time")
    for n in names:
        t = times[n]
        line = f"{n:<12} {statistics.median(t):9.3f} {min(t):7.3f} {max(t):7.3f}"
        if n in splits:
            med = {k: statistics.median(s[k] for s in splits[n]) for k in splits[n][0]}
            busy = med["read"] + med["decompress"] + med["zcast"] + med["other"]
            line += (f"   decode wall {med['decode']:.3f} s; read {med['read']:.3f}, decompress "
                     f"{med['decompress']:.3f} ({100 * med['decompress'] / busy:.0f}%), zcast "
                     f"{med['zcast']:.3f} ({100 * med['zcast'] / busy:.0f}%), other "
                     f"{med['other']:.3f} ({100 * med['other'] / busy:.0f}%); first touch "
                     f"{med['touch']:.3f} s; write OUT "
                     f"{med['write']:.3f} s")
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
