"""Arguments that used to mean something else silently: a None type, a
byte order in a numpy type string, a path given to Chain.from_array_metadata as a str, and
`zcast demo --repeat 0`."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import zcast
from zcast import cli


def test_none_is_not_float64():
    with pytest.raises(TypeError, match="data type is None"):
        zcast.cast_array(np.arange(3), None)
    with pytest.raises(TypeError, match="data type is None"):
        zcast.zarr_name(None)


@pytest.mark.parametrize("spelling", [">i2", np.dtype(">i2")])
def test_byte_order_of_the_target_is_honoured(spelling):
    x = np.array([1.0, -2.0, 300.0])
    out = zcast.cast_array(x, spelling)
    assert out.dtype == np.dtype(">i2") and out.dtype.byteorder == ">"
    assert out.tolist() == [1, -2, 300]
    assert out.tobytes() == b"\x00\x01\xff\xfe\x01\x2c"
    native = zcast.cast_array(x, "<i2")
    assert native.dtype == np.dtype("<i2") and native.tolist() == [1, -2, 300]
    assert zcast.cast_array(x, "int16").dtype == np.dtype("=i2")


def test_byte_order_of_the_source_is_honoured():
    x = np.array([1.5, 2.5, -3.0], dtype=">f8")
    assert zcast.cast_array(x, "int8").tolist() == [2, 2, -3]


ZARR_JSON = {
    "zarr_format": 3, "node_type": "array", "shape": [2], "data_type": "float32",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
    "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
    "codecs": [{"name": "cast_value", "configuration": {"data_type": "uint8"}},
               {"name": "bytes"}],
}


def test_chain_from_array_metadata_forms(tmp_path, monkeypatch):
    array = tmp_path / "b04"
    array.mkdir()
    (array / "zarr.json").write_text(json.dumps(ZARR_JSON))
    monkeypatch.chdir(tmp_path)
    forms = [ZARR_JSON, json.dumps(ZARR_JSON), "  \n" + json.dumps(ZARR_JSON),
             json.dumps(ZARR_JSON).encode(), array, array / "zarr.json", str(array),
             str(array / "zarr.json"), "b04", "b04/zarr.json", Path("b04")]
    for form in forms:
        chain = zcast.Chain.from_array_metadata(form)
        assert (chain.data_type, chain.encoded_data_type) == ("float32", "uint8"), form
    with pytest.raises(FileNotFoundError, match="no such zarr.json or array directory"):
        zcast.Chain.from_array_metadata("missing/zarr.json")
    with pytest.raises(FileNotFoundError, match="JSON text starting with"):
        zcast.Chain.from_array_metadata("[]")
    # JSON text is still parsed strictly by the core.
    with pytest.raises(zcast.MetadataError, match="invalid JSON"):
        zcast.Chain.from_array_metadata("{")


@pytest.mark.parametrize("value", ["0", "-1", "x"])
def test_demo_repeat_must_be_positive(capsys, value):
    with pytest.raises(SystemExit) as exc:
        cli.main(["demo", "--repeat", value])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--repeat" in err and ("must be at least 1" in err or "positive integer" in err)
