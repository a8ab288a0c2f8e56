"""zcast: the exact Zarr v3 ``cast_value`` codec, for numpy and zarr-python.

    >>> import numpy as np, zcast
    >>> zcast.cast_array(np.array([1.5, 2.5, 300.0]), "uint8", out_of_range="clamp")
    array([  2,   2, 255], dtype=uint8)
    >>> zcast.cast_array(np.array([np.nan, 1.0]), "uint8", scalar_map=[("NaN", 0)])
    array([0, 1], dtype=uint8)

All 26 cast_value data types are supported; those numpy lacks (bfloat16, the float8/6/4 formats,
int2/int4/uint2/uint4) use the ml_dtypes dtypes of the same name. For zarr-python, see
:mod:`zcast.zarr` (``zcast.zarr.use()`` selects zcast's cast_value and scale_offset).
:class:`zcast.Chain` resolves an array's leading scale_offset / cast_value codecs from its
zarr.json and encodes or decodes chunks through all of them in one pass.
"""

from zcast._errors import CastError, MetadataError
from zcast import _zcast
from zcast._dtypes import DATA_TYPES, numpy_dtype, zarr_name
from zcast._api import cast_array, cast_array_into, codec_json, set_num_threads
from zcast._chain import Chain, ChainStep, ShardedChainWarning
from zcast._info import simd_target, simd_targets
from zcast._advise import advise

# The library's version (zcast_version() of the C API), which is CMakeLists.txt's project version:
# the wheel's metadata is read from the same line.
__version__ = _zcast.__version__

__all__ = [
    "DATA_TYPES",
    "CastError",
    "Chain",
    "ChainStep",
    "MetadataError",
    "ShardedChainWarning",
    "advise",
    "cast_array",
    "cast_array_into",
    "codec_json",
    "numpy_dtype",
    "set_num_threads",
    "simd_target",
    "simd_targets",
    "zarr_name",
]
