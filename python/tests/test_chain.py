"""zcast.Chain: the leading array -> array codecs of an array's zarr.json, bound and fused
(the Python face of zcast::Chain / zcast_chain_create)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import zcast
from conftest import bits

NAN0 = {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}
REFLECTANCE = {
    "zarr_format": 3, "node_type": "array", "shape": [4, 4], "data_type": "float64",
    "fill_value": "NaN",
    "codecs": [
        {"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}},
        {"name": "cast_value", "configuration": {"data_type": "uint16", "out_of_range": "clamp",
                                                 "scalar_map": NAN0}},
        {"name": "bytes", "configuration": {"endian": "little"}},
        {"name": "gzip", "configuration": {"level": 6}},
    ],
}
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "data"


def test_from_array_metadata_accepts_text_bytes_dict_and_path(tmp_path):
    text = json.dumps(REFLECTANCE)
    (tmp_path / "zarr.json").write_text(text)
    for doc in (text, text.encode(), REFLECTANCE, tmp_path, tmp_path / "zarr.json"):
        chain = zcast.Chain.from_array_metadata(doc)
        assert (chain.data_type, chain.encoded_data_type) == ("float64", "uint16")
        assert chain.dtype == np.float64 and chain.encoded_dtype == np.uint16
    assert chain.encoded_fill_value_json == 0
    assert chain.encoded_fill_value == np.uint16(0)
    assert type(chain.encoded_fill_value) is np.uint16
    assert chain.owned_codecs == 2
    assert chain.first_unowned_codec == "bytes"
    assert chain.remaining_codecs == REFLECTANCE["codecs"][2:]
    assert [s.name for s in chain.steps] == ["scale_offset", "cast_value"]
    assert chain.steps[0] == zcast.ChainStep("scale_offset", REFLECTANCE["codecs"][0], "float64",
                                             "NaN")
    assert chain.steps[1].data_type == "uint16" and chain.steps[1].fill_value == 0
    assert chain.steps[1].codec["configuration"]["scalar_map"] == NAN0
    assert "float64 -> uint16 (scale_offset, cast_value); next: bytes" in repr(chain)


def test_encode_and_decode_a_chunk():
    chain = zcast.Chain.from_array_metadata(REFLECTANCE)
    x = np.array([[np.nan, 0.0, 0.0234, 1.0], [-0.0999, 6.4535, 7.0, -0.2]])
    dn = chain.encode(x)
    assert dn.dtype == np.uint16 and dn.shape == x.shape
    assert dn.tolist() == [[0, 1000, 1234, 11000], [1, 65535, 65535, 0]]  # clamp both ways
    back = chain.decode(dn)
    assert back.dtype == np.float64
    np.testing.assert_array_equal(np.isnan(back), [[True, False, False, False],
                                                   [False, False, False, True]])
    assert back[0, 2] == 1234 / 10000 + -0.1  # float64 arithmetic, each step rounded once
    # The committed example chunk (little-endian uint16 DN), read as a C reader would.
    raw = np.fromfile(EXAMPLES / "reflectance_le" / "c" / "0" / "0", dtype="<u2").reshape(4, 4)
    values = zcast.Chain.from_array_metadata(EXAMPLES / "reflectance_le").decode(raw)
    assert np.isnan(values[0, 0]) and values[0, 1] == 0.0 and values[1, 1] == 6.4535
    # Any layout and byte order in, into a given output.
    big = raw.astype(">u2")[:, ::-1]
    out = np.empty((4, 4))
    assert chain.decode(big, out=out) is out
    np.testing.assert_array_equal(bits(out), bits(chain.decode(np.ascontiguousarray(raw[:, ::-1]))))


def test_wrong_dtypes_are_type_errors():
    chain = zcast.Chain.from_array_metadata(REFLECTANCE)
    with pytest.raises(TypeError, match="expected an array of float64, got float32"):
        chain.encode(np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="expected an array of uint16"):
        chain.decode(np.zeros(3, np.int16))
    with pytest.raises(TypeError, match="out must be a numpy array of uint16"):
        chain.encode(np.zeros(3), out=np.zeros(3, np.int32))


def test_cast_error_names_the_element():
    doc = json.loads(json.dumps(REFLECTANCE))
    del doc["codecs"][1]["configuration"]["out_of_range"]
    chain = zcast.Chain.from_array_metadata(doc)
    with pytest.raises(zcast.CastError, match=r"element \(1, 0\): float64 value 71000\.0 is out "
                                              r"of the range of uint16") as info:
        chain.encode(np.array([[0.5, 0.6], [7.0, 8.0]]))
    assert info.value.index == (1, 0)


def test_error_of_a_large_array_is_its_first_failing_element():
    """Above a million elements the array is split across threads; a chain's error must still
    be the first element that fails at any step over the whole array (R33: the cast_value failure
    at the start, not the scale_offset overflow at the end)."""
    chain = zcast.Chain.from_codecs(
        [{"name": "scale_offset", "configuration": {"scale": 1e300}},
         {"name": "cast_value", "configuration": {"data_type": "float32"}}], "float64")
    x = np.zeros(3_000_000)
    x[5] = 1e-290          # 1e10 after scale_offset: fine; float32 takes it
    x[7] = 1e-250          # 1e50: too large for float32 -> cast_value fails here, first
    x[2_900_000] = 1e10    # 1e310: scale_offset overflows here
    with pytest.raises(zcast.CastError, match=r"element \(7,\): float64 value 1e\+50 is out") as info:
        chain.encode(x)
    assert info.value.index == (7,)


def test_fixedscaleoffset_and_from_codecs():
    chain = zcast.Chain.from_codecs(
        [{"name": "numcodecs.fixedscaleoffset",
          "configuration": {"offset": 1000, "scale": 10, "dtype": "<f8", "astype": "|u1"}},
         "bytes"], "float64", 1000.0)
    assert [s.name for s in chain.steps] == ["scale_offset", "cast_value"]
    assert chain.steps[1].codec["configuration"] == {"data_type": "uint8", "out_of_range": "wrap"}
    assert chain.owned_codecs == 1 and chain.remaining_codecs == ["bytes"]
    assert chain.encoded_fill_value == 0 and chain.steps[0].fill_value == 0.0
    assert chain.encode(np.array([1012.34, 1025.6])).tolist() == [123, 0]  # 256 wraps
    # A chain that owns nothing still checks and canonicalizes the fill value (R26).
    empty = zcast.Chain.from_codecs("[]", "bfloat16", "0x7FC1")
    assert empty.steps == () and empty.first_unowned_codec is None
    assert empty.encoded_fill_value_json == "0x7fc1"
    assert np.asarray(empty.encoded_fill_value).view(np.uint16) == 0x7FC1  # NaN payload kept
    nofill = zcast.Chain.from_codecs('["transpose"]', np.float32)
    assert nofill.encoded_fill_value is None and nofill.first_unowned_codec == "transpose"
    neg0 = zcast.Chain.from_codecs([{"name": "scale_offset", "configuration": {"scale": 2}}],
                                   "float32", -0.0)
    assert np.signbit(neg0.encoded_fill_value) and neg0.encoded_fill_value_json == -0.0


@pytest.mark.parametrize("doc, match", [
    ({**REFLECTANCE, "zarr_format": 2}, '"zarr_format" must be 3'),
    ({**REFLECTANCE, "codecs": [{"name": "cast_value",
                                 "configuration": {"data_type": "uint8", "roundng": 1}}]},
     r'codecs\[0\]: invalid cast_value metadata: unknown key "roundng"'),
    ({**REFLECTANCE, "codecs": [{"name": "scale_offset", "configuration": {"scale": 0}}]},
     r"codecs\[0\]: .*R22"),
    ({**REFLECTANCE, "codecs": [{"name": "cast_value", "configuration": {"data_type": "uint8"}}]},
     r"codecs\[0\]: .*NaN.*R9"),
    ({k: v for k, v in REFLECTANCE.items() if k != "codecs"}, 'missing required key "codecs"'),
    ("{not json", "invalid array metadata"),
])
def test_invalid_metadata_names_the_codec_and_key(doc, match):
    with pytest.raises(zcast.MetadataError, match=match):
        zcast.Chain.from_array_metadata(doc)


def test_fused_equals_the_codecs_one_after_the_other():
    """The chain runs its steps block by block in one pass; the result is that of each bound
    step over the whole buffer in turn (random and boundary data, both directions)."""
    rng = np.random.default_rng(3)
    chain = zcast.Chain.from_array_metadata(REFLECTANCE)
    # (no +-Inf: it has no uint16 value even with clamp, R3)
    x = np.concatenate([rng.uniform(-0.2, 7.0, 5000), [np.nan, -0.0, 0.0, -0.1, 6.4535, 6.45355,
                                                       0.00005 - 0.1, 0.12345, 0.12355]])
    s0, s1 = chain._core.steps  # the bound codecs, run each over the whole buffer
    mid = np.empty_like(x)
    s0.encode(x.view(np.uint8), mid.view(np.uint8))
    want = np.empty(x.shape, np.uint16)
    s1.encode(mid.view(np.uint8), want.view(np.uint8))
    np.testing.assert_array_equal(chain.encode(x), want)
    dn = np.arange(65536, dtype=np.uint16)
    mid = np.empty(dn.shape)
    s1.decode(dn.view(np.uint8), mid.view(np.uint8))
    back = np.empty(dn.shape)
    s0.decode(mid.view(np.uint8), back.view(np.uint8))
    np.testing.assert_array_equal(bits(chain.decode(dn)), bits(back))


def test_encode_refuses_values_it_could_not_decode():
    # R32: 100000 clamps to 32767, and 32767 / 2 is not an integer, so every later
    # read would fail; the chain refuses the write, naming the element.
    chain = zcast.Chain.from_codecs(
        [{"name": "scale_offset", "configuration": {"scale": 2}},
         {"name": "cast_value", "configuration": {"data_type": "int16", "out_of_range": "clamp"}}],
        "int32")
    with pytest.raises(zcast.CastError) as err:
        chain.encode(np.array([1, 2, 100000, 3], dtype=np.int32))
    assert err.value.index == (2,)
    assert "int32 value 100000 encodes to int16 value 32767, which the chain cannot decode" in str(
        err.value)
    assert chain.decode(chain.encode(np.array([1, 2, 3], dtype=np.int32))).tolist() == [1, 2, 3]


def test_error_names_first_failing_element_across_steps():
    # R33: element 0 fails the cast although element 1 fails earlier in the chain.
    chain = zcast.Chain.from_codecs(
        [{"name": "scale_offset", "configuration": {"scale": 1e30}},
         {"name": "cast_value", "configuration": {"data_type": "uint8"}}], "float64")
    with pytest.raises(zcast.CastError) as err:
        chain.encode(np.array([1.0, 1e10]))
    assert err.value.index == (0,)
    assert str(err.value).startswith("element (0,): float64 value 1e+30 is out of the range")
