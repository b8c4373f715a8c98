"""Policies: what plays an environment.

A policy sees what the agent sees (the observation and ``info`` with ``tools`` and
``messages``) and returns an action `MCPEnv.step` accepts: a call dict, an OpenAI assistant
message with ``tool_calls``, or text. Built in:

- `ReferencePolicy`: replays the task's reference calls, then answers (scores 1.0 on verified tasks);
- `NoopPolicy`: answers at once without calling anything (the floor);
- `RandomPolicy`: valid tool names with random arguments;
- `ScriptedPolicy`: your function of (observation, info, step);
- `OpenAIPolicy` (remote): any OpenAI-compatible chat endpoint, over the one retrying `ChatClient`;
- `LocalModel` / `LocalModelPolicy` (local, needs ``[train]``): a transformers model plus an
  optional PEFT adapter; `serve_model` serves it as an OpenAI-compatible endpoint;
- `decoding`: the one decode loop (batched, cached, stop-aware) that `LocalModel` and the
  trainer's evaluation and rollouts generate with;
- `weights`: where model weights come from (a folder, a converted GGUF, a cached Hugging Face id);
- `prompt`: the compact prompt local models and the trainer render;
- `compact_template`: that prompt as a Jinja chat template, for exported tokenizers;
- `guided`: tool calls decoded under the shown tools' JSON schemas (xgrammar), for local models
  and the trainer's evaluation and rollouts.
"""

from __future__ import annotations

from gym_mcp.chat import ChatClient
from gym_mcp.policies.base import Policy
from gym_mcp.policies.builtin import NoopPolicy, RandomPolicy, ReferencePolicy, ScriptedPolicy
from gym_mcp.policies.local import LocalModel, LocalModelPolicy, serve_model
from gym_mcp.policies.make import make_policy
from gym_mcp.policies.remote import OpenAIPolicy

__all__ = [
    "ChatClient",
    "LocalModel",
    "LocalModelPolicy",
    "NoopPolicy",
    "OpenAIPolicy",
    "Policy",
    "RandomPolicy",
    "ReferencePolicy",
    "ScriptedPolicy",
    "make_policy",
    "serve_model",
]
