"""A spec file's ``[tools.hints.<tool>]``: what its author says about a tool, over the inference.

A hint sets any of ``kind`` (``"read"`` / ``"write"``), ``intent`` (a request template in the
kit's grammar), ``samples`` (``{param: [values]}``), ``pools`` (``{param: column}``) and
``confirm`` (``"always"`` or a threshold such as ``"amount >= 100"``) for one tool, named as the
server lists it. `apply_hints` lays them over the tools' specs (inferred or served); the spec
file's own checks (`gym_mcp.specs.schema.ToolHint`) cover the keys and their types, and this
module what only the live tool list can tell: the tool exists, the parameters are its own, the
template's ``{placeholders}`` are parameters. Each problem is one line.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

from gym_mcp.errors import ConfigError
from gym_mcp.synth.graph import ToolSpec

__all__ = ["apply_hints", "check_hints"]

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _near(name: str, names: Sequence[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, names, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_hints(
    hints: Mapping[str, Mapping[str, Any]],
    schemas: Mapping[str, Mapping[str, Any]],
    where: str = "spec",
) -> None:
    """Check hints against the server's tools; raise one line for the first problem.

    Args:
        hints: ``{server tool name: hint}`` as the spec gives them.
        schemas: ``{server tool name: its input schema's properties}``.
        where: The spec file and server, to start the message.

    Raises:
        ConfigError: A hint names a tool the server does not list, a parameter the tool does
            not take, or an intent ``{placeholder}`` that is no parameter.
    """
    for tool, hint in hints.items():
        key = f"tools.hints.{tool}"
        if tool not in schemas:
            known = sorted(schemas)
            raise ConfigError(f"{where}: {key}: the server has no tool {tool!r}{_near(tool, known)}")
        params = list(schemas[tool])
        for field in ("samples", "pools"):
            for param in hint.get(field) or {}:
                if param not in params:
                    raise ConfigError(
                        f"{where}: {key}.{field}: tool {tool!r} has no parameter {param!r}{_near(param, params)}"
                        f" (parameters: {', '.join(params) or 'none'})"
                    )
        intent = hint.get("intent")
        if intent is not None:
            for name in _PLACEHOLDER.findall(intent):
                if name not in params:
                    raise ConfigError(
                        f"{where}: {key}.intent: {{{name}}} is no parameter of {tool!r}{_near(name, params)}"
                        f" (parameters: {', '.join(params) or 'none'})"
                    )


def apply_hints(
    specs: Sequence[ToolSpec],
    hints: Mapping[str, Mapping[str, Any]],
    rename: Mapping[str, str] | None = None,
) -> list[ToolSpec]:
    """Lay hints over specs: each key a hint gives replaces what was inferred or served.

    ``samples`` and ``pools`` are merged per parameter (a hint for one parameter leaves the
    others' as they were). A hinted spec is marked ``inferred`` (its template is part of the
    tool-graph cache key).

    Args:
        specs: The tools' specs, named as the agent sees them.
        hints: ``{server tool name: hint}`` (checked by `check_hints`).
        rename: ``{server name: agent name}``: how hinted tools are named in ``specs``.
    """
    by_agent = {(rename or {}).get(tool, tool): hint for tool, hint in hints.items()}
    out = []
    for spec in specs:
        hint = by_agent.get(spec.name)
        if not hint:
            out.append(spec)
            continue
        changes: dict[str, Any] = {"inferred": True}
        if hint.get("kind") is not None:
            changes["write"] = hint["kind"] == "write"
        if hint.get("intent") is not None:
            changes["intent"] = hint["intent"]
        if hint.get("confirm") is not None:
            changes["confirm"] = hint["confirm"]
        if hint.get("samples"):
            changes["samples"] = {**spec.samples, **{k: tuple(v) for k, v in hint["samples"].items()}}
        if hint.get("pools"):
            changes["pools"] = {**spec.pools, **dict(hint["pools"])}
        out.append(dataclasses.replace(spec, **changes))
    return out
