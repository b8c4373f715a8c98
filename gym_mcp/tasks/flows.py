"""Values that flow at run time from one reference call's output into a later call's argument.

A server that mints a value (a new note's random id) returns a different one on every run, so a
reference call that passes the id minted in the synthesis run (``update_note(note_id=...)``)
would name a note that no longer exists. A task records such a dependency in
``metadata["flows"]``, in the shape of a composition's `Bridge` but between reference calls::

    {"source": 0, "field": "note.id", "target": 1, "param": "note_id"}

says: call 1's argument ``note_id`` is the value at ``note.id`` of call 0's (JSON) output.
Whatever replays reference calls (`gym_mcp.playback.replay`, the reference policy, the
environment's `reference_fingerprint`) passes `carried` each call before sending it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

__all__ = ["FLOW_KEYS", "carried", "check_flows", "decoded", "dig", "paths"]

FLOW_KEYS = ("source", "field", "target", "param")
"""The keys of one flow, in the order `Bridge` names them."""


def decoded(output: str) -> Any:
    """A tool output's JSON value, or None when it is not JSON."""
    try:
        return json.loads(output)
    except (ValueError, TypeError):
        return None


def dig(output: Any, path: str) -> Any:
    """The value at a dot-separated path of a decoded output (list items by index); None when absent."""
    for key in path.split("."):
        if isinstance(output, Mapping) and key in output:
            output = output[key]
        elif isinstance(output, list) and key.isdigit() and int(key) < len(output):
            output = output[int(key)]
        else:
            return None
    return output


def paths(output: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every scalar inside a decoded output with its dot-separated path, in document order."""
    if isinstance(output, Mapping):
        for key, value in output.items():
            yield from paths(value, f"{prefix}{key}.")
    elif isinstance(output, list):
        for i, value in enumerate(output):
            yield from paths(value, f"{prefix}{i}.")
    elif prefix:
        yield prefix[:-1], output


def carried(
    call: Mapping[str, Any], index: int, flows: Sequence[Mapping[str, Any]], outputs: Sequence[Any]
) -> dict[str, Any]:
    """Reference call ``index`` with the arguments that earlier outputs carry put in.

    Args:
        call: The recorded call ``{"name": ..., "arguments": {...}}``.
        index: Its position among the task's reference calls.
        flows: The task's ``metadata["flows"]``.
        outputs: The decoded outputs of the calls made so far (``outputs[j]`` for call ``j``).

    Returns:
        A new call; an argument whose source output is missing, or lacks the field, keeps its
        recorded value (the call then fails as it would have).
    """
    arguments = dict(call.get("arguments", {}))
    for flow in flows:
        source = int(flow["source"])
        if int(flow["target"]) != index or source >= len(outputs):
            continue
        value = dig(outputs[source], str(flow["field"]))
        if value is not None:
            arguments[str(flow["param"])] = value
    return {"name": call["name"], "arguments": arguments}


def check_flows(flows: Any, calls: int | None = None) -> str | None:
    """What is wrong with a ``metadata["flows"]`` value, or None when it is well formed.

    Args:
        flows: The value.
        calls: How many reference calls the task has (None: not checked).
    """
    if not isinstance(flows, list | tuple):
        return f"metadata.flows must be a list of {{{', '.join(FLOW_KEYS)}}} objects"
    for i, flow in enumerate(flows):
        if not isinstance(flow, Mapping) or set(flow) != set(FLOW_KEYS):
            return f"metadata.flows[{i}] must have exactly the keys {', '.join(FLOW_KEYS)}"
        source, target = flow["source"], flow["target"]
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (source, target)):
            return f"metadata.flows[{i}]: source and target must be reference call indices"
        if source >= target:
            return f"metadata.flows[{i}]: the source call ({source}) must come before the target ({target})"
        if calls is not None and target >= calls:
            return f"metadata.flows[{i}].target is {target}, but the task has {calls} reference call(s)"
        if not isinstance(flow["field"], str) or not flow["field"] or not isinstance(flow["param"], str):
            return f"metadata.flows[{i}]: field and param must be non-empty strings"
    return None
