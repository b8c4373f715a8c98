"""Model loading for training: a local causal LM with fresh LoRA adapters, and its call grammar.

Nothing is downloaded: `gym_mcp.policies.weights.resolve_model` finds the weights (a folder, a
``.gguf`` converted once, a Hugging Face id already cached, or the default model).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gym_mcp.errors import ConfigError, DependencyMissing

__all__ = ["call_grammar", "load_lora_model", "merged_lora", "mixed_precision"]


def load_lora_model(
    model: str | os.PathLike[str], lora_config: Any, *, last_layers: int = 0, dtype: Any = None
) -> tuple[Any, Any]:
    """A causal LM with fresh LoRA adapters (base weights frozen).

    Args:
        model: ``"smollm2"`` (the default model), a ``.gguf`` file, a local model folder, or a
            Hugging Face id already in the local cache (see `resolve_model`); nothing is downloaded.
        lora_config: A `peft.LoraConfig`.
        last_layers: Put adapters on the model's last ``last_layers`` transformer layers only
            (PEFT's ``layers_to_transform``); 0: on every layer. Nothing below the lowest adapted
            layer needs a gradient, so the backward pass stops there.
        dtype: The frozen base weights' dtype (default float32; see `load_dtype`). The adapters
            stay float32 whatever it is (PEFT's ``autocast_adapter_dtype``), so the optimizer
            updates float32 weights.

    Returns:
        ``(peft_model, tokenizer)``.
    """
    try:
        from peft import get_peft_model
        from transformers import AutoTokenizer
    except ImportError as exc:
        raise DependencyMissing("training needs the [train] extra: pip install -e '.[train]'", extra="train") from exc
    from gym_mcp.policies.weights import load_causal_lm, resolve_model

    path = resolve_model(model, verbose=True)
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    base = load_causal_lm(path, dtype=dtype)
    if last_layers:
        depth = int(base.config.num_hidden_layers)
        lora_config.layers_to_transform = list(range(max(depth - last_layers, 0), depth))
    return get_peft_model(base, lora_config), tokenizer


@contextmanager
def merged_lora(model: Any) -> Iterator[int]:
    """Run passes without gradient on ``model`` with its active LoRA adapters merged into the base weights.

    A merged layer is one matrix product where an unmerged one is three (base, A, B) plus a scale
    and a sum: a generation pass is thousands of one-token forwards, each paying that per adapted
    layer. PEFT's ``unmerge_adapter`` takes the delta back out by subtraction, which leaves the
    base weights a float rounding away from where they were (in bf16, visibly), so each merged
    layer's base weight is copied before the merge and copied back after it: on leaving the block
    the model is bit for bit the one that entered it (its adapters unmerged, still training).
    Inside, it costs one copy of the adapted layers' base weights. Only for passes without a
    gradient (evaluation): a loss computed inside would not reach the adapters.

    Args:
        model: A PEFT model, or any model (one without active adapters passes through unchanged).

    Yields:
        How many layers were merged (0: nothing to merge).
    """
    import torch

    try:
        from peft.tuners.lora import LoraLayer
    except ImportError:  # no PEFT installed: no adapters to merge
        yield 0
        return
    layers = [
        m
        for m in model.modules()
        if isinstance(m, LoraLayer) and not m.merged and not m.disable_adapters and m.active_adapters
    ]
    merged: list[tuple[Any, dict[str, Any]]] = []
    try:
        with torch.no_grad():
            for layer in layers:
                base = layer.get_base_layer()
                kept = {n: p.detach().clone() for n, p in base.named_parameters(recurse=False)}
                layer.merge()
                merged.append((layer, kept))
        yield len(merged)
    finally:
        with torch.no_grad():
            for layer, kept in merged:
                layer.unmerge()  # PEFT's bookkeeping (which adapters are merged) ...
                for n, p in layer.get_base_layer().named_parameters(recurse=False):
                    p.copy_(kept[n])  # ... and the weights exactly as they were


def mixed_precision(precision: str, gpu: bool) -> str:
    """Accelerate's ``mixed_precision`` (``"bf16"`` or ``"no"``) for a `TrainConfig.precision`.

    ``"auto"`` is bf16 on a CUDA GPU that supports it and fp32 on a CPU (where bf16 measured
    not worth it: the figures are in `TrainConfig.precision`'s description).
    """
    if precision != "auto":
        return "bf16" if precision == "bf16" else "no"
    if not gpu:
        return "no"
    import torch

    return "bf16" if torch.cuda.is_bf16_supported() else "no"


def call_grammar(guided: bool, tokenizer: Any, fmt: Any, model: Any) -> Any:
    """The `CallGrammar` that evaluation and rollouts decode calls with, or None (``guided`` off).

    Raises:
        ConfigError: The model's tokenizer cannot guide calls (the message says to turn it off).
    """
    if not guided:
        return None
    from gym_mcp.policies.guided import CallGrammar

    try:
        return CallGrammar(tokenizer, fmt, vocab_size=int(model.get_output_embeddings().weight.shape[0]))
    except ValueError as exc:
        raise ConfigError(f"guided_calls: {exc}; set guided_calls = false") from exc
