"""`zcast inspect` agrees with the core's JSON reader: what zcast's core
rejects, inspect rejects with one clean line; what the core reads, inspect reads."""

from __future__ import annotations

import json

import pytest

import zcast
from zcast import cli

BASE = {
    "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "float64",
    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
    "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN",
    "codecs": [{"name": "scale_offset", "configuration": {"offset": 1, "scale": 10}},
               {"name": "cast_value", "configuration": {
                   "data_type": "uint16", "out_of_range": "clamp",
                   "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}},
               {"name": "bytes", "configuration": {"endian": "little"}}],
}


def inspect(tmp_path, text, capsys):
    path = tmp_path / "a.zarr"
    path.mkdir(exist_ok=True)
    (path / "zarr.json").write_text(text)
    rc = cli.main(["inspect", str(path)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out, err


def test_the_base_document_is_valid(tmp_path, capsys):
    rc, out, _ = inspect(tmp_path, json.dumps(BASE), capsys)
    assert rc == 0 and "metadata valid (1 scale_offset, 1 cast_value codec(s) checked)" in out


def test_a_duplicate_key_is_rejected(tmp_path, capsys):
    text = json.dumps(BASE).replace('"shape": [4],', '"shape": [4], "shape": [4],')
    with pytest.raises(zcast.MetadataError, match="duplicate"):
        zcast.Chain.from_array_metadata(text)  # the core
    rc, _, err = inspect(tmp_path, text, capsys)
    assert rc == 1 and "invalid JSON at offset" in err and "duplicate" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("text, words", [
    ("[" * 100000 + "]" * 100000, "nesting deeper than 64"),
    ('{"a":' * 70 + "1" + "}" * 70, "nesting deeper than 64"),
    ("[]", "the document is a JSON array, not an object"),
    ('"x"', "the document is a JSON string, not an object"),
    ("{", "invalid JSON at offset"),
    ('{"zarr_format": 2}', "is not a Zarr v3 array (zarr_format 2"),
])
def test_bad_documents_give_one_clean_line(tmp_path, capsys, text, words):
    rc, _, err = inspect(tmp_path, text, capsys)
    assert rc == 1 and words in err
    assert len(err.strip().splitlines()) == 1 and len(err) < 400


def test_codecs_that_are_a_string_are_an_error(tmp_path, capsys):
    rc, out, _ = inspect(tmp_path, json.dumps({**BASE, "codecs": "bytes"}), capsys)
    assert rc == 1
    assert 'codecs: expected an array of codecs, got "bytes"' in out
    assert "\n  0  b" not in out  # not walked one character at a time


def test_fill_value_beyond_the_double_range_as_the_core_reads_it(tmp_path, capsys):
    doc = {**BASE, "data_type": "float64", "codecs": [{"name": "bytes"}]}
    text = json.dumps(doc).replace('"fill_value": "NaN"', '"fill_value": 1e400')
    # The core rounds 1e400 to float64's +Infinity (R-JSON scalars): the chain takes it ...
    zcast.Chain.from_array_metadata(text)
    rc, out, err = inspect(tmp_path, text, capsys)
    assert rc == 0, err
    assert "fill_value 1e400" in out and "metadata valid" in out


def test_an_offset_of_5000_digits(tmp_path, capsys):
    """Python's int() refuses more than 4300 digits; the core reads the lexeme. inspect gives the
    core's verdict either way, in bounded lines."""
    fraction = "0." + "3" * 4998  # a 5000-character decimal: read (rounded once, R22)
    doc = json.dumps(BASE).replace('"offset": 1', f'"offset": {fraction}')
    assert zcast.Chain.from_array_metadata(doc).steps[0].name == "scale_offset"
    rc, out, err = inspect(tmp_path, doc, capsys)
    assert rc == 0, err
    assert "...(5000 characters)" in out and len(max(out.splitlines(), key=len)) < 400
    integer = "1" * 5000  # read, and rejected: beyond float64 (R22)
    doc = json.dumps(BASE).replace('"offset": 1', f'"offset": {integer}')
    with pytest.raises(zcast.MetadataError, match=r"must be finite \(R22\)"):
        zcast.Chain.from_array_metadata(doc)
    rc, out, err = inspect(tmp_path, doc, capsys)
    assert rc == 1 and "must be finite (R22)" in out and "Exceeds the limit" not in out + err
    assert len(max(out.splitlines(), key=len)) < 400


def test_a_zarr_v2_array_is_named(tmp_path, capsys):
    import zarr

    path = tmp_path / "v2.zarr"
    zarr.create_array(zarr.storage.LocalStore(path), shape=(4,), chunks=(2,), dtype="float32",
                      zarr_format=2)
    assert cli.main(["inspect", str(path)]) == 1
    err = capsys.readouterr().err
    assert "is a Zarr v2 array (.zarray)" in err and "zcast convert" in err
