"""R34 on the Python side: an error message quoting the caller's input (a dtype name, an option
value, a scalar_map key, a codec parameter) stays short however long that input is."""

from __future__ import annotations

import numpy as np
import pytest

import zcast
import zcast.zarr as zz
from zcast._errors import brief

HUGE = "x" * 10_000_000
LIMIT = 1000  # every message below is a few hundred characters; the input is 10 million


def _cases():
    a = np.zeros(2)
    return {
        "cast_array dtype": lambda: zcast.cast_array(a, HUGE),
        "cast_array rounding": lambda: zcast.cast_array(a, "uint8", rounding=HUGE),
        "cast_array out_of_range": lambda: zcast.cast_array(a, "uint8", out_of_range=HUGE),
        "scalar_map key string": lambda: zcast.cast_array(a, "uint8", scalar_map=[(HUGE, 0)]),
        "scalar_map key bytes": lambda: zcast.cast_array(a, "uint8", scalar_map=[(HUGE.encode(), 0)]),
        "scalar_map pair": lambda: zcast.cast_array(a, "uint8", scalar_map=[(HUGE,)]),
        "cast_array_into dtype": lambda: zcast.cast_array_into(a, np.zeros(2, dtype="U3")),
        "zarr_name": lambda: zcast.zarr_name(HUGE),
        "numpy_dtype": lambda: zcast.numpy_dtype(HUGE),
        "set_num_threads": lambda: zcast.set_num_threads(-(10 ** 4000)),
        "CastValue data_type": lambda: zz.CastValue(data_type=HUGE),
        "CastValue rounding": lambda: zz.CastValue(data_type="uint8", rounding=HUGE),
        "CastValue out_of_range": lambda: zz.CastValue(data_type="uint8", out_of_range=HUGE),
        "CastValue scalar_map key": lambda: zz.CastValue(data_type="uint8", scalar_map={HUGE: []}),
        "CastValue scalar_map value": lambda: zz.CastValue(
            data_type="uint8", scalar_map={"encode": [[0, HUGE]]}).validate(
                shape=(2,), dtype=_float32(), chunk_grid=None),
        "CastValue scalar_map entries": lambda: zz.CastValue(data_type="uint8",
                                                             scalar_map={"encode": HUGE}),
        "CastValue.from_dict key": lambda: zz.CastValue.from_dict(
            {"name": "cast_value", "configuration": {"data_type": "uint8", HUGE: 1}}),
        "ScaleOffset offset type": lambda: zz.ScaleOffset(offset=[HUGE]),
        "ScaleOffset offset value": lambda: zz.ScaleOffset(offset=HUGE).validate(
            shape=(2,), dtype=_float32(), chunk_grid=None),
        "Chain JSON": lambda: zcast.Chain.from_array_metadata("{" + HUGE),
    }


def _float32():
    from zarr.core.dtype import Float32

    return Float32()


@pytest.mark.parametrize("case", sorted(_cases()))
def test_message_quoting_input_is_bounded(case):
    with pytest.raises((ValueError, TypeError)) as info:
        _cases()[case]()
    message = str(info.value)
    assert len(message) < LIMIT, f"{case}: {len(message)} characters: {message[:300]}..."
    assert message  # says something


def test_cast_array_dtype_message_names_the_length():
    with pytest.raises(zcast.MetadataError, match=r"unsupported data type 'xxx.*\(10000002 bytes\)"):
        zcast.cast_array(np.zeros(2), HUGE)


def test_brief_keeps_short_text_and_cuts_long_text_on_a_character():
    assert brief("'abc'") == "'abc'"
    assert brief("x" * 64) == "x" * 64
    assert brief("x" * 65) == "x" * 48 + "... (65 bytes)"
    cut = brief("é" * 100)  # 2 bytes each: 48 bytes are 24 whole characters
    assert cut == "é" * 24 + "... (200 bytes)"
