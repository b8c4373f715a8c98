"""``info["messages"]`` without a copy per step: `Conversation`, a fixed-length view of the episode's messages.

An environment's conversation only grows during an episode (a reset or a restore starts a new
list), so the first ``n`` messages of the list never change once written. A view of those ``n``
is made in O(1) however long the episode is, and stays what it was when the step returned
while the episode goes on: the same guarantee a copy gave, without copying thousands of
messages every step.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Any, overload

__all__ = ["Conversation"]


class Conversation(Sequence[dict[str, Any]]):
    """The first ``length`` messages of an episode's message list, read-only (OpenAI chat format).

    It is a `Sequence`: index it, slice it (a slice is a plain list), iterate it, take its
    ``len``; ``list(view)`` gives a list to change or to serialize (JSON needs a list). It
    compares equal to any sequence of the same messages, and pickles as a plain list.

    Args:
        messages: The environment's list of messages (appended to, never rewritten).
        length: How many of them the view shows (default: all of them now).
    """

    __slots__ = ("_length", "_messages")

    def __init__(self, messages: list[dict[str, Any]], length: int | None = None) -> None:
        self._messages = messages
        self._length = len(messages) if length is None else length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [self._messages[i] for i in range(self._length)[index]]
        return self._messages[range(self._length)[index]]  # range raises IndexError past the view

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return islice(self._messages, self._length)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(other) == self._length and all(a == b for a, b in zip(self, other, strict=False))

    __hash__ = None  # type: ignore[assignment]  # equal to lists, which are unhashable

    def __repr__(self) -> str:
        return f"Conversation({list(self)!r})"

    def __reduce__(self) -> tuple[type[list[dict[str, Any]]], tuple[list[dict[str, Any]]]]:
        return list, (list(self),)
