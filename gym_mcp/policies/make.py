"""Policies from command-line specs (``reference``, ``random``, ``openai:URL``, ``local:DIR``)."""

from __future__ import annotations

import threading
from typing import Any

from gym_mcp.errors import ConfigError
from gym_mcp.policies.base import Policy
from gym_mcp.policies.builtin import NoopPolicy, RandomPolicy, ReferencePolicy
from gym_mcp.policies.remote import OpenAIPolicy

__all__ = ["make_policy"]


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
        from gym_mcp.policies.local import LocalModel, LocalModelPolicy

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
