"""The exceptions of zcast.

They live in pure Python (the extension module raises them by name) so that the package can add
context the C++ core does not know, such as the numpy index tuple of a failing element.
"""

from __future__ import annotations


class MetadataError(ValueError):
    """Invalid cast_value configuration: the metadata, a data type or a fill value.

    The message names the offending key and value, e.g. ``scalar_map.encode[0][1]: 300 is not a
    valid uint8 scalar: out of range``.
    """


class CastError(ValueError):
    """An element has no result under the configuration (semantics.md, "The procedure").

    ``index`` is the first failing element's index as a tuple (numpy indexing order, ``()`` for a
    0-d array) or ``None`` when the core did not name one; ``str(err)`` also names the value, the
    source and target types and the reason.
    """

    def __init__(self, message: str, index: tuple[int, ...] | None = None) -> None:
        super().__init__(message)
        self.index = index


class MetadataTypeError(MetadataError, TypeError):
    """A configuration value of the wrong Python type (e.g. a list as scale_offset ``offset``):
    both a MetadataError and the TypeError zarr-python raises for it."""


#: Text a message quotes whole; longer text is cut (R34, as the core's internal::Brief).
BRIEF_MAX_BYTES = 64


def brief(text: str) -> str:
    """``text`` (already quoted or repr()'d) bounded for a message, as the core bounds what it
    quotes (R34): up to 64 UTF-8 bytes whole, else its first 48 bytes (never cutting a character),
    ``...`` and the total length, e.g. ``'xxxx…'... (10000002 bytes)``."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= BRIEF_MAX_BYTES:
        return text
    head = data[:BRIEF_MAX_BYTES - 16].decode("utf-8", "ignore")
    return f"{head}... ({len(data)} bytes)"
