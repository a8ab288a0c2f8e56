"""One version everywhere: CMakeLists.txt's project(zcast VERSION ...) is the source, and the
installed package's metadata, zcast.__version__, the C API's zcast_version(), `zcast --version`
and the newest CHANGELOG.md entry all report it."""

from __future__ import annotations

import ctypes
import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import zcast
from zcast import _zcast

ROOT = Path(__file__).resolve().parents[2]


def cmake_version() -> str:
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    found = re.findall(r"^project\(zcast\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)\b", text, re.M)
    assert len(found) == 1, f"CMakeLists.txt: {len(found)} project(zcast VERSION ...) lines"
    return found[0]


def test_package_metadata_is_the_cmake_version():
    assert importlib.metadata.version("zcast") == cmake_version()


def test_module_version_is_the_c_api_version():
    # _zcast.__version__ is the text zcast_version() returns, compiled into the library.
    assert _zcast.__version__ == cmake_version()
    assert zcast.__version__ == _zcast.__version__


def test_command_line_version():
    proc = subprocess.run([sys.executable, "-m", "zcast", "--version"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"zcast {cmake_version()}"


def test_changelog_starts_with_the_cmake_version():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[?([0-9]+\.[0-9]+\.[0-9]+)\]?", text, re.M)
    assert headings, "CHANGELOG.md has no '## X.Y.Z' heading"
    assert headings[0] == cmake_version()


def test_shared_library_zcast_version():
    """zcast_version() of the build tree's libzcast.so (ZCAST_BUILD_DIR, else build/release)."""
    build = Path(os.environ.get("ZCAST_BUILD_DIR", ROOT / "build" / "release"))
    libs = sorted(build.glob("libzcast.so.*"))
    if not libs:
        pytest.skip(f"NOT RUN: no libzcast.so.* in {build} (the shared library's build)")
    lib = ctypes.CDLL(str(libs[0]))
    lib.zcast_version.restype = ctypes.c_char_p
    assert lib.zcast_version().decode() == cmake_version()
