"""A pytest plugin that runs zarr-python's own cast_value / scale_offset tests on zcast's classes.

Loaded with ``-p zarr_upstream_plugin`` by test_zarr_upstream.py, in a pytest subprocess whose
rootdir holds zarr's ``tests/`` as extracted from the sdist of the installed zarr. Importing this
module (pytest does it while parsing ``-p``, before any conftest or test module is imported)
replaces the module attributes ``zarr.codecs.cast_value.CastValue`` and
``zarr.codecs.scale_offset.ScaleOffset`` with zcast's classes, so that zarr's ``from
zarr.codecs.cast_value import CastValue`` gets zcast's, and selects zcast's codecs in zarr's
registry (``zcast.zarr.use()``) for arrays opened from metadata.

Tests of zarr's cast-value-rs backend guard are skipped with the reason, by name
(NOT_APPLICABLE); tests of zarr's private helpers run as they are (ZARR_HELPERS). A name in either
list that no longer exists in the upstream files is a usage error, so the lists cannot go stale
unnoticed. Every test's outcome is written as JSON to the file named by
the environment variable ZCAST_UPSTREAM_REPORT.
"""

from __future__ import annotations

import json
import os

import pytest
import zarr.codecs
import zarr.codecs.cast_value
import zarr.codecs.scale_offset

import zcast.zarr

zarr.codecs.cast_value.CastValue = zcast.zarr.CastValue
zarr.codecs.scale_offset.ScaleOffset = zcast.zarr.ScaleOffset
zarr.codecs.CastValue = zcast.zarr.CastValue
zarr.codecs.ScaleOffset = zcast.zarr.ScaleOffset
_USE = zcast.zarr.use()  # kept for the whole run

from zarr_upstream_cases import NOT_APPLICABLE, ZARR_HELPERS  # noqa: E402 - after the substitution

_outcomes: dict[str, dict[str, str]] = {}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    seen = set()
    for item in items:
        name = item.originalname if hasattr(item, "originalname") else item.name
        if name in NOT_APPLICABLE:
            seen.add(name)
            item.add_marker(pytest.mark.skip(reason="not applicable: " + NOT_APPLICABLE[name]))
        elif name in ZARR_HELPERS:
            seen.add(name)
    missing = sorted((set(NOT_APPLICABLE) | set(ZARR_HELPERS)) - seen)
    if missing:
        raise pytest.UsageError(f"zarr_upstream_cases names tests that were not collected: {missing}")
    # The test modules must hold zcast's classes (imported after the substitution), or every
    # result below would be zarr's own.
    for module in {item.module for item in items if getattr(item, "module", None)}:
        for attr, cls in (("CastValue", zcast.zarr.CastValue), ("ScaleOffset", zcast.zarr.ScaleOffset)):
            if hasattr(module, attr) and getattr(module, attr) is not cls:
                raise pytest.UsageError(f"{module.__name__}.{attr} is not zcast's class")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    entry = _outcomes.setdefault(report.nodeid, {"outcome": "passed", "detail": ""})
    if report.failed:
        entry["outcome"] = "failed" if report.when == "call" else "error"
        entry["detail"] = str(report.longrepr)[-3000:]
    elif report.skipped and entry["outcome"] == "passed":
        entry["outcome"] = "skipped"
        longrepr = report.longrepr
        entry["detail"] = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = os.environ.get("ZCAST_UPSTREAM_REPORT")
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"exitstatus": int(exitstatus), "tests": _outcomes}, f, indent=1)
