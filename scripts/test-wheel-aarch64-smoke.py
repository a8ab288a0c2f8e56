"""The aarch64 wheel's smoke test (run by scripts/test-wheel-aarch64), in two modes:

  fixture OUT.npz   (the x86-64 zcast) casts a fixed set of inputs of all 26 types in every
                    rounding mode and saves inputs and outputs;
  check [IN.npz]    (the aarch64 wheel under qemu) checks exact casts of all 26 types against
                    results known without zcast, the fixture's casts byte for byte when one is
                    given, and a zarr round trip through zcast's codecs.

The expected values of `check` come from the formats themselves: every finite value of a type
(its codes, widened to float64 by numpy / ml_dtypes, which is exact) must encode to its own code
and decode to itself; a point a quarter of the way between two neighbours rounds to the nearer
one, the midpoint to the one with the even code (R1's nearest-even); integers likewise with
k + 0.25, k + 0.5, k + 0.75. Prints one line per check and "N passed, N failed" last; exits 1 on
any failure.
"""

from __future__ import annotations

import sys
import tempfile
import time

import ml_dtypes
import numpy as np

import zcast

ROUNDINGS = ("nearest-even", "nearest-away", "towards-zero", "towards-positive", "towards-negative")
results = {"passed": 0, "failed": 0}


def report(name: str, ok: bool, detail: str = "") -> None:
    results["passed" if ok else "failed"] += 1
    print(f"  {name}: {'ok' if ok else 'FAILED'}{' — ' + detail if detail else ''}", flush=True)


def raw(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8)


def first_difference(got: np.ndarray, want: np.ndarray, inputs: np.ndarray) -> str:
    g, w = raw(got).reshape(len(got), -1), raw(want).reshape(len(want), -1)
    i = int(np.flatnonzero((g != w).any(axis=1))[0])
    return (f"{int((g != w).any(axis=1).sum())} of {len(got)} differ; first at {i}: input "
            f"{inputs[i]!r} gave {got[i]!r} (bytes {g[i].tobytes().hex()}), expected {want[i]!r} "
            f"(bytes {w[i].tobytes().hex()})")


def same(name: str, got: np.ndarray, want: np.ndarray, inputs: np.ndarray) -> None:
    ok = got.dtype == want.dtype and np.array_equal(raw(got), raw(want))
    report(name, ok, "" if ok else first_difference(got, want, inputs))


def is_float(dt: np.dtype) -> bool:
    return dt.kind == "f" or dt.name.startswith(("float", "bfloat"))


def codes_of(name: str, rng: np.random.Generator) -> np.ndarray:
    """Every value of the type (up to 16 bits), else a sample of codes with the extremes."""
    dt = zcast.numpy_dtype(name)
    bits = (ml_dtypes.finfo(dt) if is_float(dt) else ml_dtypes.iinfo(dt)).bits
    store = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
    if bits <= 16:
        return np.arange(2**bits, dtype=store).view(dt)
    edges = np.array([0, 1, 2, 2**(bits - 1) - 1, 2**(bits - 1), 2**(bits - 1) + 1, 2**bits - 1],
                     dtype=store)
    return np.concatenate([edges, rng.integers(0, 2**bits - 1, 4000, dtype=store,
                                               endpoint=True)]).view(dt)


def check_float(name: str, rng: np.random.Generator) -> None:
    dt = zcast.numpy_dtype(name)
    codes = codes_of(name, rng)
    values = codes.astype(np.float64)
    keep = np.isfinite(values)
    codes, values = codes[keep], values[keep]
    same(f"{name}: its {len(codes)} finite values decode to float64 exactly",
         zcast.cast_array(codes, "float64"), values, codes)
    same(f"{name}: those values encode to their own codes",
         zcast.cast_array(values, name), codes, values)
    if name == "float64":
        return  # no float64 point lies between two neighbouring float64 values
    # Neighbours among the positive values (sorted, one code per value), and their mirrors.
    pos = values > 0
    if dt.itemsize >= 4:  # a sample of float32 codes: each one's neighbour is its nextafter
        ca = codes[pos]
        cb = np.nextafter(ca, np.array(np.inf, dtype=dt))
        ca, cb = ca[np.isfinite(cb)], cb[np.isfinite(cb)]
        a, b = ca.astype(np.float64), cb.astype(np.float64)
    else:  # every value: the neighbours are the sorted values
        order = np.argsort(values[pos], kind="stable")
        v, c = values[pos][order], codes[pos][order]
        a, b, ca, cb = v[:-1], v[1:], c[:-1], c[1:]
    quarter = np.concatenate([a + (b - a) / 4, a + 3 * (b - a) / 4])
    want = np.concatenate([ca, cb])
    if name != "float8_e8m0fnu":  # no significand, so no even one: ties are not a nearest-even case
        even = (raw(ca).reshape(len(ca), -1)[:, 0] & 1) == 0  # little-endian: low byte, low bit
        quarter = np.concatenate([quarter, (a + b) / 2])
        want = np.concatenate([want, np.where(even, ca, cb)])
    if (values < 0).any():
        want = np.concatenate([want, (-want.astype(np.float64)).astype(dt)])
        quarter = np.concatenate([quarter, -quarter])
    same(f"{name}: {len(quarter)} points between neighbours round to the nearest (ties to even)",
         zcast.cast_array(quarter, name), want, quarter)


def check_int(name: str, rng: np.random.Generator) -> None:
    dt = zcast.numpy_dtype(name)
    info = ml_dtypes.iinfo(dt)
    if info.bits <= 16:
        values = np.arange(info.min, info.max + 1).astype(np.float64)
    else:  # float64-exact values only: the top one is the largest float64 below 2^63 or 2^64
        width = info.bits - 1 if info.min else info.bits
        top = float(info.max) if width < 53 else float(2**width - 2**(width - 53))
        low = float(info.min)
        values = np.concatenate([[low, low + 1, 0, 1, top - 1, top],
                                 rng.integers(max(low, -2**40), min(top, 2**40), 3000)])
        values = np.unique(values.astype(np.float64))

    def exact(x: np.ndarray) -> np.ndarray:  # float64 integers -> the type, through numpy's int64
        return np.asarray(x).astype(np.uint64 if name == "uint64" else np.int64).astype(dt)

    codes = exact(values)
    same(f"{name}: {len(values)} integers encode exactly", zcast.cast_array(values, name), codes,
         values)
    same(f"{name}: and decode exactly", zcast.cast_array(codes, "float64"), values, codes)
    small = values[np.abs(values) < 2**40][:-1]
    small = small[small + 1 <= float(info.max)]
    plus1 = exact(small + 1)
    evens = exact(np.where(small % 2 == 0, small, small + 1))
    points = np.concatenate([small + 0.25, small + 0.5, small + 0.75])
    same(f"{name}: {len(points)} points k+0.25, k+0.5, k+0.75 round to the nearest (ties to even)",
         zcast.cast_array(points, name), np.concatenate([exact(small), evens, plus1]), points)
    outside = np.array([1e300, -1e300])
    same(f"{name}: out_of_range=clamp gives the type's max and min",
         zcast.cast_array(outside, name, out_of_range="clamp"),
         np.array([info.max, info.min], dtype=np.uint64 if name == "uint64" else np.int64)
         .astype(dt), outside)
    try:
        zcast.cast_array(outside, name)
        report(f"{name}: 1e300 without out_of_range raises CastError", False, "no error")
    except zcast.CastError as e:
        report(f"{name}: 1e300 without out_of_range raises CastError", "element" in str(e), str(e))


def fixture_cases(rng: np.random.Generator):
    """(key, input, target, rounding, out_of_range): encodes from float64 and decodes to float32."""
    for name in zcast.DATA_TYPES:
        dt = zcast.numpy_dtype(name)
        codes = rng.choice(codes_of(name, rng), 300)
        values = codes.astype(np.float64)
        values = values[np.isfinite(values)]
        spread = values * (1 + rng.uniform(-0.2, 0.2, len(values)))
        inputs = np.concatenate([values, spread, [0.0, -0.0, 1e300, -1e300]])
        if is_float(dt):  # the infinities and NaN where the type has them (else they are errors)
            every = codes_of(name, rng).astype(np.float64)
            wide = name in ("float32", "float64")
            inputs = np.concatenate([inputs, [np.inf, -np.inf] if wide or np.isinf(every).any()
                                     else [], [np.nan] if np.isnan(every).any() else []])
            codes = codes[np.isfinite(codes.astype(np.float64)) | (rng.uniform(size=len(codes)) < 0.5)]
        for rounding in ROUNDINGS:
            for oor in ("clamp", "wrap") if not is_float(dt) else ("clamp",):
                yield f"{name}|encode|{rounding}|{oor}", inputs, name, rounding, oor
            yield f"{name}|decode|{rounding}|clamp", codes, "float32", rounding, "clamp"


def cast_for_fixture(inputs, target, rounding, oor):
    return zcast.cast_array(inputs, target, rounding=rounding, out_of_range=oor)


def write_fixture(path: str) -> None:
    arrays = {}
    for key, inputs, target, rounding, oor in fixture_cases(np.random.default_rng(2026)):
        arrays[key + "|in"] = raw(inputs)
        arrays[key + "|out"] = raw(cast_for_fixture(inputs, target, rounding, oor))
    np.savez(path, **arrays)
    print(f"fixture: {len(arrays) // 2} casts by zcast {zcast.__version__ if hasattr(zcast, '__version__') else ''}"
          f" on {zcast.simd_target()} -> {path}")


def check_fixture(path: str) -> None:
    saved = np.load(path)
    keys = sorted({k.rsplit("|", 1)[0] for k in saved.files})
    bad = []
    for key in keys:
        name, direction, rounding, oor = key.split("|")
        src = np.float64 if direction == "encode" else zcast.numpy_dtype(name)
        out = zcast.numpy_dtype(name) if direction == "encode" else np.float32
        inputs = saved[key + "|in"].view(src)
        got = zcast.cast_array(inputs, out, rounding=rounding, out_of_range=oor)
        want = saved[key + "|out"].view(out)
        if not np.array_equal(raw(got), raw(want)):
            bad.append(f"{key}: " + first_difference(got, want, inputs))
    report(f"the x86-64 run's {len(keys)} casts (26 types, 5 rounding modes, encode and decode) "
           "give the same bytes", not bad, "; ".join(bad[:3]))


def check_zarr() -> None:
    import zarr
    import zcast.zarr as zz

    # From 1: 0 is the stored sentinel of NaN (NaN <-> 0), so no valid value may encode to it.
    data = np.arange(1, 4001, 1, dtype=np.float32).reshape(40, 100)
    data[3, 7] = np.nan
    e4m3 = ml_dtypes.finfo(ml_dtypes.float8_e4m3)
    small = (np.arange(4000) % 200 - 100).astype(ml_dtypes.float8_e4m3).astype(np.float32)
    with tempfile.TemporaryDirectory() as tmp, zz.use():
        for name, values, codec, stored in [
            ("uint16", data, zz.CastValue(data_type="uint16", scalar_map={
                "encode": [["NaN", 0]], "decode": [[0, "NaN"]]}),
             np.where(np.isnan(data), 0, data).astype(np.uint16)),
            ("float8_e4m3", small.reshape(40, 100), zz.CastValue(data_type="float8_e4m3"),
             small.reshape(40, 100).astype(e4m3.dtype)),
        ]:
            arr = zarr.create_array(f"{tmp}/{name}.zarr", shape=values.shape, chunks=(40, 100),
                                    dtype="float32", fill_value=np.nan, filters=[codec],
                                    compressors=None)
            arr[:] = values
            back = zarr.open_array(f"{tmp}/{name}.zarr", mode="r")[:]
            chunk = np.fromfile(f"{tmp}/{name}.zarr/c/0/0", dtype=stored.dtype).reshape(stored.shape)
            same(f"zarr {zarr.__version__}: float32 -> cast_value {name}: the chunk on disk holds "
                 "the expected codes", chunk.ravel(), stored.ravel(), values.ravel())
            same(f"zarr {zarr.__version__}: float32 -> cast_value {name} -> float32 reads back "
                 "every value", back.ravel(), values.ravel(), values.ravel())


def main() -> int:
    mode = sys.argv[1]
    if mode == "fixture":
        write_fixture(sys.argv[2])
        return 0
    t0 = time.time()
    print(f"zcast from {zcast.__file__}; SIMD target {zcast.simd_target()}; numpy "
          f"{np.__version__}, ml_dtypes {ml_dtypes.__version__}", flush=True)
    rng = np.random.default_rng(11)
    for name in zcast.DATA_TYPES:
        (check_float if is_float(zcast.numpy_dtype(name)) else check_int)(name, rng)
    if len(sys.argv) > 2:
        check_fixture(sys.argv[2])
    check_zarr()
    print(f"smoke test: {time.time() - t0:.1f} s in Python")
    print(f"{results['passed']} passed, {results['failed']} failed")
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
