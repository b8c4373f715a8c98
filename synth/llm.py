"""An optional LLM over any OpenAI-compatible chat endpoint, to paraphrase instructions.

Synthesis needs no LLM. When one is given (``gym-mcp synth ... --llm-url URL``), each rendered
instruction is sent for a more natural wording; the paraphrase is kept only if every value the
agent needs still appears in it (the same traceability check as the template rendering).
"""

from __future__ import annotations

import json
import os

from gym_mcp.chat import ChatClient
from gym_mcp.errors import ConfigError

__all__ = ["ChatEndpoint"]

_PROMPT = (
    "Rewrite this request to an assistant so it sounds like a real customer wrote it. Keep every id, "
    "number, date, name and quoted text exactly as written. Answer with the rewritten request only.\n\n"
    "Request: {instruction}"
)


class ChatEndpoint:
    """An OpenAI-compatible ``/chat/completions`` endpoint (over the project's one `ChatClient`).

    Args:
        url: Base URL, e.g. ``http://127.0.0.1:8000/v1``.
        model: Model name sent in the request.
        api_key: Bearer token (default: ``$OPENAI_API_KEY`` if set).
        timeout: Seconds per request.
    """

    def __init__(self, url: str, model: str = "default", api_key: str | None = None, timeout: float = 60.0) -> None:
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"LLM endpoint must be an http(s) URL, got {url!r}")
        self.url = url
        self.model = model
        self._client = ChatClient(url, api_key=api_key or os.environ.get("OPENAI_API_KEY"), timeout=timeout)

    def complete(self, prompt: str) -> str:
        """One chat completion (temperature 0).

        Raises:
            EndpointError: The endpoint cannot be reached or answers with an error.
        """
        body = {"model": self.model, "temperature": 0, "messages": [{"role": "user", "content": prompt}]}
        return str(self._client.reply(body).get("content") or "").strip()

    def paraphrase(self, instruction: str) -> str:
        """A more natural wording of a rendered instruction."""
        return self.complete(_PROMPT.format(instruction=instruction))

    def refine_edges(self, edges: list[tuple[str, str, str]], descriptions: dict[str, str]) -> set[tuple[str, str]]:
        """Ask which learned ``tool -> tool`` edges make no sense; returns the pairs to drop.

        Args:
            edges: ``(from_tool, to_tool, parameter)`` triples learned from live calls.
            descriptions: Tool descriptions by name, for context.
        """
        tools = "\n".join(
            f"- {name}: {desc.splitlines()[0] if desc else ''}" for name, desc in sorted(descriptions.items())
        )
        listing = "\n".join(f"{a} -> {b} (fills {p})" for a, b, p in edges)
        answer = self.complete(
            "These tools belong to one service:\n" + tools + "\n\nEach edge below says that a value returned by "
            "the first tool can fill a parameter of the second. Reply with a JSON list of the edges that a real "
            'user would never chain, as ["first -> second", ...], or [] if all make sense.\n\n' + listing
        )
        start, end = answer.find("["), answer.rfind("]")
        try:
            items = json.loads(answer[start : end + 1]) if start >= 0 and end > start else []
        except ValueError:
            return set()
        drop = set()
        for item in items if isinstance(items, list) else []:
            if isinstance(item, str) and "->" in item:
                a, b = (part.strip() for part in item.split("->", 1))
                drop.add((a, b.split(" ")[0]))
        return drop

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()
