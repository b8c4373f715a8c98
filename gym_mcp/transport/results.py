"""What a tool call gives back: `ToolResult`, and the text rules every transport applies to it.

A result is text the agent reads. Every transport keeps to the same rules: one result may take
at most `MAX_RESULT_BYTES` (a bigger one becomes an error result that says so, `too_large`),
and lone surrogates (which UTF-8 cannot encode) become U+FFFD (`clean_text`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcp.types import CallToolResult, JSONRPCResponse, TextContent

from gym_mcp.transport.launch import MAX_RESULT_BYTES

__all__ = ["ToolResult", "clean_text", "content_text", "encode_text", "too_large", "too_large_response"]


@dataclass(frozen=True)
class ToolResult:
    """The outcome of one tool call, as the agent sees it.

    Attributes:
        text: The result text (for errors, the error message).
        is_error: True when the call failed (tool error, timeout, crash).
        timed_out: True when the call ran past its timeout.
        crashed: True when the server died during the call (it was restarted, unless ``down``).
        down: True when the server could not be started again: no call can run until it is.
        session_lost: True when the server answered that it no longer knows the connection's
            session (HTTP 404, as MCP answers an unknown session): the call did not run, and
            whatever state the server kept for the session is gone with it.
        state_lost: True when the state the episode was playing on is gone and could not be
            put back (e.g. a lost session whose last state nobody kept): no call can go on from it.
    """

    text: str
    is_error: bool = False
    timed_out: bool = False
    crashed: bool = False
    down: bool = False
    session_lost: bool = False
    state_lost: bool = False


def too_large(limit: int = MAX_RESULT_BYTES) -> str:
    """The error text of a result over ``limit`` bytes (which was not read past the limit)."""
    return (
        f"Error: the result is over the {limit / 2**20:g} MiB limit on one tool result (more than {limit:,} "
        "bytes) and was not read; ask for less (filter, page or narrow the query)"
    )


def too_large_response(request_id: Any, limit: int) -> JSONRPCResponse:
    """The answer put in place of a response over ``limit`` bytes: an error result of the call."""
    result = CallToolResult(content=[TextContent(type="text", text=too_large(limit))], is_error=True)
    return JSONRPCResponse(
        jsonrpc="2.0", id=request_id, result=result.model_dump(by_alias=True, mode="json", exclude_none=True)
    )


_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """``text`` with lone surrogates (which UTF-8 cannot encode) replaced by U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def encode_text(text: str) -> bytes:
    """``text`` as UTF-8, lone surrogates replaced by U+FFFD (`clean_text`); encoded once when clean."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return clean_text(text).encode()


def content_text(content: Sequence[Any]) -> str:
    """The text the agent reads from a result's content blocks (one line per block)."""
    parts: list[str] = []
    for block in content:
        text = getattr(block, "text", None)
        if text is not None:
            parts.append(str(text))
        elif getattr(block, "type", None) == "resource":
            resource = getattr(block, "resource", None)
            parts.append(str(getattr(resource, "text", "") or f"[resource {getattr(resource, 'uri', '')}]"))
        else:
            parts.append(f"[{getattr(block, 'type', 'content')}]")
    return "\n".join(parts)
