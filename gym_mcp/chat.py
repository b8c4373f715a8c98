"""The one client gym-mcp uses for OpenAI-compatible chat endpoints.

`ChatClient` posts to ``{url}/chat/completions`` over httpx with retries (429, 5xx, timeouts
and connection errors, with exponential backoff) and a limit on requests in flight across
threads. `OpenAIPolicy` plays environments through it, synthesis paraphrases through it, and LLM-simulated
users (`gym_mcp.users`) speak through it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any

import httpx

from gym_mcp.errors import ConfigError, EndpointError

__all__ = ["ChatClient"]


class ChatClient:
    """An OpenAI-compatible chat endpoint.

    Args:
        url: Base URL, e.g. ``http://127.0.0.1:8000/v1``.
        api_key: Bearer token, if the endpoint needs one.
        timeout: Seconds per request.
        max_retries: Retries on 429, 5xx, timeouts and connection errors (exponential backoff).
        max_concurrency: Requests in flight at once, across threads.

    Raises:
        ConfigError: The URL is not http(s).
    """

    def __init__(
        self,
        url: str,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 4,
        max_concurrency: int = 8,
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"endpoint must be an http(s) URL, got {url!r}")
        self.url = url.rstrip("/")
        self.api_key = api_key
        self.max_retries = max_retries
        self._client = httpx.Client(timeout=timeout)
        self._slots = threading.BoundedSemaphore(max_concurrency)

    def check(self) -> None:
        """Fail early, with one clear message, when the endpoint cannot be reached.

        Raises:
            EndpointError: The endpoint refused the connection or did not answer.
        """
        try:
            self._client.get(self.url + "/models", timeout=10.0)
        except httpx.HTTPError as exc:
            raise EndpointError(f"endpoint {self.url} is unreachable: {type(exc).__name__}: {exc}") from None

    def complete(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """One ``/chat/completions`` request; returns the response's JSON.

        Raises:
            EndpointError: The endpoint failed after the retries, or refused the request.
        """
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        delay = 0.5
        for attempt in range(self.max_retries + 1):
            try:
                with self._slots:
                    response = self._client.post(self.url + "/chat/completions", json=body, headers=headers)
                response.raise_for_status()
                return dict(response.json())
            except (httpx.TimeoutException, httpx.TransportError, httpx.HTTPStatusError) as exc:
                status = exc.response.status_code if isinstance(exc, httpx.HTTPStatusError) else None
                retryable = status is None or status == 429 or status >= 500
                if attempt >= self.max_retries or not retryable:
                    raise EndpointError(f"endpoint {self.url}: {type(exc).__name__}: {exc}") from None
                time.sleep(delay)
                delay *= 2
            except ValueError as exc:  # not JSON
                raise EndpointError(f"endpoint {self.url}: the reply is not JSON ({exc})") from None
        raise EndpointError(f"endpoint {self.url}: no answer")  # pragma: no cover

    def reply(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The first choice's message of a completion.

        Raises:
            EndpointError: As `complete`, or the reply has no message.
        """
        data = self.complete(body)
        try:
            message = data["choices"][0]["message"]
        except (KeyError, IndexError, TypeError) as exc:
            raise EndpointError(f"endpoint {self.url}: the reply has no message ({exc!r})") from None
        return dict(message)

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()
