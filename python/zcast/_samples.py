"""A synthetic Sentinel-2 L2A product in the exact layout of real EOPF Zarr products.

Real EOPF Sentinel-2 L2A reflectance bands (the zarr.json of a 10 m band of a published product)
are float32 arrays stored as ONE shard per band: ``sharding_indexed`` with the index at the end
(``bytes`` little + ``crc32c``), whose inner chunks go through

    scale_offset {offset -0.1, scale 10000}     float32 arithmetic: DN = (x + 0.1) * 10000
    cast_value   {uint16, NaN <-> 0}            no out_of_range: a DN outside uint16 is an error
    bytes        {little}
    blosc        {zstd, clevel 3, shuffle, typesize 2, blocksize 0}

This module writes such a product with **zarr-python's own** ``ScaleOffset`` and ``CastValue``
(selected with zarr.config: zcast and cast-value register classes under the same names), so that
zcast's readers are checked on data they did not write::

    product.zarr/                        group, EOPF-like attributes
      measurements/reflectance/r10m/     b02 b03 b04 b08; x, y
      measurements/reflectance/r20m/     b05 b8a b11; x, y
      measurements/reflectance/r60m/     b01 b09; x, y

``full`` has the real shapes: 10980^2 (inner chunks 244^2), 5490^2 (183^2), 1830^2 (183^2); every
shape divides by its inner chunk, as in the real products. ``small`` (seconds to write) has smaller
shapes AND proportionally smaller inner chunks at 20 m and 60 m (244, 122, 61), chosen so that the
shapes do not divide: every band has partial edge chunks and its one shard extends past the array.

Pixel values are DN integers 1..65535 decoded in float32 exactly as zarr-python decodes them
(``float32(DN) / 10000 + float32(-0.1)``): values on the 1e-4 reflectance grid, so that writing
them back gives the same DN. No data (NaN): a swath-edge corner large enough to cover inner chunk
(0, 0) of every band (zarr therefore never writes that inner chunk: a reader must produce the fill
value for it), and a dead detector column. Each band carries ``dimension_names`` ``["y", "x"]``
and the ``_FillValue`` attribute real products carry, in the form xarray writes (and requires
when it reads) for a float array of a Zarr v3 store: the base64 of the value as a little-endian
float64 (xarray's ``FillValueCoder``; NaN is ``"AAAAAAAA+H8="``), see :func:`xarray_fill_value`. The x and y coordinate arrays
(int64, chunked, zstd, not sharded) exercise a reader's unsharded path.

Deterministic: the same seed and size give the same bytes. Run it with ``zcast sample-eopf DIR
[--size small|full]`` or :func:`write_eopf_sample`.
"""

from __future__ import annotations

import base64
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

SEED = 20250612
OFFSET = -0.1
SCALE = 10000
NAN_TO_0 = {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}
SIZES = ("small", "full")

#: zarr.config settings that select zarr-python's own implementations of the two codecs.
ZARR_PYTHON_CODECS = {"codecs.cast_value": "zarr.codecs.cast_value.CastValue",
                      "codecs.scale_offset": "zarr.codecs.scale_offset.ScaleOffset"}

#: resolution -> (shape, inner chunk shape, shard shape) for each size.
_GRIDS = {
    "full": {"r10m": ((10980, 10980), (244, 244), (10980, 10980)),
             "r20m": ((5490, 5490), (183, 183), (5490, 5490)),
             "r60m": ((1830, 1830), (183, 183), (1830, 1830))},
    "small": {"r10m": ((1100, 1000), (244, 244), (1220, 1220)),
              "r20m": ((550, 500), (122, 122), (610, 610)),
              "r60m": ((184, 167), (61, 61), (244, 183))},
}
_PIXEL_M = {"r10m": 10, "r20m": 20, "r60m": 60}
_ORIGIN = (300000, 5000040)  # UTM x of the first column, y of the first row (pixel edges)
# The swath edge: pixels with row / ny + col / nx below this are no data (NaN). 0.8 covers inner
# chunk (0, 0) of every band of both sizes (the largest: 61 / 184 + 61 / 167 = 0.70 at small 60 m).
_SWATH_EDGE = 0.8


@dataclass(frozen=True)
class Band:
    path: str                 # the array's path inside the product
    resolution: str           # r10m, r20m or r60m
    wavelength_nm: int


BANDS: tuple[Band, ...] = (
    Band("measurements/reflectance/r10m/b02", "r10m", 490),
    Band("measurements/reflectance/r10m/b03", "r10m", 560),
    Band("measurements/reflectance/r10m/b04", "r10m", 665),
    Band("measurements/reflectance/r10m/b08", "r10m", 842),
    Band("measurements/reflectance/r20m/b05", "r20m", 705),
    Band("measurements/reflectance/r20m/b8a", "r20m", 865),
    Band("measurements/reflectance/r20m/b11", "r20m", 1610),
    Band("measurements/reflectance/r60m/b01", "r60m", 443),
    Band("measurements/reflectance/r60m/b09", "r60m", 945),
)

# Typical reflectance of the scene's surface classes per band (water, vegetation, soil, cloud).
_SPECTRA = {
    443: (0.070, 0.030, 0.090, 0.76), 490: (0.060, 0.030, 0.100, 0.75),
    560: (0.050, 0.065, 0.140, 0.74), 665: (0.030, 0.035, 0.180, 0.73),
    705: (0.025, 0.110, 0.210, 0.72), 842: (0.015, 0.400, 0.260, 0.70),
    865: (0.012, 0.410, 0.270, 0.69), 945: (0.008, 0.250, 0.200, 0.40),
    1610: (0.005, 0.180, 0.330, 0.45),
}


def xarray_fill_value(value: float) -> str:
    """A float ``_FillValue`` attribute as xarray writes it into a Zarr v3 array's attributes:
    the standard base64 of the little-endian float64 (xarray.backends.zarr.FillValueCoder). xarray
    decodes the attribute that way on reading and fails on a plain number or ``"NaN"``
    (``binascii.Error: Incorrect padding``; xarray issue 11332)."""
    return base64.standard_b64encode(struct.pack("<d", float(value))).decode("ascii")


def grid(resolution: str, size: str = "small") -> tuple[tuple[int, int], tuple[int, int],
                                                         tuple[int, int]]:
    """(shape, inner chunk shape, shard shape) of a band at `resolution` in the `size` sample."""
    if size not in _GRIDS:
        raise ValueError(f"size must be one of {', '.join(SIZES)}, not {size!r}")
    return _GRIDS[size][resolution]


def band_dn(band: Band, size: str = "small", seed: int = SEED) -> np.ndarray:
    """The DN (uint16; 0 = no data) stored for `band`: deterministic in `seed` and `size`.

    The scene is a function of the normalized position, so the three resolutions see the same
    ground; float32 throughout to keep the full size's 10980^2 arrays affordable."""
    shape = grid(band.resolution, size)[0]
    ny, nx = shape
    rng = np.random.default_rng(seed)  # the scene: the same for every band
    y = np.linspace(0.0, 1.0, ny, dtype=np.float32)[:, None]
    x = np.linspace(0.0, 1.0, nx, dtype=np.float32)[None, :]
    terrain = np.sin(2 * np.pi * (1.3 * x + 0.4 * y)) + 0.6 * np.cos(2 * np.pi * (0.7 * x - 1.1 * y))
    for _ in range(4):
        cy, cx, r, a = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.05, 0.2), rng.normal(0, 0.8)
        terrain += np.float32(a) * np.exp(((y - cy) ** 2 + (x - cx) ** 2) / np.float32(-2 * r * r))
    water = terrain < -0.9
    vegetation = np.clip(0.5 + 0.5 * np.sin(2 * np.pi * (2.1 * x * y + 0.8 * x)), 0, 1)
    vegetation[water] = 0
    cloud = np.zeros(shape, dtype=np.float32)
    for _ in range(3):
        cy, cx, r = rng.uniform(0.3, 1), rng.uniform(0.3, 1), rng.uniform(0.04, 0.12)
        cloud += np.exp(((y - cy) ** 2 + (x - cx) ** 2) / np.float32(-2 * r * r))
    np.clip(cloud, 0, 1, out=cloud)
    r_water, r_veg, r_soil, r_cloud = _SPECTRA[band.wavelength_nm]
    surface = np.where(water, np.float32(r_water),
                       vegetation * np.float32(r_veg) + (1 - vegetation) * np.float32(r_soil))
    value = (1 - cloud) * surface + cloud * np.float32(r_cloud)
    del terrain, vegetation, cloud, surface
    noise = np.random.default_rng([seed, band.wavelength_nm]).integers(-40, 41, size=shape,
                                                                       dtype=np.int32)
    dn = np.clip(np.rint((value + np.float32(-OFFSET)) * np.float32(SCALE)).astype(np.int32) + noise,
                 1, 65535).astype(np.uint16)
    del value, noise
    # The extremes of the valid range, away from the no-data corner.
    dn[-1, -1], dn[-1, -2], dn[-2, -1] = 65535, 1, 2
    rows = np.arange(ny, dtype=np.float32)[:, None] / ny
    cols = np.arange(nx, dtype=np.float32)[None, :] / nx
    dn[rows + cols < _SWATH_EDGE] = 0
    dn[ny // 2:, (7 * nx) // 9] = 0  # a dead detector column
    return dn


def decode_dn(dn: np.ndarray) -> np.ndarray:
    """float32(DN) / 10000 + float32(-0.1), DN 0 -> NaN: zarr-python's decode, in numpy."""
    with np.errstate(invalid="ignore"):
        values = dn.astype(np.float32) / np.float32(SCALE) + np.float32(OFFSET)
    values[dn == 0] = np.nan
    return values


def band_data(band: Band, size: str = "small", seed: int = SEED) -> np.ndarray:
    """The float32 reflectance written for `band` (NaN = no data)."""
    return decode_dn(band_dn(band, size, seed))


def shard_index(shard: bytes, chunks_per_shard: int) -> np.ndarray:
    """The (offset, nbytes) pairs of a shard whose index is at the end (bytes little + crc32c);
    2^64-1 for an inner chunk never written. Checks the index size, not its checksum."""
    size = 16 * chunks_per_shard + 4
    if len(shard) < size:
        raise ValueError(f"a shard of {len(shard)} bytes has no room for a {size}-byte index")
    return np.frombuffer(shard[-size:-4], dtype="<u8").reshape(chunks_per_shard, 2)


def stored_inner_chunks(band_dir: Path, size: str, resolution: str) -> tuple[int, int]:
    """(inner chunks written, inner chunks in the shard) of a band's one shard."""
    _, inner, shard_shape = grid(resolution, size)
    n = (shard_shape[0] // inner[0]) * (shard_shape[1] // inner[1])
    index = shard_index((Path(band_dir) / "c" / "0" / "0").read_bytes(), n)
    return int((index[:, 0] != 2**64 - 1).sum()), n


def _product_attributes(seed: int, size: str) -> dict[str, Any]:
    return {
        "stac_discovery": {
            "type": "Feature",
            "id": f"S2Z_MSIL2A_SYNTHETIC_ZCAST_SAMPLE_{size.upper()}",
            "properties": {"platform": "sentinel-2z (synthetic)", "processing:level": "L2A",
                           "product:type": "S02MSIL2A", "proj:epsg": 32632},
        },
        "other_metadata": {
            "description": "zcast's synthetic sample in the layout of EOPF Sentinel-2 L2A: "
                           "float32 BOA reflectance, one shard per band (sharding_indexed, "
                           "crc32c index at the end), inner chunks scale_offset + cast_value "
                           "(uint16, DN 0 = no data), bytes, blosc zstd; written by zarr-python's "
                           "own codecs",
            "BOA_QUANTIFICATION_VALUE": SCALE,
            "BOA_ADD_OFFSET": int(OFFSET * SCALE),
            "seed": seed,
        },
    }


def band_codecs():
    """The codec objects of a band: zarr-python's own classes (imported from their modules, not
    through the registry, so that zcast's or cast-value's registrations cannot interfere)."""
    from zarr.codecs import BloscCodec, BytesCodec, Crc32cCodec, ShardingCodec
    from zarr.codecs.cast_value import CastValue
    from zarr.codecs.scale_offset import ScaleOffset

    def sharding(inner):
        return ShardingCodec(
            chunk_shape=inner,
            codecs=[ScaleOffset(offset=OFFSET, scale=float(SCALE)),
                    CastValue(data_type="uint16", scalar_map=NAN_TO_0),
                    BytesCodec(endian="little"),
                    BloscCodec(typesize=2, cname="zstd", clevel=3, shuffle="shuffle", blocksize=0)],
            index_codecs=[BytesCodec(endian="little"), Crc32cCodec()], index_location="end")
    return sharding


def write_eopf_sample(root: str | Path, size: str = "small", seed: int = SEED) -> None:
    """Writes the product into the new directory `root` with zarr-python's own codecs (needs zarr
    >= 3.4 and cast-value-rs). Raises FileExistsError if `root` exists, ValueError for an unknown
    size. Each band is one shard written in one assignment, so zarr encodes every inner chunk."""
    import zarr
    from zarr.codecs import ZstdCodec

    grid("r10m", size)  # validates size before anything is created
    root = Path(root)
    if root.exists():
        raise FileExistsError(f"{root} already exists")
    sharding = band_codecs()
    with zarr.config.set(ZARR_PYTHON_CODECS):
        group = zarr.create_group(zarr.storage.LocalStore(root),
                                  attributes=_product_attributes(seed, size))
        for resolution in _PIXEL_M:
            shape, inner, shard = grid(resolution, size)
            pixel = _PIXEL_M[resolution]
            coords = {
                "x": _ORIGIN[0] + pixel * np.arange(shape[1], dtype=np.int64) + pixel // 2,
                "y": _ORIGIN[1] - pixel * np.arange(shape[0], dtype=np.int64) - pixel // 2,
            }
            for name, values in coords.items():
                a = group.create_array(
                    f"measurements/reflectance/{resolution}/{name}", shape=values.shape,
                    dtype="int64", chunks=(max(1, values.size // 3),), fill_value=0,
                    compressors=[ZstdCodec(level=3)], dimension_names=[name],
                    attributes={"units": "m", "standard_name": f"projection_{name}_coordinate"})
                a[:] = values
        for band in BANDS:
            shape, inner, shard = grid(band.resolution, size)
            a = group.create_array(
                band.path, shape=shape, chunks=shard, dtype="float32", fill_value=np.nan,
                serializer=sharding(inner), filters=None, compressors=None,
                config={"write_empty_chunks": False},
                dimension_names=["y", "x"], attributes={"_FillValue": xarray_fill_value(np.nan)})
            a[...] = band_data(band, size, seed)


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli, reflected 0x82F63B78), bit by bit: for tests that rewrite an index."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def rewrite_index_crc(shard: bytearray, chunks_per_shard: int) -> None:
    """Recomputes the index checksum of a shard whose index is at the end (for corrupt-data tests
    that change the index on purpose)."""
    start = len(shard) - 16 * chunks_per_shard - 4
    shard[-4:] = struct.pack("<I", crc32c(bytes(shard[start:-4])))


class SampleError(Exception):
    """A reason the sample cannot be written (reported by the CLI as one line)."""


def sample_eopf_command(directory: str | Path, size: str = "small", seed: int = SEED) -> int:
    """``zcast sample-eopf DIR [--size small|full] [--seed N]``: writes the product and prints
    what it holds and how to read it. Raises SampleError for a reason to refuse."""
    import zarr

    try:
        from zarr.codecs.cast_value import CastValue  # noqa: F401 - zarr-python's own codecs
        from zarr.codecs.scale_offset import ScaleOffset  # noqa: F401
    except ImportError:
        raise SampleError("the sample is written by zarr-python's own scale_offset and "
                          f"cast_value: they need zarr >= 3.4 (this is {zarr.__version__})") from None
    try:
        import cast_value_rs  # noqa: F401 - the engine of zarr.codecs.cast_value.CastValue
    except ImportError:
        raise SampleError("zarr-python's own cast_value needs cast-value-rs "
                          "(pip install cast-value-rs)") from None
    root = Path(directory)
    if root.exists():
        raise SampleError(f"{root} already exists; choose a new directory")
    write_eopf_sample(root, size=size, seed=seed)
    print(f"wrote {root}: a synthetic Sentinel-2 L2A product in the EOPF layout ({size}, seed "
          f"{seed}), written by zarr-python {zarr.__version__}'s own scale_offset and cast_value")
    header = ("array", "shape", "inner chunks", "written", "NaN")
    rows = []
    for band in BANDS:
        shape, inner, _ = grid(band.resolution, size)
        written, total = stored_inner_chunks(root / band.path, size, band.resolution)
        nan = float(np.mean(band_dn(band, size, seed) == 0)) if size == "small" else None
        rows.append((band.path, "x".join(map(str, shape)), "x".join(map(str, inner)),
                     f"{written} of {total}", "" if nan is None else f"{nan:.0%}"))
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header))]
    for r in (header, *rows):
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    print("each band: float32, fill NaN, one shard (sharding_indexed, index at the end: bytes + "
          "crc32c) of inner chunks scale_offset {offset -0.1, scale 10000}, cast_value {uint16, "
          "NaN <-> 0}, bytes little, blosc zstd 3 shuffle; an inner chunk that is all no-data is "
          "never written (it reads as NaN), edge chunks are partial where the shape does not "
          "divide.")
    b04 = root / BANDS[2].path
    print("read it with zcast:")
    print(f"  zcast inspect {b04}")
    print(f"  build/release/zcast_read_chunk {b04} b04.f32     # the whole band, float32 raw")
    return 0
