"""How long a structured action is as JSON, found without serializing it (and stopping at a limit).

``len(json.dumps(action))`` builds the whole text first: a 50 MB argument cost 530 MB and a
second before it was refused. `json_size` walks the value instead, adds up the length each part
takes in ``json.dumps``'s default output, and stops as soon as the sum passes the limit, so a huge
action is refused at the cost of looking at its first parts.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["json_size"]


def json_size(value: Any, limit: int) -> int:
    """``len(json.dumps(value))`` when that is at most ``limit``; else some number above ``limit``.

    The value is plain JSON (checked by `gym_mcp.actions.parsing.json_problem` first). Walks it
    without recursion; a string longer than what is left of the limit ends the walk unread.

    Args:
        value: A structured action: dicts with string keys, lists, strings, numbers, booleans, None.
        limit: The largest size that needs an exact answer.
    """
    total = 0
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if len(item) + 2 > limit - total:  # quotes and at least one character each: over already
                return limit + 1
            total += len(json.dumps(item))
        elif isinstance(item, dict):
            total += 2 + (4 * len(item) - 2 if item else 0)  # "{}", ": " in each pair, ", " between them
            if total <= limit:
                for key, val in item.items():
                    stack.append(val)
                    stack.append(key)
        elif isinstance(item, list | tuple):
            total += 2 + 2 * max(len(item) - 1, 0)  # "[]" and ", " between items
            if total <= limit:
                stack.extend(item)
        else:  # numbers, booleans, None: short
            total += len(json.dumps(item))
        if total > limit:
            return total
    return total
