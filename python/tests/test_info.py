"""Which SIMD target runs: zcast.simd_target(), zcast.simd_targets() and ``zcast info``, and the
ZCAST_SIMD_TARGET cap (read once per process, so each case is a fresh interpreter)."""

import os
import subprocess
import sys

import zcast


def run_python(code, **env):
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})
    assert proc.returncode == 0, proc.stderr
    return proc


def test_target_is_supported_and_compiled():
    compiled = zcast.simd_targets()
    supported = zcast.simd_targets(supported=True)
    assert compiled[0] == "baseline" and supported[0] == "baseline"
    assert set(supported) <= set(compiled)
    assert zcast.simd_target() in supported
    # The best supported target by default (when the test runner itself sets no cap).
    if "ZCAST_SIMD_TARGET" not in os.environ:
        assert zcast.simd_target() == supported[-1]


def test_cap_by_name_case_insensitive():
    for name in zcast.simd_targets(supported=True):
        out = run_python("import zcast; print(zcast.simd_target())", ZCAST_SIMD_TARGET=name.lower())
        assert out.stdout.strip() == name


def test_cap_to_a_target_the_cpu_lacks_gives_the_best_below():
    compiled = zcast.simd_targets()
    supported = zcast.simd_targets(supported=True)
    for i, name in enumerate(compiled):
        out = run_python("import zcast; print(zcast.simd_target())", ZCAST_SIMD_TARGET=name)
        want = [t for t in compiled[: i + 1] if t in supported][-1]
        assert out.stdout.strip() == want


def test_unknown_cap_is_reported_and_ignored():
    out = run_python("import zcast; print(zcast.simd_target())", ZCAST_SIMD_TARGET="AVX9000")
    assert out.stdout.strip() == zcast.simd_targets(supported=True)[-1]
    assert "ZCAST_SIMD_TARGET=AVX9000 names no compiled target" in out.stderr


def test_cli_info():
    env = {**os.environ, "ZCAST_SIMD_TARGET": "baseline"}
    proc = subprocess.run([sys.executable, "-m", "zcast", "info"], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == f"zcast {zcast.__version__}"
    assert lines[1] == "SIMD target: baseline (capped by ZCAST_SIMD_TARGET=baseline)"
    assert lines[2] == "compiled targets: " + " ".join(zcast.simd_targets())
    assert lines[3] == "supported targets: " + " ".join(zcast.simd_targets(supported=True))


def cli_info_line(cap: str) -> tuple[str, str]:
    """`zcast info`'s SIMD target line and its stderr, under ZCAST_SIMD_TARGET=cap."""
    proc = subprocess.run([sys.executable, "-m", "zcast", "info"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "ZCAST_SIMD_TARGET": cap})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()[1], proc.stderr


def test_cli_info_unknown_cap_says_it_is_ignored():
    line, err = cli_info_line("bogus")
    best = zcast.simd_targets(supported=True)[-1]
    assert line == (f"SIMD target: {best} (ZCAST_SIMD_TARGET=bogus ignored: no compiled target "
                    "has that name)")
    assert "capped" not in line
    assert "ZCAST_SIMD_TARGET=bogus names no compiled target" in err


def test_cli_info_cap_at_or_above_the_best_does_not_claim_to_cap():
    compiled, supported = zcast.simd_targets(), zcast.simd_targets(supported=True)
    best = supported[-1]
    above = [t for t in compiled if compiled.index(t) >= compiled.index(best)]
    for name in above:  # the best itself, and any compiled target this CPU lacks above it
        line, _ = cli_info_line(name.lower())
        assert line == (f"SIMD target: {best} (the best this CPU supports; "
                        f"ZCAST_SIMD_TARGET={name.lower()} does not lower it)")
