"""JSON values as the core reads them, for display and inspection.

Python's json module and zcast's core disagree on two kinds of numbers the core reads exactly
from their lexeme (semantics.md, JSON scalars): an integer of more than 4300 digits (int() refuses
it) and a number beyond the double range such as ``1e400`` (float() makes it infinite, and
json.dumps then writes ``Infinity``, which is not JSON). :func:`loads` keeps those as
:class:`Number`, a str subclass holding the lexeme, and every float as :class:`Float`, which
remembers its lexeme; :func:`dumps` writes lexemes back unchanged (optionally shortened for
messages). Only call :func:`loads` on text the core's strict reader accepted
(``_zcast.check_json``): NaN / Infinity literals and duplicate keys are rejected there.
"""

from __future__ import annotations

import json
import math
from typing import Any

# CPython refuses int(str) above 4300 digits (sys.int_info.default_max_str_digits); stay clear.
_MAX_INT_DIGITS = 4000
# dumps(brief=True) quotes at most this many characters of a number or a string.
_BRIEF = 40


class Number(str):
    """A JSON number Python cannot hold as int or float exactly (see the module doc): its lexeme."""

    __slots__ = ()


class Float(float):
    """A JSON float that remembers the lexeme it was read from (``0.1`` and ``0.10`` differ)."""

    lexeme: str


def _parse_float(text: str) -> Any:
    value = Float(text)
    if not math.isfinite(value):
        return Number(text)
    value.lexeme = text
    return value


def _parse_int(text: str) -> Any:
    return Number(text) if len(text) > _MAX_INT_DIGITS else int(text)


def loads(text: str) -> Any:
    """json.loads that keeps the numbers Python would change (see the module doc)."""
    return json.loads(text, parse_float=_parse_float, parse_int=_parse_int)


def _brief(text: str, what: str) -> str:
    if len(text) <= _BRIEF:
        return text
    return f"{text[:_BRIEF]}...({len(text)} {what})"


def dumps(value: Any, *, brief: bool = False) -> str:
    """Compact JSON text of a value from :func:`loads` with every number's lexeme unchanged.
    ``brief=True`` shortens long numbers and strings for a message (the result is then no longer
    JSON: ``1234567890...(5000 characters)``)."""
    if isinstance(value, Number):
        return _brief(str(value), "characters") if brief else str(value)
    if isinstance(value, Float) and hasattr(value, "lexeme"):
        return _brief(value.lexeme, "characters") if brief else value.lexeme
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{dumps(v, brief=brief)}"
                              for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dumps(v, brief=brief) for v in value) + "]"
    if isinstance(value, int) and not isinstance(value, bool):
        text = str(value)
        return _brief(text, "digits") if brief else text
    text = json.dumps(value)
    return _brief(text, "characters") if brief and isinstance(value, str) else text
