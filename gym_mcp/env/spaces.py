"""Gymnasium spaces for text observations and actions.

Gymnasium's `Text` space only admits characters of its charset (alphanumeric by default), and
its shared-memory encoding for `AsyncVectorEnv` maps characters through that charset. Tool
results are arbitrary Unicode, so `UnicodeText` admits any string up to ``max_length`` and
stores strings in shared memory as Unicode code points, which makes
``gym.make_vec(..., vectorization_mode="async")`` return correct observations with its default
``shared_memory=True``.
"""

from __future__ import annotations

import multiprocessing as mp
import string
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any, overload

import numpy as np
from gymnasium.spaces import Text
from gymnasium.vector.utils.shared_memory import (
    create_shared_memory,
    read_from_shared_memory,
    write_to_shared_memory,
)

__all__ = ["SharedTextBatch", "UnicodeText"]

_SAMPLE_CHARSET = string.ascii_letters + string.digits + string.punctuation + " "


class UnicodeText(Text):
    """A text space holding any Unicode string of at most ``max_length`` characters.

    Args:
        max_length: Longest string in the space.
        seed: Seed of the space's sampler (samples are printable ASCII).
    """

    def __init__(self, max_length: int, *, seed: int | np.random.Generator | None = None) -> None:
        super().__init__(max_length=max_length, min_length=0, charset=_SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        """Any `str` no longer than ``max_length``."""
        return isinstance(x, str) and len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText({self.max_length})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnicodeText) and other.max_length == self.max_length

    def __hash__(self) -> int:
        return hash(("UnicodeText", self.max_length))


@create_shared_memory.register(UnicodeText)
def _create(space: UnicodeText, n: int = 1, ctx: ModuleType = mp) -> Any:
    # One extra slot per string for its length.
    return ctx.Array(np.dtype(np.int32).char, n * (space.max_length + 1))


@write_to_shared_memory.register(UnicodeText)
def _write(space: UnicodeText, index: int, value: str, shared_memory: Any) -> None:
    size = space.max_length + 1
    codes = np.frombuffer(value[: space.max_length].encode("utf-32-le"), dtype=np.int32)
    dest = np.frombuffer(shared_memory.get_obj(), dtype=np.int32)
    dest[index * size] = len(codes)
    dest[index * size + 1 : index * size + 1 + len(codes)] = codes


class SharedTextBatch(Sequence[str]):
    """A live view of ``n`` strings in shared memory.

    `AsyncVectorEnv` reads its shared observation buffer once, at construction, and expects a
    view that later writes show through (true of NumPy arrays, not of a tuple of `str`). This
    view decodes on access; ``copy.deepcopy`` (what the vector env returns by default) turns it
    into a plain tuple.
    """

    def __init__(self, data: np.ndarray) -> None:
        self._data = data

    def __len__(self) -> int:
        return int(self._data.shape[0])

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...
    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        row = self._data[index]
        return row[1 : 1 + int(row[0])].tobytes().decode("utf-32-le")

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        return tuple(self) == (tuple(other) if isinstance(other, Sequence) else other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[str, ...]:
        return tuple(self)


@read_from_shared_memory.register(UnicodeText)
def _read(space: UnicodeText, shared_memory: Any, n: int = 1) -> SharedTextBatch:
    size = space.max_length + 1
    return SharedTextBatch(np.frombuffer(shared_memory.get_obj(), dtype=np.int32).reshape((n, size)))
