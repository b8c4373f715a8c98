"""`OpenAIPolicy`: any OpenAI-compatible chat endpoint as a policy."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gym_mcp.chat import ChatClient
from gym_mcp.policies.base import Policy
from gym_mcp.policies.prompt import escaped_messages, escaped_tools

__all__ = ["OpenAIPolicy"]


class OpenAIPolicy(Policy):
    """Any OpenAI-compatible chat endpoint: sends the conversation and the tools, returns its reply.

    The reply (an assistant message, with ``tool_calls`` or text) goes to `MCPEnv.step` as is;
    servers that answer in text (Hermes ``<tool_call>`` tags) are parsed by the environment.

    Tool results and user turns are sent escaped (`gym_mcp.policies.prompt.escaped_messages`):
    the server behind the endpoint renders them with its own chat template, where a raw
    ``<|im_start|>`` or ``<tool_call>`` in a result would be read as structure. The tool schemas
    are escaped the same way; the environment's own records keep the raw results.

    Args:
        url: Base URL, e.g. ``http://127.0.0.1:8000/v1``.
        model: Model name.
        api_key: Bearer token, if the endpoint needs one.
        system: A system prompt placed before the conversation.
        temperature: Sampling temperature (0 for reproducible runs).
        max_tokens: Longest reply.
        timeout: Seconds per request.
        max_retries: Retries on 429, 5xx, timeouts and connection errors (exponential backoff).
        max_concurrency: Requests in flight at once, across threads.
    """

    name = "openai"

    def __init__(
        self,
        url: str,
        model: str = "default",
        *,
        api_key: str | None = None,
        system: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 512,
        timeout: float = 60.0,
        max_retries: int = 4,
        max_concurrency: int = 8,
    ) -> None:
        self.chat = ChatClient(
            url, api_key=api_key, timeout=timeout, max_retries=max_retries, max_concurrency=max_concurrency
        )
        self.url = self.chat.url
        self.model = model
        self.system = system
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.name = f"openai:{model}"

    def check(self) -> None:
        """Fail early, with one clear message, when the endpoint cannot be reached.

        Raises:
            EndpointError: The endpoint refused the connection or did not answer.
        """
        self.chat.check()

    def act(self, observation: str, info: Mapping[str, Any]) -> Any:
        """One chat completion over the conversation so far."""
        messages = escaped_messages(info.get("messages") or [])
        if self.system:
            messages = [{"role": "system", "content": self.system}, *messages]
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if info.get("tools"):
            body["tools"] = escaped_tools(info["tools"])
        message = self.chat.reply(body)
        if message.get("tool_calls"):
            return {"content": message.get("content"), "tool_calls": message["tool_calls"]}
        return str(message.get("content") or "")

    def close(self) -> None:
        """Close the HTTP client."""
        self.chat.close()
