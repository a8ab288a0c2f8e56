"""zcast inspect: a Zarr v3 array's codec chain with the data type and fill value after each
array -> array codec, validated as zcast's core reads it.

The zarr.json is first parsed by the core's own strict JSON reader (``_zcast.check_json``), so
inspect accepts and rejects exactly the documents a C reader does: a duplicate key or nesting
deeper than 64 is an error, and numbers Python's json module would change (``1e400``, an
integer of thousands of digits) are kept as their lexeme (zcast._json). The fill value of one of
the 26 types is read by the core's JSON scalar rules too.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import zcast
from zcast import _api, _json, _zcast
from zcast._chain import OWNED_CODECS
from zcast._cli_common import CliError, _codec_name, describe_os_error
from zcast._errors import MetadataError


_LONG_WORD_RE = re.compile(r"\S{61,}")


def _bound(message: str, limit: int = 400) -> str:
    """A message as quoted in a listing: each very long word (a number or string of the
    document, which may be megabytes long) shortened to its start and length, then the whole
    kept under ``limit`` characters."""
    message = _LONG_WORD_RE.sub(lambda m: f"{m.group()[:40]}...({len(m.group())} characters)",
                                message)
    return message if len(message) <= limit else f"{message[:limit]}...({len(message)} characters)"


def _describe_codec(d: Any) -> str:
    if isinstance(d, str):
        return d  # a bare codec name (R26)
    if not isinstance(d, dict):
        return _json.dumps(d, brief=True)
    conf = d.get("configuration")
    if d.get("name") == "sharding_indexed" and isinstance(conf, dict):
        # The inner codecs are listed below it, one per line.
        conf = {k: v for k, v in conf.items() if k != "codecs"}
    return str(d.get("name", "?")) + (" " + _json.dumps(conf, brief=True) if conf else "")


def _after(indent: str, data_type: str, fill: Any) -> str:
    return (f"{indent}   -> data_type {data_type}, fill_value "
            f"{'none' if fill is None else _json.dumps(fill, brief=True)}")


_CHAIN_ERROR_RE = re.compile(r"^(?:invalid array metadata: )?codecs\[(\d+)\]: ")


def _inspect_owned(codecs: list[Any], spec: Any, meta: str | None, indent: str,
                   out: list[str], where: str, checked: dict[str, int],
                   problems: list[str]) -> tuple[int, Any]:
    """The leading codecs zcast owns, through zcast.Chain (the core's own reading, as a C reader
    gets it from zcast_chain_create): each codec with the data type and fill value after each of
    its steps, then one line for the chain. Returns how many codecs it owns and the chunk spec
    after them (None on a problem, which is appended to `problems`)."""
    from dataclasses import replace

    from zarr.core.dtype import get_data_type_from_json

    try:
        if meta is not None:
            chain = zcast.Chain.from_array_metadata(meta)
        else:
            fill = (None if spec.fill_value is None
                    else spec.dtype.to_json_scalar(spec.fill_value, zarr_format=3))
            chain = zcast.Chain.from_codecs(codecs, spec.dtype.to_json(zarr_format=3), fill)
    except MetadataError as err:
        message = str(err)
        m = _CHAIN_ERROR_RE.match(message)
        bad = int(m.group(1)) if m else None
        for i, d in enumerate(codecs[: (bad + 1) if bad is not None else 0]):
            out.append(f"{indent}{i}  {_describe_codec(d)}")
        detail = _bound(message[m.end():] if m else message)
        problems.append(f"{where}[{bad}] {_codec_name(codecs[bad])}: {detail}" if m
                        else f"{where}: {detail}")
        out.append(f"{indent}   INVALID: {detail}")
        return 0, None
    steps = iter(chain.steps)
    for i in range(chain.owned_codecs):
        d = codecs[i]
        name = _codec_name(d)
        checked[name] = checked.get(name, 0) + 1
        out.append(f"{indent}{i}  {_describe_codec(d)}")
        if name == "numcodecs.fixedscaleoffset":  # read as two steps (R25)
            for step in (next(steps), next(steps)):
                out.append(f"{indent}   = {_describe_codec(step.codec)}")
                out.append(_after(indent + "  ", step.data_type, step.fill_value))
        else:
            step = next(steps)
            out.append(_after(indent, step.data_type, step.fill_value))
    n = chain.owned_codecs
    rest = chain.first_unowned_codec
    owned = "codec 0" if n == 1 else f"codecs 0-{n - 1}"
    out.append(f"{indent}   zcast chain: {owned}, {len(chain.steps)} step(s) in one "
               f"fused pass, {chain.data_type} -> {chain.encoded_data_type}; "
               + (f"the reader takes over at codec {n} ({rest})" if rest
                  else "it owns every codec"))
    dtype = get_data_type_from_json(chain.encoded_data_type, zarr_format=3)
    fill = chain.encoded_fill_value_json
    spec = replace(spec, dtype=dtype,
                   fill_value=None if fill is None else dtype.from_json_scalar(fill, zarr_format=3))
    return n, spec


def _inspect_chain(codecs: list[Any], spec: Any, indent: str, out: list[str], where: str,
                   checked: dict[str, int], meta: str | None = None) -> list[str]:
    """Walks a codec list with the chunk spec, printing each codec and, after an array->array
    codec, the data type and fill value it produces. The leading scale_offset / cast_value /
    numcodecs.fixedscaleoffset run is read by zcast's chain (meta: the whole zarr.json text, for
    the array's own list); the rest by zarr's codec classes. Returns the problems found."""
    from zarr.abc.codec import ArrayArrayCodec
    from zarr.registry import get_codec_class

    import zcast.zarr as zz

    problems: list[str] = []
    start = 0
    if codecs and _codec_name(codecs[0]) in OWNED_CODECS:
        start, spec = _inspect_owned(codecs, spec, meta, indent, out, where, checked, problems)
        if spec is None:
            return problems
    for i, d in enumerate(codecs[start:], start):
        name = _codec_name(d)
        out.append(f"{indent}{i}  {_describe_codec(d)}")
        if name in ("cast_value", "scale_offset"):  # after a codec the chain does not own
            try:
                codec = (zz.CastValue if name == "cast_value" else zz.ScaleOffset).from_dict(d)
                codec.validate(shape=spec.shape, dtype=spec.dtype, chunk_grid=None)
                spec = codec.resolve_metadata(spec)
            except (MetadataError, ValueError, TypeError) as err:
                problems.append(f"{where}[{i}] {name}: {_bound(str(err))}")
                out.append(f"{indent}   INVALID: {_bound(str(err))}")
                return problems
            checked[name] = checked.get(name, 0) + 1
            out.append(_after(indent, spec.dtype.to_json(zarr_format=3),
                              spec.dtype.to_json_scalar(spec.fill_value, zarr_format=3)))
            continue
        try:
            codec = get_codec_class(name).from_dict(d if isinstance(d, dict) else {"name": d})
        except Exception as err:  # noqa: BLE001 - unknown or invalid codec: report and stop
            problems.append(f"{where}[{i}] {name}: {_bound(str(err))}")
            out.append(f"{indent}   cannot interpret: {_bound(str(err))}")
            return problems
        if isinstance(codec, ArrayArrayCodec):
            spec = codec.resolve_metadata(spec)
            out.append(_after(indent, spec.dtype.to_json(zarr_format=3),
                              spec.dtype.to_json_scalar(spec.fill_value, zarr_format=3)))
        conf = d.get("configuration") if isinstance(d, dict) else None
        inner = conf.get("codecs") if name == "sharding_indexed" and isinstance(conf, dict) else None
        if isinstance(inner, list):  # zarr's ShardingCodec accepted it, chunk shape included
            from dataclasses import replace
            chunk_shape = tuple(codec.chunk_shape)
            out.append(f"{indent}   inner chunks {list(chunk_shape)}:")
            problems += _inspect_chain(inner, replace(spec, shape=chunk_shape), indent + "     ",
                                       out, f"{where}[{i}].codecs", checked)
    return problems


def _read_metadata(path: Path) -> tuple[Path, str, dict[str, Any]]:
    """The array's zarr.json: its path, text and document, checked by the core's JSON reader."""
    meta_path = path / "zarr.json" if path.is_dir() else path
    if path.is_dir() and not meta_path.exists() and (path / ".zarray").exists():
        raise CliError(f"{path} is a Zarr v2 array (.zarray): zcast inspect reads Zarr v3 "
                       f"arrays; zcast convert rewrites a v2 array as v3")
    try:
        text = meta_path.read_bytes().decode("utf-8")
    except OSError as err:
        raise CliError(f"cannot read {describe_os_error(err)}") from None
    except UnicodeDecodeError as err:
        raise CliError(f"{meta_path} is not UTF-8 text: {err}") from None
    try:
        top = _zcast.check_json(text)  # the core's strict reader, first
    except MetadataError as err:
        raise CliError(f"{meta_path}: {_bound(str(err))}") from None
    if top != "object":
        raise CliError(f"{meta_path} is not a Zarr v3 array: the document is a JSON {top}, "
                       f"not an object")
    meta = _json.loads(text)
    if meta.get("zarr_format") != 3 or meta.get("node_type") != "array":
        raise CliError(f"{meta_path} is not a Zarr v3 array (zarr_format "
                       f"{_json.dumps(meta.get('zarr_format'), brief=True)}, node_type "
                       f"{_json.dumps(meta.get('node_type'), brief=True)})")
    return meta_path, text, meta


def _fill_value(zdtype: Any, data_type: Any, fill_json: Any) -> Any:
    """The fill value as a scalar of the data type: the core's JSON scalar rules for its 26
    types (exact, from the lexeme: 1e400, long decimals), zarr's for any other type."""
    if isinstance(data_type, str) and data_type in zcast.DATA_TYPES:
        return _api.scalar_from_json(_json.dumps(fill_json), data_type)
    return zdtype.from_json_scalar(fill_json, zarr_format=3)


def cmd_inspect(args: argparse.Namespace) -> int:
    from zarr.core.array_spec import ArrayConfig, ArraySpec
    from zarr.core.buffer import default_buffer_prototype
    from zarr.core.dtype import get_data_type_from_json

    import zcast.zarr  # noqa: F401 - registers the extra data types

    path = Path(args.path)
    meta_path, text, meta = _read_metadata(path)
    data_type, fill_json = meta.get("data_type"), meta.get("fill_value")
    try:
        zdtype = get_data_type_from_json(data_type, zarr_format=3)
        fill = _fill_value(zdtype, data_type, fill_json)
    except Exception as err:  # noqa: BLE001 - zarr raises several types; one line each
        raise CliError(f"data_type {_json.dumps(data_type, brief=True)} / fill_value "
                       f"{_json.dumps(fill_json, brief=True)}: {_bound(str(err))}") from None
    shape = meta.get("shape")
    if not isinstance(shape, list) or not all(isinstance(s, int) and s >= 0 for s in shape):
        raise CliError(f"{meta_path}: shape {_json.dumps(shape, brief=True)} is not a list of "
                       f"non-negative integers")
    grid_meta = meta.get("chunk_grid")
    grid = None
    if isinstance(grid_meta, dict) and isinstance(grid_meta.get("configuration"), dict):
        grid = grid_meta["configuration"].get("chunk_shape")
    if grid is not None and (not isinstance(grid, list) or len(grid) != len(shape)
                             or not all(isinstance(c, int) and c > 0 for c in grid)):
        raise CliError(f"{meta_path}: chunk_shape {_json.dumps(grid, brief=True)} is not a list "
                       f"of {len(shape)} positive integers")
    lines = [f"{path}: Zarr v3 array, shape {shape}, chunks {grid}, "
             f"data_type {_json.dumps(data_type, brief=True)}, "
             f"fill_value {_json.dumps(fill_json, brief=True)}",
             "codecs:"]
    codecs = meta.get("codecs", [])
    if not isinstance(codecs, list):
        print("\n".join(lines))
        print(f"INVALID: 1 problem(s):\n  codecs: expected an array of codecs, got "
              f"{_json.dumps(codecs, brief=True)}")
        return 1
    spec = ArraySpec(shape=tuple(grid or shape), dtype=zdtype, fill_value=fill,
                     config=ArrayConfig.from_dict({}), prototype=default_buffer_prototype())
    checked: dict[str, int] = {}
    with zcast.zarr.use():  # zarr parses inner codecs of sharding itself: no "which one" warning
        problems = _inspect_chain(codecs, spec, "  ", lines, "codecs", checked, meta=text)
    print("\n".join(lines))
    if problems:
        print(f"INVALID: {len(problems)} problem(s):")
        for p in problems:
            print(f"  {p}")
        return 1
    counts = [f"{checked[n]} {n}" for n in OWNED_CODECS if checked.get(n)]
    print(f"metadata valid ({', '.join(counts)} codec(s) checked)" if counts
          else "metadata valid (no scale_offset or cast_value codec)")
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("inspect", help="show a Zarr array's codec chain and validate "
                       "scale_offset / cast_value",
                       description="Shows a Zarr v3 array's codec chain with the data type and "
                       "fill value after each array->array codec, reads the leading "
                       "scale_offset / cast_value / numcodecs.fixedscaleoffset codecs as zcast's "
                       "chain does (the part a C reader gets from zcast_chain_create) and says "
                       "where the reader takes over, and validates that metadata (errors name the "
                       "key and value). The zarr.json is parsed by the core's strict JSON reader "
                       "first (duplicate keys, nesting deeper than 64 are errors). Exit status 1 "
                       "if invalid.")
    p.add_argument("path", metavar="PATH", help="array directory or its zarr.json")
    p.set_defaults(func=cmd_inspect)
