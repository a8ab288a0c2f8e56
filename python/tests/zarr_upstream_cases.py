"""zarr-python's codec tests that do not apply to zcast's classes, by name, with the reason.

Shared by test_zarr_upstream.py (which reports each as skipped) and zarr_upstream_plugin.py (which
skips them in the upstream run). No side effects: importing this module changes nothing in zarr.
"""

from __future__ import annotations

#: The two files of zarr's sdist that test the codecs zcast replaces.
UPSTREAM_FILES = ("tests/test_codecs/test_cast_value.py", "tests/test_codecs/test_scale_offset.py")

_BACKEND = ("tests zarr's guard of its cast-value-rs backend (zarr.codecs.cast_value's version "
            "check, _BACKEND_ERROR, _do_cast), which zcast's CastValue does not use")

#: test function name (in either file) -> why it does not apply to zcast's classes (skipped)
NOT_APPLICABLE = {
    "test_check_backend_version": _BACKEND,
    "test_check_backend_version_allows_missing_metadata": _BACKEND,
    "test_encode_rejects_outdated_backend": _BACKEND,
    "test_min_version_matches_pyproject": _BACKEND,
}

#: Tests of a private helper function of zarr's module, not of the codec class. They run (and must
#: pass) as they are: the substitution replaces the classes only, so they call zarr's own helper,
#: and each is named in the output as such. What they check of the codec's behaviour is checked on
#: zcast's classes by test_zarr_upstream.py's test_zcast_* tests.
ZARR_HELPERS = {
    "test_parse_scalar_map": "zarr.codecs.cast_value.parse_scalar_map",
    "test_float_nan_inf_preserved": "zarr.codecs.scale_offset._encode/_decode",
    "test_float32_dtype_preserved": "zarr.codecs.scale_offset._encode/_decode",
    "test_float_encode_rejects_wider_scalar": "zarr.codecs.scale_offset._encode",
    "test_float_decode_rejects_wider_scalar": "zarr.codecs.scale_offset._decode",
    "test_decode_fits_natively_negative_scale": "zarr.codecs.scale_offset._decode_fits_natively",
}
