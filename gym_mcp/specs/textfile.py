r"""Reading the text files people write by hand (task files, server spec files) without surprises.

- `decode_utf8`: bytes to text; a file that is not UTF-8 is a `NotUTF8` error naming the line,
  column and byte, not a `UnicodeDecodeError` traceback (a leading byte-order mark is dropped).
- `split_lines`: lines split on ``\n``, ``\r\n`` and ``\r`` only (`str.splitlines` also splits
  on U+2028, U+0085 and others, which JSON writes unescaped inside strings).
- `loads_json`: `json.loads`, except that what Python's parser lets through silently is an
  error: a key given twice in one object (the last one would win), ``NaN`` and ``Infinity``
  (not JSON), and a ``\ud800``-style escape with no pair (not a character; it cannot be
  written back out as UTF-8).

Errors are `ValueError`s with one-line messages; the caller names the file (and line) and raises
its own error type (`TaskError`, `ConfigError`).
"""

from __future__ import annotations

import codecs
import json
import re
from typing import Any

__all__ = ["NotUTF8", "check_unicode", "decode_utf8", "loads_json", "split_lines"]

_LINE_BREAK = re.compile(r"\r\n?|\n")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class NotUTF8(ValueError):
    """Bytes that are not UTF-8 text.

    Attributes:
        line: The line of the first bad byte (1-based).
        column: Its column, in bytes (1-based).
        byte: Its value.
    """

    def __init__(self, line: int, column: int, byte: int) -> None:
        super().__init__(f"not UTF-8 text (byte 0x{byte:02x} at line {line}, column {column}); save it as UTF-8")
        self.line = line
        self.column = column
        self.byte = byte


def decode_utf8(data: bytes) -> str:
    """``data`` as text (a leading UTF-8 byte-order mark is dropped).

    Args:
        data: The file's bytes.

    Returns:
        The text.

    Raises:
        NotUTF8: A byte sequence that is not UTF-8 (the first one is named).
    """
    start = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        return data[start:].decode("utf-8")
    except UnicodeDecodeError as exc:
        at = start + exc.start
        line_start = data.rfind(b"\n", 0, at) + 1
        raise NotUTF8(data.count(b"\n", 0, at) + 1, at - line_start + 1, data[at]) from None


def split_lines(text: str) -> list[str]:
    r"""``text``'s lines, split on ``\n``, ``\r\n`` and ``\r`` only (no line ends kept)."""
    return _LINE_BREAK.split(text)


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key {key!r} is given twice in one object")
        out[key] = value
    return out


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def check_unicode(value: Any) -> None:
    """Raise `ValueError` if a string in ``value`` (parsed JSON, YAML...) holds a lone surrogate.

    Args:
        value: Parsed data: dicts, lists, strings, numbers.
    """
    try:
        json.dumps(value, ensure_ascii=False, default=str, skipkeys=True).encode("utf-8")
    except UnicodeEncodeError as exc:
        char = ord(exc.object[exc.start])
        raise ValueError(f"a string holds \\u{char:04x}, half of a surrogate pair (not valid Unicode)") from None


def loads_json(text: str) -> Any:
    """Parse JSON strictly.

    Args:
        text: The JSON text.

    Returns:
        The value.

    Raises:
        json.JSONDecodeError: Not JSON (its ``msg``, ``lineno`` and ``colno`` say where).
        ValueError: A duplicate key, ``NaN``/``Infinity``, or a lone surrogate escape.
    """
    value = json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant)
    if _SURROGATE_ESCAPE.search(text):
        check_unicode(value)
    return value
