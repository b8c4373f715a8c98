"""A chain of calls as synthesis builds it: the calls, the sentences that ask for them, their outputs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Chain", "dig"]


@dataclass
class Chain:
    """A sampled chain of calls that ran on the live server.

    Attributes:
        calls: The calls (``{"name": ..., "arguments": {...}}``), as the agent names them.
        sentences: One rendered request per call.
        outputs: Each call's output text.
        refs: How many arguments refer to an earlier output (``that account``).
        tools: The tools called, in order.
        entities: The entity ids the chain touches.
        call_refs: Per call, the parameters the request refers to as an earlier output's
            (``that account``).
        missing: For a ``missing_param`` task: the call and parameter the request leaves out.
        carried: Per call, the parameters whose value was taken from an earlier output: the
            references, and the values rendered because no reference would mean one thing
            (`gym_mcp.synth.render`). Which calls depend on which; empty: ``call_refs``.
        fingerprint: The state's fingerprint after the calls, in the run that made the chain (a
            replay that reaches another is how a server that mints values shows itself).
    """

    calls: list[dict[str, Any]]
    sentences: list[str]
    outputs: list[str]
    refs: int
    tools: list[str]
    entities: set[str]
    call_refs: list[set[str]]
    missing: tuple[int, str] | None = None
    carried: list[set[str]] = field(default_factory=list)
    fingerprint: str = ""

    def carried_at(self, i: int) -> set[str]:
        """The parameters of call ``i`` whose value an earlier output gave (see ``carried``)."""
        return self.carried[i] if self.carried else self.call_refs[i]


def dig(output: Any, path: str) -> Any:
    """The value at a dot-separated path of a decoded JSON output (None when absent)."""
    for key in path.split("."):
        if isinstance(output, Mapping) and key in output:
            output = output[key]
        elif isinstance(output, list) and key.isdigit() and int(key) < len(output):
            output = output[int(key)]
        else:
            return None
    return output
