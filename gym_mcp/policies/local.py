"""A local transformers model (plus an optional PEFT adapter) as a policy and as a chat server.

Needs the ``[train]`` extra (torch, transformers, peft). Models come from a local path only
(nothing is downloaded). Prompts are rendered in the format training used
(`gym_mcp.policies.prompt.prompt_format`): the model's own chat template when it renders tools
(Qwen2.5/Qwen3, Llama 3.x), otherwise gym-mcp's compact prompt (a system block with one line per
tool, then the conversation with ``<|user|>``/``<|assistant|>``/``<|tool|>`` markers); the model
calls tools as Hermes ``<tool_call>{json}</tool_call>`` (or its template's JSON).

- `LocalModel`: load, render, generate with the trainer's decode loop (`gym_mcp.policies.decoding`:
  stops after a call, at a new turn, or at the end-of-text token).
- `LocalModelPolicy`: a `Policy` over it.
- `serve_model`: an OpenAI-compatible ``/v1/chat/completions`` server (``gym-mcp serve-model``),
  so any agent framework, and `OpenAIPolicy`, can drive a local or trained model.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gym_mcp.actions.parsing import auto_parser
from gym_mcp.errors import ConfigError, DependencyMissing
from gym_mcp.policies.base import Policy
from gym_mcp.policies.prompt import prompt_format as prompt_format_for

__all__ = ["LocalModel", "LocalModelPolicy", "make_app", "serve_model"]


class LocalModel:
    """A causal LM from a local folder, optionally with a PEFT (LoRA) adapter.

    Args:
        path: Folder with the model and tokenizer (``save_pretrained`` output), a ``.gguf`` file,
            or ``"smollm2"`` (the default model; see `gym_mcp.policies.weights.resolve_model`).
        adapter: Folder with a PEFT adapter to apply.
        device: Torch device; ``"auto"`` (the default) is the GPU where torch sees one, else the
            CPU. The weights are bfloat16 on a CUDA card that has it, float32 elsewhere.
        prompt_format: ``"auto"``, ``"chat_template"`` or ``"compact"`` (see
            `gym_mcp.policies.prompt.prompt_format`); use the one the adapter was trained with
            (``"auto"`` picks the same as training's default).
        guided_calls: Decode each call under the JSON schemas of the tools passed to `chat`
            (see `gym_mcp.policies.guided`), as the trainer's evaluation does by default.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        adapter: str | os.PathLike[str] | None = None,
        device: str = "auto",
        prompt_format: str = "auto",
        guided_calls: bool = False,
    ) -> None:
        try:
            import torch  # noqa: F401  (the [train] extra is there)
            from transformers import AutoTokenizer
        except ImportError as exc:
            raise DependencyMissing(
                "local models need the [train] extra: pip install -e '.[train]'", extra="train"
            ) from exc
        from gym_mcp.policies.weights import load_causal_lm, load_dtype, resolve_device, resolve_model

        device = resolve_device(device)
        folder = Path(resolve_model(path, verbose=True))
        if not folder.is_dir():
            raise ConfigError(f"model folder {folder} does not exist (models are loaded from local paths only)")
        self.tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        self.format = prompt_format_for(self.tokenizer, prompt_format)
        model: Any = load_causal_lm(folder, dtype=load_dtype(device))
        if adapter is not None:
            from peft import PeftModel

            # merged into the weights once: the policy never trains, and a merged layer is one
            # matrix product per token where an adapted one runs three
            model = PeftModel.from_pretrained(model, str(adapter), is_trainable=False).merge_and_unload()
        self.model = model.to(device).eval()
        self.grammar = None
        if guided_calls:
            from gym_mcp.policies.guided import CallGrammar

            self.grammar = CallGrammar(
                self.tokenizer, self.format, vocab_size=int(model.get_output_embeddings().weight.shape[0])
            )
        self.device = device
        self.name = folder.name + (f"+{Path(adapter).name}" if adapter else "")
        self._lock = threading.Lock()

    def generate(
        self,
        prompt: str,
        *,
        max_new_tokens: int = 128,
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int | None = None,
        tools: Sequence[Mapping[str, Any]] = (),
    ) -> str:
        """Continue a prompt; stops after ``</tool_call>``, at a new turn, or at the end-of-text token.

        With ``guided_calls`` and ``tools``, a call is decoded under those tools' schemas.
        """
        from gym_mcp.policies.decoding import generate_replies

        # the trainer's decode loop, one row: a local model answers as the same weights did in
        # training. Sampling keeps what `generate` did here: the generation config's top_k, or
        # transformers' default of 50 when the model's config leaves it unset
        top_k = getattr(getattr(self.model, "generation_config", None), "top_k", None)
        top_k = 50 if top_k is None else top_k
        with self._lock:
            return generate_replies(
                self.model,
                self.tokenizer,
                [prompt],
                max_new_tokens=max_new_tokens,
                temperature=temperature,
                seed=seed,
                grammar=self.grammar if tools else None,
                tools=[tools] if self.grammar is not None and tools else None,
                top_k=top_k if temperature > 0 else None,
                top_p=top_p,
            )[0]

    def chat(
        self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] = (), **sampling: Any
    ) -> str:
        """The model's reply to a conversation (text, possibly with ``<tool_call>`` blocks)."""
        return self.generate(self.format.prompt(messages, tools), tools=tools, **sampling)


class LocalModelPolicy(Policy):
    """A local model playing an environment (its text goes to `MCPEnv.step`, which parses the calls).

    Args:
        model: A loaded `LocalModel`.
        max_new_tokens: Longest reply.
        temperature: 0 for greedy (reproducible).
        top_p: Nucleus sampling when temperature > 0.
    """

    def __init__(
        self, model: LocalModel, *, max_new_tokens: int = 128, temperature: float = 0.0, top_p: float = 1.0
    ) -> None:
        self.model = model
        self.name = f"local:{model.name}"
        self.sampling = {"max_new_tokens": max_new_tokens, "temperature": temperature, "top_p": top_p}
        self._seed: int | None = None

    def reset(self, task: Any, info: Mapping[str, Any], *, seed: int | None = None) -> None:
        """Remember the episode seed (sampling is seeded from it)."""
        self._seed = seed

    def act(self, observation: str, info: Mapping[str, Any]) -> Any:
        """The model's reply to the conversation so far."""
        return self.model.chat(info.get("messages") or [], info.get("tools") or [], seed=self._seed, **self.sampling)


def _completion(model: LocalModel, body: Mapping[str, Any]) -> dict[str, Any]:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise ValueError("'messages' must be a non-empty list")
    text = model.chat(
        messages,
        body.get("tools") or [],
        max_new_tokens=int(body.get("max_tokens") or 128),
        temperature=float(body.get("temperature") or 0.0),
        top_p=float(body.get("top_p") or 1.0),
        seed=body.get("seed"),
    )
    parsed = auto_parser(text)
    message: dict[str, Any] = {"role": "assistant", "content": parsed.text if parsed.calls else text}
    if parsed.calls:
        message["tool_calls"] = [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments, ensure_ascii=False)},
            }
            for i, c in enumerate(parsed.calls)
        ]
        message["content"] = parsed.text or None
    return {
        "id": f"chatcmpl-{int(time.time() * 1000)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model") or model.name,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if parsed.calls else "stop"}],
    }


def make_app(model: LocalModel) -> Any:
    """The Starlette app of the chat server (``/v1/models``, ``/v1/chat/completions``)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def models(_: Request) -> JSONResponse:
        return JSONResponse({"object": "list", "data": [{"id": model.name, "object": "model"}]})

    async def completions(request: Request) -> JSONResponse:
        try:
            body = await request.json()
            if not isinstance(body, dict):
                raise ValueError("the body must be a JSON object")
            return JSONResponse(await run_in_threadpool(_completion, model, body))
        except (ValueError, KeyError, TypeError) as exc:
            return JSONResponse({"error": {"message": str(exc), "type": "invalid_request_error"}}, status_code=400)

    return Starlette(routes=[Route("/v1/models", models), Route("/v1/chat/completions", completions, methods=["POST"])])


def serve_model(model: LocalModel, *, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve a local model over an OpenAI-compatible API until interrupted."""
    import uvicorn

    uvicorn.run(make_app(model), host=host, port=port, log_level="warning")
