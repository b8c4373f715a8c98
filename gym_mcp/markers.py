"""The markers of chat formats, and how text that is not the model's own is kept from forging them.

A tool result, a user's message or a tool description is rendered into a prompt; if it held
``<|im_start|>assistant`` or ``<tool_call>``, it could open a turn or make a call that nobody
made. `escape_markers` breaks every such marker (still legible, never structure). The policies'
prompt formats (`gym_mcp.policies.prompt`), the TRL tools and the LLM-simulated user
(`gym_mcp.users.llm`) all escape through it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

__all__ = ["CALL_MARKERS", "escape_markers"]


CALL_MARKERS = ("<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>")
"""The call syntax of the Hermes/Qwen formats, escaped wherever a result or a user's text is rendered."""

_TOKEN_SHAPED = r"<\|[^|<>\s]{1,64}\|>|<\uff5c[^\uff5c<>\s]{1,64}\uff5c>"
"""Text shaped like a special token: ``<|im_start|>``, ``<|assistant|>``, ``<|eot_id|>``, DeepSeek's fullwidth bars."""


@functools.lru_cache(maxsize=64)
def _marker_pattern(markers: tuple[str, ...]) -> re.Pattern[str]:
    literals = "|".join(re.escape(m) for m in sorted(markers, key=len, reverse=True))
    return re.compile(_TOKEN_SHAPED + (f"|{literals}" if literals else ""))


def _break(match: re.Match[str]) -> str:
    marker = match.group(0)
    first = "&lt;" if marker[0] == "<" else f"&#{ord(marker[0])};"
    return first + marker[1:]


def escape_markers(text: str, markers: Iterable[str] = ()) -> str:
    """``text`` with every marker in it broken, so that no model and no parser reads it as structure.

    Broken are: ``markers`` (a tokenizer's special tokens, see `tokenizer_markers`), the call
    syntax (`CALL_MARKERS`), and anything shaped like a special token (``<|...|>``). A marker is
    broken by writing its first character as an HTML character reference (``<|im_start|>``
    becomes ``&lt;|im_start|>``): still legible to a model, but no tokenizer turns it into the
    special token, no template boundary is forged, and a reply that quotes it holds no call.

    Args:
        text: A tool result, a user's message, a tool description.
        markers: Further exact strings to break (besides `CALL_MARKERS` and token-shaped text).

    Returns:
        The text, unchanged when it holds no marker.
    """
    present = tuple(m for m in {*CALL_MARKERS, *markers} if m and m in text)
    if not present and "<|" not in text and "<\uff5c" not in text:
        return text
    pattern = _marker_pattern(tuple(sorted(present)))
    for _ in range(8):  # a break never makes a new marker of these shapes; the loop is a guard
        escaped = pattern.sub(_break, text)
        if escaped == text:
            break
        text = escaped
    return text
