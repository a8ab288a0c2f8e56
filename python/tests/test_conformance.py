"""The conformance vectors (conformance/README.md) through zcast's Python package, and the runner
itself (python/zcast/_conformance.py): zcast passes every case; a wrong expectation is caught;
the peers' documented deviations (docs/conformance.md) are still what they do."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from zcast import _conformance, cli

VECTORS = _conformance.default_vectors()


@pytest.fixture(scope="module")
def cases() -> list[_conformance.Case]:
    return _conformance.load([VECTORS])


def test_vectors_are_installed_with_the_package() -> None:
    # The installed package carries them (package data); a checkout's copy is the fallback.
    assert (VECTORS / "cast_value" / "float32.jsonl").is_file()
    assert (VECTORS / "cast_value_decode").is_dir()
    assert len(list(VECTORS.rglob("*.jsonl"))) >= 40


def test_zcast_passes_every_case(cases: list[_conformance.Case]) -> None:
    report = _conformance.run("zcast", cases)
    assert report.total("skipped") == 0
    assert report.total("run") == len(cases) > 20000
    assert report.failures == []
    for cat in _conformance.CATEGORIES:
        assert report.by_category[cat].passed > 0, cat


def test_a_wrong_expectation_fails(cases: list[_conformance.Case]) -> None:
    by_id = {c.id: c for c in cases}
    wrong = copy.deepcopy(by_id["named/f64-f16-double-rounding"])
    wrong.line["expected"] = "003c"  # the double-rounded result, not the exact 0x3c01
    index = copy.deepcopy(by_id["named/spec-128-int8-unset"])
    index.line["error"]["index"] = 0  # zcast names element 1
    meta = copy.deepcopy(by_id["metadata/unknown-config-key/invalid"])
    del meta.line["error"]
    meta.line["expected"] = "0201"  # as if the unknown key were ignored
    report = _conformance.run("zcast", [wrong, index, meta])
    assert [f["id"] for f in report.failures] == [wrong.id, index.id, meta.id]
    assert report.failures[0]["got"] == "ok 013c"
    assert report.failures[1]["got"] == "cast-failure 1"
    assert report.failures[2]["got"] == "invalid-metadata"


def _ids(report: _conformance.Report) -> set[str]:
    return {f["id"] for f in report.failures}


@pytest.fixture(scope="module")
def small(cases: list[_conformance.Case]) -> list[_conformance.Case]:
    """The hand-written families: a few hundred cases, quick for the peers."""
    return [c for c in cases if not c.id.startswith(("cast/", "decode/", "scale_offset/"))]


def test_peer_deviations_documented_in_docs_conformance(small: list[_conformance.Case]) -> None:
    rs = _conformance.run("cast-value-rs", small)
    if not rs.available:
        pytest.skip(f"cast-value-rs: {rs.version}")
    # Double rounding float64 -> float16 (through float32): 0x3c00 instead of 0x3c01.
    assert "named/f64-f16-double-rounding" in _ids(rs)
    zp = _conformance.run("zarr-python", small)
    if zp.available:
        # The last of duplicate scalar_map keys wins; the fill value is not round-tripped (R9).
        assert "scalar_map/first-wins-float" in _ids(zp)
        assert "fill_value/1.5-uint8" in _ids(zp)
    cv = _conformance.run("cast-value", small)
    if cv.available:
        # nearest-away through numpy's round: 0.49999999999999994 -> 1.
        assert "named/nearest-away-0.49999999999999994" in _ids(cv)


def test_cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["conformance", "--vectors", str(VECTORS / "named.jsonl"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert status == 0
    assert out[0]["impl"] == "zcast" and out[0]["failed"] == 0 and out[0]["run"] > 20
    # A file with a wrong case makes the command fail and name it.
    line = json.loads((VECTORS / "named.jsonl").read_text().splitlines()[0])
    line["error"]["index"] = 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(line) + "\n")
    assert cli.main(["conformance", "--vectors", str(bad)]) == 1
    text = capsys.readouterr().out
    assert "first range failure: named/spec-128-int8-unset" in text
