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
