"""Policies: what plays an environment.

A policy sees what the agent sees (the observation and ``info`` with ``tools`` and
``messages``) and returns an action `MCPEnv.step` accepts: a call dict, an OpenAI assistant
message with ``tool_calls``, or text. Built in:

- `ReferencePolicy`: replays the task's reference calls, then answers (scores 1.0 on verified tasks);
- `NoopPolicy`: answers at once without calling anything (the floor);
- `RandomPolicy`: valid tool names with random arguments;
- `ScriptedPolicy`: your function of (observation, info, step);
- `OpenAIPolicy`: any OpenAI-compatible chat endpoint over httpx, with retries and a concurrency limit.
"""

from __future__ import annotations

import random
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from gym_mcp.errors import ConfigError
from gym_mcp.tasks import Task

__all__ = [
    "NoopPolicy",
    "OpenAIPolicy",
    "Policy",
    "RandomPolicy",
    "ReferencePolicy",
    "ScriptedPolicy",
    "make_policy",
]


class Policy(ABC):
    """Plays episodes: `reset` at the start of each, then `act` until the episode ends."""

    name: str = "policy"

    def reset(self, task: Task, info: Mapping[str, Any], *, seed: int | None = None) -> None:  # noqa: B027
        """Start an episode of ``task`` (``info`` is what `env.reset` returned)."""

    @abstractmethod
    def act(self, observation: str, info: Mapping[str, Any]) -> Any:
        """The next action."""

    def close(self) -> None:  # noqa: B027
        """Release resources (HTTP clients, models)."""


class ReferencePolicy(Policy):
    """Replays the task's reference calls one per step, then gives a final answer.

    In a multi-turn environment (``info["turn"]`` present) whose task has
    ``metadata["reference_turns"]`` (BFCL), it sends each turn's reference calls in one step
    and then replies, which ends the turn.
    """

    name = "reference"

    def reset(self, task: Task, info: Mapping[str, Any], *, seed: int | None = None) -> None:
        """Queue the task's reference calls."""
        self._queue = [dict(c) for c in task.reference_calls]
        self._answer = task.expected_answer or ("Done." if task.reference_calls else "I can't help with that here.")
        turns = task.metadata.get("reference_turns")
        self._turns = [list(t) for t in turns] if turns is not None and "turn" in info else None
        self._turn, self._sent = -1, False

    def act(self, observation: str, info: Mapping[str, Any]) -> Any:
        """The next reference call (or turn of calls), or the reply."""
        if self._turns is not None:
            turn = int(info["turn"])
            if turn != self._turn:
                self._turn, self._sent = turn, False
            if not self._sent and turn < len(self._turns) and self._turns[turn]:
                self._sent = True
                return [dict(c) for c in self._turns[turn]]
            return "Done."
        return self._queue.pop(0) if self._queue else self._answer


class NoopPolicy(Policy):
    """Answers at once and calls nothing."""

    name = "noop"

    def act(self, observation: str, info: Mapping[str, Any]) -> Any:
        """A final answer."""
        return "I did what you asked."


class RandomPolicy(Policy):
    """Calls 1-3 random tools (real names) with random arguments of the right JSON types, then answers.

    Args:
        seed: Base seed; each episode reseeds from it and the episode seed.
    """

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._rng = random.Random(seed)
        self._left = 0

    def reset(self, task: Task, info: Mapping[str, Any], *, seed: int | None = None) -> None:
        """Reseed and pick how many calls to make."""
        self._rng = random.Random(f"{self.seed}:{task.id}:{seed}")
        self._left = self._rng.randint(1, 3)

    def act(self, observation: str, info: Mapping[str, Any]) -> Any:
        """A random call, or the final answer."""
        tools = info.get("tools") or []
        if self._left <= 0 or not tools:
            return "Done."
        self._left -= 1
        fn = self._rng.choice(tools)["function"]
        params = fn.get("parameters") or {}
        args = {
            name: self._value(schema)
            for name, schema in (params.get("properties") or {}).items()
            if name in params.get("required", []) or self._rng.random() < 0.3
        }
        return {"name": fn["name"], "arguments": args}

    def _value(self, schema: Mapping[str, Any]) -> Any:
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self._rng.choice(schema["enum"])
        types = schema.get("type") or next((o.get("type") for o in schema.get("anyOf", []) if o.get("type")), "string")
        kind = types[0] if isinstance(types, list) else types
        if kind == "integer":
            return self._rng.randint(1, 5)
        if kind == "number":
            return round(self._rng.uniform(1, 100), 2)
        if kind == "boolean":
            return self._rng.random() < 0.5
        if kind == "array":
            return []
        if kind == "object":
            return {}
        return self._rng.choice(["ACC-1001", "CUS-1001", "PRD-1001", "ORD-1001", "EVT-1001", "PER-1001", "test"])


class ScriptedPolicy(Policy):
    """A policy from a function ``fn(observation, info, step) -> action``.

    Args:
        fn: The function.
        name: A name for reports.
    """

    def __init__(self, fn: Callable[[str, Mapping[str, Any], int], Any], name: str = "scripted") -> None:
        self.fn = fn
        self.name = name
        self._step = 0

    def reset(self, task: Task, info: Mapping[str, Any], *, seed: int | None = None) -> None:
        """Restart the step counter."""
        self._step = 0

    def act(self, observation: str, info: Mapping[str, Any]) -> Any:
        """Whatever the function returns."""
        self._step += 1
        return self.fn(observation, info, self._step)


class OpenAIPolicy(Policy):
    """Any OpenAI-compatible chat endpoint: sends the conversation and the tools, returns its reply.

    The reply (an assistant message, with ``tool_calls`` or text) goes to `MCPEnv.step` as is;
    servers that answer in text (Hermes ``<tool_call>`` tags) are parsed by the environment.

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
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"endpoint must be an http(s) URL, got {url!r}")
        self.url = url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.system = system
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.max_retries = max_retries
        self._client = httpx.Client(timeout=timeout)
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self.name = f"openai:{model}"

    def check(self) -> None:
        """Fail early, with one clear message, when the endpoint cannot be reached.

        Raises:
            ConfigError: The endpoint refused the connection or did not answer.
        """
        try:
            self._client.get(self.url + "/models", timeout=10.0)
        except httpx.HTTPError as exc:
            raise ConfigError(f"endpoint {self.url} is unreachable: {type(exc).__name__}: {exc}") from None

    def act(self, observation: str, info: Mapping[str, Any]) -> Any:
        """One chat completion over the conversation so far."""
        messages = list(info.get("messages") or [])
        if self.system:
            messages = [{"role": "system", "content": self.system}, *messages]
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if info.get("tools"):
            body["tools"] = info["tools"]
        data = self._post(body)
        message = data["choices"][0]["message"]
        if message.get("tool_calls"):
            return {"content": message.get("content"), "tool_calls": message["tool_calls"]}
        return str(message.get("content") or "")

    def _post(self, body: Mapping[str, Any]) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        delay = 0.5
        for attempt in range(self.max_retries + 1):
            try:
                with self._slots:
                    response = self._client.post(self.url + "/chat/completions", json=body, headers=headers)
                if response.status_code == 429 or response.status_code >= 500:
                    raise httpx.HTTPStatusError(
                        f"HTTP {response.status_code}", request=response.request, response=response
                    )
                response.raise_for_status()
                return dict(response.json())
            except (httpx.TimeoutException, httpx.TransportError, httpx.HTTPStatusError) as exc:
                retryable = (
                    not isinstance(exc, httpx.HTTPStatusError)
                    or exc.response.status_code in (429,)
                    or (exc.response.status_code >= 500)
                )
                if attempt >= self.max_retries or not retryable:
                    raise ConfigError(f"endpoint {self.url}: {type(exc).__name__}: {exc}") from None
                time.sleep(delay)
                delay *= 2
        raise ConfigError(f"endpoint {self.url}: no answer")  # pragma: no cover

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()


def make_policy(spec: str, *, seed: int = 0, model: str = "default", api_key: str | None = None) -> Policy:
    """A policy from a command-line spec: ``reference``, ``noop``, ``random``, ``openai:URL``, ``local:DIR``.

    Raises:
        ConfigError: An unknown spec.
    """
    if spec == "reference":
        return ReferencePolicy()
    if spec == "noop":
        return NoopPolicy()
    if spec == "random":
        return RandomPolicy(seed)
    if spec.startswith("openai:"):
        return OpenAIPolicy(spec.split(":", 1)[1], model, api_key=api_key)
    if spec.startswith("local:"):
        from gym_mcp.local_model import LocalModel, LocalModelPolicy

        path, _, adapter = spec.split(":", 1)[1].partition("+")
        return LocalModelPolicy(_cached_model(path, adapter or None, LocalModel))
    raise ConfigError(f"unknown policy {spec!r}; use reference, noop, random, openai:URL or local:MODEL_DIR")


_models: dict[tuple[str, str | None], Any] = {}
_models_lock = threading.Lock()


def _cached_model(path: str, adapter: str | None, loader: Any) -> Any:
    """Load a local model once per process (episodes share it; generation is serialized)."""
    with _models_lock:
        key = (path, adapter)
        if key not in _models:
            _models[key] = loader(path, adapter=adapter)
        return _models[key]
