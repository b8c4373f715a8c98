"""Small helpers over argument values: types, defaults, leaves of nested values, JSON, overlap."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

__all__ = ["MISSING", "decode", "default_value", "fits", "jaccard", "leaves"]

MISSING: Any = object()


def fits(value: Any, types: set[str]) -> bool:
    """Whether ``value`` has one of the JSON Schema ``types`` (a bool is no integer)."""
    if isinstance(value, bool):
        return "boolean" in types
    if isinstance(value, int):
        return bool(types & {"integer", "number"})
    if isinstance(value, float):
        return "number" in types
    if isinstance(value, str):
        return "string" in types
    return False


def default_value(types: set[str], rng: random.Random) -> Any:
    """A plausible value of a scalar type with no entity behind it; `MISSING` for strings."""
    if "integer" in types:
        return rng.randint(1, 3)
    if "number" in types:
        return float(rng.choice([5, 10, 20, 25, 40]))
    if "boolean" in types:
        return rng.random() < 0.5
    return MISSING


def leaves(obj: Any) -> list[Any]:
    """The scalar values inside nested dicts and lists, in order."""
    if isinstance(obj, Mapping):
        return [x for v in obj.values() for x in leaves(v)]
    if isinstance(obj, list):
        return [x for v in obj for x in leaves(v)]
    return [obj]


def decode(text: str) -> Any:
    """A tool result's JSON, or the text itself when it is not JSON."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text


def jaccard(a: set[str], b: set[str]) -> float:
    """Jaccard similarity of two sets (1.0 for two empty sets)."""
    return len(a & b) / len(a | b) if a or b else 1.0
