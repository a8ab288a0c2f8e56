"""A small EOPF-like Sentinel-2 L2A product, written by zarr-python's own codecs.

Real Sentinel-2 L2A products in the EOPF Zarr format store bottom-of-atmosphere reflectance as
float64 arrays behind ``scale_offset`` + ``cast_value``: ``DN = (reflectance + 0.1) * 10000``
stored as uint16, DN 0 being no data (NaN). This module writes a synthetic product of the same
shape, small enough for a test, with **zarr-python's own** ``zarr.codecs.ScaleOffset`` and
``zarr.codecs.CastValue`` (selected with zarr.config, since zcast registers under the same names),
so that zcast's readers (the C example ``zcast_read_chunk``, ``zcast.Chain``, ``zcast.zarr``) are
checked against data they did not write::

    product.zarr/                      group, EOPF-like attributes
      measurements/reflectance/r10m/   b02 b03 b04 b08: float64, 100 x 90, chunks 32 x 32
                                       x, y: int64 coordinates
      measurements/reflectance/r20m/   b05 b11: float32, 50 x 45, chunks 16 x 16; x, y

Each band's codecs: ``scale_offset {offset: -0.1, scale: 10000}``, ``cast_value {uint16,
nearest-even, clamp, NaN <-> 0}``, ``bytes`` (little-endian), ``gzip`` (level 6). Edge chunks are
partial; the no-data corner (a swath edge) covers the first chunk entirely, which zarr therefore
does not store (it reads as the fill value, NaN). The pixels include what a reader must get
right: NaN no-data, a dead detector column, saturated values (clamped to DN 65535), dark values
below -0.1 (clamped to DN 0, so read back as no data: the product's own collision), and values
whose scaled DN is exactly k + 0.5 in the array's arithmetic (rounded to even).

Deterministic: the same ``seed`` gives the same metadata and the same chunk contents (values are
rounded to 1e-6, so that last-bit differences of a platform's sin/exp do not show). The gzip
streams themselves carry a timestamp, so the chunk files' bytes differ between runs.

Run it with ``zcast sample-eopf DIR`` or :func:`write_eopf_sample`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

SEED = 20250612
OFFSET = -0.1
SCALE = 10000
GZIP_LEVEL = 6
NAN_TO_0 = {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}

#: zarr.config settings that select zarr-python's own implementations of the two codecs.
ZARR_PYTHON_CODECS = {"codecs.cast_value": "zarr.codecs.cast_value.CastValue",
                      "codecs.scale_offset": "zarr.codecs.scale_offset.ScaleOffset"}


@dataclass(frozen=True)
class Band:
    path: str                 # the array's path inside the product
    dtype: str                # the array's (decoded) data type
    shape: tuple[int, int]
    chunks: tuple[int, int]
    wavelength_nm: int


BANDS: tuple[Band, ...] = (
    Band("measurements/reflectance/r10m/b02", "float64", (100, 90), (32, 32), 490),
    Band("measurements/reflectance/r10m/b03", "float64", (100, 90), (32, 32), 560),
    Band("measurements/reflectance/r10m/b04", "float64", (100, 90), (32, 32), 665),
    Band("measurements/reflectance/r10m/b08", "float64", (100, 90), (32, 32), 842),
    Band("measurements/reflectance/r20m/b05", "float32", (50, 45), (16, 16), 705),
    Band("measurements/reflectance/r20m/b11", "float32", (50, 45), (16, 16), 1610),
)

# Typical reflectance of the scene's surface classes per band (water, vegetation, soil, cloud).
_SPECTRA = {
    490: (0.060, 0.030, 0.100, 0.75),
    560: (0.050, 0.065, 0.140, 0.74),
    665: (0.030, 0.035, 0.180, 0.73),
    705: (0.025, 0.110, 0.210, 0.72),
    842: (0.015, 0.400, 0.260, 0.70),
    1610: (0.005, 0.180, 0.330, 0.45),
}

# The 10 m grid; the 20 m bands see every second pixel of the same scene.
_GRID = (100, 90)
_ORIGIN = (300000, 5000040)  # UTM x of the first column, y of the first row (pixel edges)


def _scene(seed: int) -> dict[str, np.ndarray]:
    """The surface of the 10 m grid: class weights, cloud opacity and the no-data mask."""
    rng = np.random.default_rng(seed)
    ny, nx = _GRID
    y = np.linspace(0.0, 1.0, ny)[:, None]
    x = np.linspace(0.0, 1.0, nx)[None, :]
    terrain = np.sin(2 * np.pi * (1.3 * x + 0.4 * y)) + 0.6 * np.cos(2 * np.pi * (0.7 * x - 1.1 * y))
    for _ in range(6):
        cy, cx, r, a = rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.05, 0.2), rng.normal(0, 0.8)
        terrain = terrain + a * np.exp(-((y - cy) ** 2 + (x - cx) ** 2) / (2 * r * r))
    water = (terrain < -0.9).astype(np.float64)
    vegetation = (1 - water) * np.clip(0.5 + 0.5 * np.sin(2 * np.pi * (2.1 * x * y + 0.8 * x)), 0, 1)
    soil = 1 - water - vegetation
    cloud = np.zeros((ny, nx))
    for _ in range(4):
        cy, cx, r = rng.uniform(0.3, 1), rng.uniform(0.3, 1), rng.uniform(0.04, 0.12)
        cloud = cloud + np.exp(-((y - cy) ** 2 + (x - cx) ** 2) / (2 * r * r))
    cloud = np.clip(cloud, 0, 1)
    rows, cols = np.indices((ny, nx))
    no_data = rows + cols < 70          # the swath edge: covers the whole first 32 x 32 chunk
    no_data |= (cols == 77) & (rows >= 40)  # a dead detector column
    return {"weights": np.stack([water, vegetation, soil]), "cloud": cloud, "no_data": no_data}


def _exact_ties(dtype: np.dtype, count: int, rng: np.random.Generator) -> np.ndarray:
    """Reflectances x whose DN (x - OFFSET) * SCALE is exactly k + 0.5 in `dtype` arithmetic."""
    offset, scale = dtype.type(OFFSET), dtype.type(SCALE)
    found: list[Any] = []
    for k in rng.permutation(np.arange(500, 8000))[: 40 * count]:
        x = dtype.type((k + 0.5) / SCALE + OFFSET)
        for candidate in (x, np.nextafter(x, dtype.type(np.inf)), np.nextafter(x, dtype.type(-np.inf))):
            if (candidate - offset) * scale == dtype.type(k + 0.5):
                found.append(candidate)
                break
        if len(found) == count:
            break
    return np.array(found, dtype=dtype)


def band_data(band: Band, seed: int = SEED) -> np.ndarray:
    """The reflectance written for `band` (deterministic in `seed`)."""
    scene = _scene(seed)
    dtype = np.dtype(band.dtype)
    step = _GRID[0] // band.shape[0]
    water, vegetation, soil = (w[::step, ::step] for w in scene["weights"])
    cloud = scene["cloud"][::step, ::step]
    no_data = scene["no_data"][::step, ::step]
    r_water, r_veg, r_soil, r_cloud = _SPECTRA[band.wavelength_nm]
    rng = np.random.default_rng([seed, band.wavelength_nm])
    surface = water * r_water + vegetation * r_veg + soil * r_soil
    value = (1 - cloud) * surface + cloud * r_cloud + rng.normal(0, 0.004, size=band.shape)
    value = np.round(value, 6)
    # Special pixels, on valid ground, at positions drawn from the band's generator.
    valid = np.flatnonzero(~no_data)
    picks = rng.choice(valid, size=16, replace=False)
    flat = value.reshape(-1)
    flat[picks[:3]] = [6.6, 7.25, 6.4535]    # saturated: clamped to DN 65535 (6.4535)
    flat[picks[3:6]] = [-0.1003, -0.12, -0.1]  # dark: DN <= 0, clamped to 0 = no data
    flat[picks[6:8]] = [0.0, 1.0]
    data = value.astype(dtype)
    ties = _exact_ties(dtype, 8, rng)
    data.reshape(-1)[picks[8:8 + ties.size]] = ties
    data[no_data] = np.nan
    return data


def _product_attributes(seed: int) -> dict[str, Any]:
    return {
        "stac_discovery": {
            "type": "Feature",
            "id": "S2Z_MSIL2A_SYNTHETIC_ZCAST_SAMPLE",
            "properties": {
                "platform": "sentinel-2z (synthetic)",
                "processing:level": "L2A",
                "product:type": "S02MSIL2A",
                "proj:epsg": 32632,
            },
        },
        "other_metadata": {
            "description": "zcast's synthetic EOPF-like sample: BOA reflectance stored as "
                           "scale_offset + cast_value (uint16, DN 0 = no data), bytes, gzip; "
                           "written by zarr-python's own codecs",
            "BOA_QUANTIFICATION_VALUE": SCALE,
            "BOA_ADD_OFFSET": int(OFFSET * SCALE),
            "seed": seed,
        },
    }


def write_eopf_sample(root: str | Path, seed: int = SEED) -> dict[str, np.ndarray]:
    """Writes the product into the new directory `root` with zarr-python's own ScaleOffset and
    CastValue (zarr >= 3.2; its CastValue needs cast-value-rs) and returns {band array path: the
    reflectance written}. Raises FileExistsError if `root` exists."""
    import zarr
    from zarr.codecs import CastValue, GzipCodec, ScaleOffset

    root = Path(root)
    if root.exists():
        raise FileExistsError(f"{root} already exists")
    written: dict[str, np.ndarray] = {}
    with zarr.config.set(ZARR_PYTHON_CODECS):
        group = zarr.create_group(zarr.storage.LocalStore(root),
                                  attributes=_product_attributes(seed))
        for resolution, shape in (("r10m", _GRID), ("r20m", (_GRID[0] // 2, _GRID[1] // 2))):
            pixel = 10 if resolution == "r10m" else 20
            coords = {
                "x": _ORIGIN[0] + pixel * np.arange(shape[1], dtype=np.int64) + pixel // 2,
                "y": _ORIGIN[1] - pixel * np.arange(shape[0], dtype=np.int64) - pixel // 2,
            }
            for name, values in coords.items():
                a = group.create_array(
                    f"measurements/reflectance/{resolution}/{name}", shape=values.shape,
                    dtype="int64", chunks=values.shape, fill_value=0,
                    compressors=[GzipCodec(level=GZIP_LEVEL)], dimension_names=[name],
                    attributes={"units": "m", "standard_name": f"projection_{name}_coordinate"})
                a[:] = values
        for band in BANDS:
            data = band_data(band, seed)
            a = group.create_array(
                band.path, shape=band.shape, chunks=band.chunks, dtype=band.dtype,
                fill_value=np.nan,
                filters=[ScaleOffset(offset=OFFSET, scale=SCALE),
                         CastValue(data_type="uint16", rounding="nearest-even",
                                   out_of_range="clamp", scalar_map=NAN_TO_0)],
                compressors=[GzipCodec(level=GZIP_LEVEL)],
                config={"write_empty_chunks": False},
                dimension_names=["y", "x"],
                attributes={"long_name": f"BOA reflectance {band.path.rsplit('/', 1)[1].upper()}",
                            "wavelength_nm": band.wavelength_nm, "units": "1",
                            "valid_min": round(OFFSET + 1 / SCALE, 4),
                            "valid_max": round(65535 / SCALE + OFFSET, 4)})
            a[:] = data
            written[band.path] = data
    return written
