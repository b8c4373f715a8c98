"""LoRA model loading, the SFT step, and GRPO's pieces (advantages, clipped surrogate, KL).

The GRPO loop itself (rollout groups through the environments, checkpoints, the main job) is
built on these; each piece is a small function with a test.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gym_mcp.errors import DependencyMissing, WorkerLostError

if TYPE_CHECKING:
    from gym_mcp.policies.guided import CallGrammar

__all__ = [
    "PromptCache",
    "Rollout",
    "checkpointed",
    "clipped_surrogate",
    "generate_replies",
    "group_advantages",
    "grpo_step",
    "kl_to_reference",
    "load_lora_model",
    "play",
    "rollout",
    "rollout_group",
    "sft_step",
    "token_logprobs",
    "turn_starts",
    "turn_weights",
]


def load_lora_model(model: str | os.PathLike[str], lora_config: Any, *, last_layers: int = 0) -> tuple[Any, Any]:
    """A causal LM with fresh LoRA adapters (base weights frozen).

    Args:
        model: ``"smollm2"`` (the default model), a ``.gguf`` file, a local model folder, or a
            Hugging Face id already in the local cache (see `resolve_model`); nothing is downloaded.
        lora_config: A `peft.LoraConfig`.
        last_layers: Put adapters on the model's last ``last_layers`` transformer layers only
            (PEFT's ``layers_to_transform``); 0: on every layer. Nothing below the lowest adapted
            layer needs a gradient, so the backward pass stops there.

    Returns:
        ``(peft_model, tokenizer)``.
    """
    try:
        from peft import get_peft_model
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as exc:
        raise DependencyMissing("training needs the [train] extra: pip install -e '.[train]'", extra="train") from exc
    from gym_mcp.policies.models import resolve_model

    path = resolve_model(model, verbose=True)
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    base = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
    if last_layers:
        depth = int(base.config.num_hidden_layers)
        lora_config.layers_to_transform = list(range(max(depth - last_layers, 0), depth))
    return get_peft_model(base, lora_config), tokenizer


def token_logprobs(model: Any, input_ids: Any, labels: Any, temperature: float = 1.0) -> tuple[Any, Any]:
    """Log-probabilities of the labelled tokens under ``model``, and their mask.

    Logits are computed only at the positions that predict a labelled token in some row (the
    model's own tokens are a small share of a tool-use conversation, and the vocabulary
    projection is the largest single matrix): less time and far less memory than full logits.

    Args:
        model: A causal LM.
        input_ids: ``[batch, seq]`` token ids.
        labels: Same shape; ``-100`` where the token is context (not the model's own).
        temperature: Divide the logits by it (the distribution rollouts were sampled from).

    Returns:
        ``(logprobs, mask)``, both ``[batch, kept]``: one column per kept position, the same
        columns for the same ``labels`` (so old, new and reference log-probs line up).
    """
    import torch

    targets = labels[:, 1:]
    keep = (targets != -100).any(dim=0).nonzero().squeeze(-1)
    try:
        logits = model(input_ids=input_ids, logits_to_keep=keep, use_cache=False).logits
    except TypeError:  # a model without logits_to_keep
        logits = model(input_ids=input_ids, use_cache=False).logits[:, :-1, :][:, keep, :]
    kept = targets[:, keep]
    mask = (kept != -100).float()
    logprobs = -torch.nn.functional.cross_entropy(
        (logits.float() / temperature).flatten(0, 1), kept.clamp(min=0).flatten(), reduction="none"
    ).view_as(mask)
    return logprobs * mask, mask


@contextmanager
def checkpointed(model: Any, tokens: int, threshold: int) -> Iterator[None]:
    """Activation checkpointing around one forward and backward pass when ``tokens >= threshold``.

    A row's activations, kept for the backward pass, grow with its length: on SmolLM2-135M one
    1,009-token conversation holds about 3.5 GB, and the longest row, not the batch, sets a
    run's peak memory. Checkpointed, each layer's activations are recomputed in the backward
    pass instead (about a fifth more time for that row; peak 2.9 GB for the same row). Rows
    shorter than ``threshold`` run as usual; ``threshold`` 0 never checkpoints.

    Args:
        model: The model (a wrapper with ``.module``, e.g. DDP's, is looked through).
        tokens: The row's (chunk's) length.
        threshold: The length from which rows are checkpointed.
    """
    if not threshold or tokens < threshold:
        yield
        return
    inner = getattr(model, "module", model)
    enable = getattr(inner, "activation_checkpointing_enable", None)
    if enable is None:  # transformers before 5
        enable, disable = inner.gradient_checkpointing_enable, inner.gradient_checkpointing_disable
        kwargs = {"gradient_checkpointing_kwargs": {"use_reentrant": False}}
    else:
        disable = inner.activation_checkpointing_disable
        kwargs = {"activation_checkpointing_kwargs": {"use_reentrant": False}}
    training = inner.training
    inner.train()  # transformers checkpoints only in training mode
    enable(**kwargs)
    try:
        yield
    finally:
        disable()
        inner.train(training)


def sft_step(
    model: Any,
    optimizer: Any,
    input_ids: Any,
    labels: Any,
    *,
    per_turn: bool = False,
    backward: Callable[[Any], None] | None = None,
    micro_batch: int | None = None,
    decision_weight: float = 0.0,
    checkpoint_tokens: int = 0,
) -> float:
    """One supervised step on the model's own tokens; returns the loss.

    By default the loss is the mean over the model's tokens. With ``per_turn`` every assistant
    turn weighs the same (the mean over turns of each turn's mean token loss), so a short
    "Done." that ends an episode counts as much as a long tool call: with a token mean, the
    decision to stop is a few tokens among hundreds and the model learns to keep calling.

    ``decision_weight`` adds that weight times the mean, over turns, of each turn's *first*
    token loss: the token where the model decides between calling a tool (``<tool_call>``) and
    answering (``Done.``). A token mean gives that decision one token's say among a long call's
    many copy tokens, a per-turn mean gives a short answer's decision ten times a call's; this
    term weighs every decision alike.

    With ``micro_batch`` the rows go through the model ``micro_batch`` at a time, each chunk cut
    to its own longest row, and their gradients add up to the whole batch's (the same loss,
    normalized by the whole batch's tokens or turns): no compute is spent on padding, and the
    activations held for the backward pass are one chunk's, not the batch's.

    ``checkpoint_tokens``: chunks at least this long run with activation checkpointing (see
    `checkpointed`); 0 never.

    ``backward`` replaces ``loss.backward()`` (e.g. ``accelerator.backward`` for DDP and mixed
    precision).
    """
    chunks = _chunks(input_ids, labels, micro_batch)
    turns = float(max(sum(turn_weights(lab)[1] for _, lab in chunks), 1))
    total = turns if per_turn else float(max(int((labels[:, 1:] != -100).sum()), 1))
    loss_sum = 0.0
    for ids, lab in chunks:
        with checkpointed(model, ids.shape[1], checkpoint_tokens):
            logprobs, _ = token_logprobs(model, ids, lab)
            weights = turn_weights(lab)[0] if per_turn else 1.0
            loss = -(logprobs * weights).sum() / total
            if decision_weight:
                loss = loss - decision_weight * (logprobs * turn_starts(lab)).sum() / turns
            (backward or _backward)(loss)
        loss_sum += float(loss.detach())
    optimizer.step()
    optimizer.zero_grad()
    return loss_sum


def _chunks(input_ids: Any, labels: Any, size: int | None) -> list[tuple[Any, Any]]:
    """The batch in chunks of ``size`` rows, each cut to its longest row (``size`` None: one chunk)."""
    if not size or size >= input_ids.shape[0]:
        return [(input_ids, labels)]
    out = []
    for start in range(0, input_ids.shape[0], size):
        lab = labels[start : start + size]
        real = (lab != -100).any(dim=0).nonzero()
        width = int(real.max()) + 1 if len(real) else lab.shape[1]
        out.append((input_ids[start : start + size, :width], lab[:, :width]))
    return out


def turn_weights(labels: Any) -> tuple[Any, int]:
    """Per-token weights that make each assistant turn weigh 1, aligned with `token_logprobs`.

    A turn is a run of consecutive labelled tokens; each of its ``n`` tokens weighs ``1/n``.

    Returns:
        ``(weights, turns)``: weights ``[batch, kept]`` (the columns `token_logprobs` keeps) and
        the number of turns in the batch.
    """
    import torch

    targets = labels[:, 1:]
    labelled = targets != -100
    previous = torch.cat([torch.zeros_like(labelled[:, :1]), labelled[:, :-1]], dim=1)
    starts = labelled & ~previous
    run = torch.cumsum(starts.long(), dim=1) * labelled  # 1, 2, ... per turn; 0 for context
    weights = torch.zeros(targets.shape, dtype=torch.float32, device=labels.device)
    for row in range(targets.shape[0]):
        counts = torch.bincount(run[row]).float()
        weights[row] = labelled[row].float() / counts[run[row]]
    keep = labelled.any(dim=0).nonzero().squeeze(-1)
    return weights[:, keep], int(starts.sum())


def turn_starts(labels: Any) -> Any:
    """1.0 at the first token of every assistant turn, aligned with `token_logprobs` (``[batch, kept]``)."""
    import torch

    labelled = labels[:, 1:] != -100
    previous = torch.cat([torch.zeros_like(labelled[:, :1]), labelled[:, :-1]], dim=1)
    keep = labelled.any(dim=0).nonzero().squeeze(-1)
    return (labelled & ~previous).float()[:, keep]


def _backward(loss: Any) -> None:
    loss.backward()


def group_advantages(rewards: Sequence[float], eps: float = 1e-6, *, scale: bool = True) -> list[float]:
    """Group-relative advantages: ``r - mean``, divided by the group's std when ``scale``.

    All zeros when every reward is the same. Without ``scale`` (TRL's ``scale_rewards="none"``,
    as in Dr. GRPO) a group whose rewards differ a little keeps small advantages: with the
    grounded reward, a group of failures that differ only in their process terms (spread ~0.03)
    otherwise gets advantages as large as a group where some rollouts succeed.
    """
    n = len(rewards)
    if n == 0:
        return []
    mean = sum(rewards) / n
    std = math.sqrt(sum((r - mean) ** 2 for r in rewards) / n)
    if std < eps:
        return [0.0] * n
    return [(r - mean) / (std + eps) if scale else r - mean for r in rewards]


def clipped_surrogate(logprobs: Any, old_logprobs: Any, advantages: Any, mask: Any, clip: float = 0.2) -> Any:
    """PPO/GRPO clipped objective as a loss (to minimize), averaged over the model's tokens.

    Args:
        logprobs: ``[batch, seq]`` token log-probs under the current policy.
        old_logprobs: The same under the policy that sampled the rollouts (no gradient).
        advantages: ``[batch]`` one advantage per rollout.
        mask: ``[batch, seq]`` 1 for the model's own tokens.
        clip: The clipping range epsilon.
    """
    import torch

    ratio = torch.exp(logprobs - old_logprobs.detach())
    adv = advantages.unsqueeze(-1)
    objective = torch.minimum(ratio * adv, torch.clamp(ratio, 1 - clip, 1 + clip) * adv)
    return -(objective * mask).sum() / mask.sum().clamp(min=1.0)


def kl_to_reference(logprobs: Any, ref_logprobs: Any, mask: Any) -> Any:
    """The k3 estimate of KL(policy || reference) over the model's tokens.

    The reference log-probs come from the same model with its adapter disabled
    (``with model.disable_adapter(): ...``): no second model copy.
    """
    import torch

    delta = (ref_logprobs.detach() - logprobs) * mask
    return ((torch.exp(delta) - delta - 1.0) * mask).sum() / mask.sum().clamp(min=1.0)


@dataclass
class Rollout:
    """One sampled episode.

    Attributes:
        messages: The conversation (OpenAI format) as the environment recorded it.
        tools: The tools the model was shown.
        reward: The episode's reward.
        terms: The reward terms (``info["reward_terms"]``).
        context_messages: How many leading messages were given, not sampled (a forked start:
            the reference calls played before the fork); they are context in the loss.
        invalid_calls: Malformed or invalid calls the model made (``info["invalid_calls"]``).
    """

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    reward: float
    terms: dict[str, Any] = field(default_factory=dict)
    context_messages: int = 0
    invalid_calls: int = 0


def generate_replies(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[str],
    *,
    max_new_tokens: int = 32,
    temperature: float = 0.0,
    seed: int | None = None,
    answer_tokens: int | None = None,
    cache: PromptCache | None = None,
    keys: Sequence[Hashable] | None = None,
    grammar: CallGrammar | None = None,
    tools: Sequence[Sequence[Mapping[str, Any]]] | None = None,
) -> list[str]:
    """The model's next reply to each prompt, generated as one left-padded batch.

    Each reply stops after its first ``</tool_call>``, where the model starts a turn that is not
    its own, or at the end-of-text token (see `cut_reply`); ``temperature`` 0 is greedy. With
    ``answer_tokens``, a reply that has not opened a ``<tool_call>`` within its first
    ``answer_tokens`` tokens is a plain-text answer and stops there (an untrained model that
    repeats one sentence to the token limit costs ``answer_tokens``, not ``max_new_tokens``).

    Each row's prompt is run through the model alone, without padding (see `PromptCache`), and
    identical prompts once (a GRPO group's first turn, or a group forked mid-episode). With a
    `PromptCache` carried between calls and one key per prompt (an episode's), a prompt runs
    only from where it stops matching what that key's last turn left in the cache: a multi-turn
    episode pays each turn for its new tokens (the reply and the tool result), not for the whole
    conversation again. Without one, every prompt runs whole.

    With a `CallGrammar` and each prompt's ``tools``, a call the model opens is decoded under
    those tools' JSON schemas (see `gym_mcp.policies.guided`): only the listed tools, their own
    arguments, valid JSON.
    """
    import torch

    from gym_mcp.policies.prompt import cut_reply

    side = tokenizer.padding_side
    tokenizer.padding_side = "left"
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    try:
        inputs = tokenizer(list(prompts), return_tensors="pt", padding=True)
    finally:
        tokenizer.padding_side = side
    device = next(model.parameters()).device
    inputs = {k: v.to(device) for k, v in inputs.items()}
    if seed is not None:
        torch.manual_seed(seed)
    ids, mask = inputs["input_ids"], inputs["attention_mask"]
    with torch.no_grad():
        past = None
        if int(mask.sum(1).min()) > 1:  # a one-token prompt has no prefix to cache
            if cache is None or keys is None:
                cache, keys = PromptCache(), range(len(prompts))
            past = cache.batch(model, ids, mask, keys)
        new = _decode(
            model,
            tokenizer,
            ids,
            mask,
            past,
            max_new_tokens=max_new_tokens,
            temperature=temperature,
            answer_tokens=answer_tokens,
            grammar=grammar,
            matchers=[grammar.matcher(t) for t in tools] if grammar is not None and tools is not None else None,
        )
    return [cut_reply(str(tokenizer.decode(row, skip_special_tokens=True))) for row in new]


def _decode(
    model: Any,
    tokenizer: Any,
    input_ids: Any,
    attention_mask: Any,
    past: Any,
    *,
    max_new_tokens: int,
    temperature: float,
    answer_tokens: int | None,
    grammar: CallGrammar | None = None,
    matchers: Sequence[Any] | None = None,
) -> list[list[int]]:
    """Each row's continuation, token by token; a row leaves the batch as soon as it stops.

    A row stops at an end-of-turn token, once its text holds a stop string (`STOP_STRINGS`; a
    guided row only where its grammar is complete, so not inside a call's string value),
    after ``answer_tokens`` tokens without a ``<tool_call>``, or at ``max_new_tokens``. A stopped
    row's cache is dropped from the batch, so the rest decode at the cost of the rows still
    running (``generate`` keeps computing finished rows until the last one stops). Greedy at
    ``temperature`` 0, else sampled from the full distribution at that temperature (what
    ``generate(do_sample=True, top_k=0)`` does).

    Args:
        model: A causal LM.
        tokenizer: Its tokenizer.
        input_ids: ``[rows, width]`` left-padded prompts.
        attention_mask: Their mask.
        past: The KV cache of every prompt but its last token, or None to run the prompts whole.
        max_new_tokens: Longest continuation.
        temperature: Sampling temperature; 0 is greedy.
        answer_tokens: See `generate_replies`.
        grammar: Masks each step's logits with the rows' ``matchers`` (see `CallGrammar`).
        matchers: One grammar matcher per row (None: that row decodes freely), or None for free
            decoding throughout.
    """
    import torch

    from gym_mcp.policies.prompt import STOP_STRINGS

    stop_ids = _stop_token_ids(model, tokenizer)
    kw = _cache_kwarg()
    positions = (attention_mask.long().cumsum(-1) - 1).masked_fill(attention_mask == 0, 0)
    if past is None:
        out = model(
            input_ids=input_ids, attention_mask=attention_mask, position_ids=positions, logits_to_keep=1, use_cache=True
        )
    else:
        out = model(
            input_ids=input_ids[:, -1:],
            attention_mask=attention_mask,
            position_ids=positions[:, -1:],
            use_cache=True,
            **{kw: past},
        )
    past, logits, mask = out[kw], out.logits[:, -1, :], attention_mask
    position = positions[:, -1] + 1
    active = list(range(input_ids.shape[0]))
    new: list[list[int]] = [[] for _ in active]
    guided = grammar is not None and matchers is not None
    for step in range(max_new_tokens):
        if guided:
            logits = logits.float()
            grammar.mask(logits, [matchers[row] for row in active])  # type: ignore[index,union-attr]
        if temperature > 0:
            probs = torch.softmax(logits.float() / temperature, dim=-1)
            picked = torch.multinomial(probs, 1).squeeze(1)
        else:
            picked = logits.argmax(dim=-1)
        keep = []
        for j, row in enumerate(active):
            token = int(picked[j])
            if token in stop_ids:
                continue
            matcher = matchers[row] if guided else None  # type: ignore[index]
            if matcher is not None and not matcher.accept_token(token):
                continue
            new[row].append(token)
            text = tokenizer.decode(new[row], skip_special_tokens=True)
            # a guided call stops where its grammar closes it, not at a stop string inside a value
            if any(marker in text for marker in STOP_STRINGS) and (matcher is None or matcher.is_completed()):
                continue
            if answer_tokens is not None and len(new[row]) >= answer_tokens and "<tool_call>" not in text:
                continue
            keep.append(j)
        if not keep or step == max_new_tokens - 1:
            break
        if len(keep) < len(active):
            index = torch.tensor(keep, device=input_ids.device)
            past.batch_select_indices(index)
            mask, picked, position = mask[index], picked[index], position[index]
            active = [active[j] for j in keep]
        mask = torch.cat([mask, mask.new_ones(len(active), 1)], dim=1)
        out = model(
            input_ids=picked[:, None], attention_mask=mask, position_ids=position[:, None], use_cache=True, **{kw: past}
        )
        past, logits, position = out[kw], out.logits[:, -1, :], position + 1
    return new


def _stop_token_ids(model: Any, tokenizer: Any) -> set[int]:
    """The end-of-turn tokens: the generation config's ``eos_token_id`` (one or a list) and the tokenizer's."""
    config = getattr(model, "generation_config", None)
    eos = getattr(config, "eos_token_id", None)
    ids = set(eos if isinstance(eos, list | tuple) else [eos] if eos is not None else [])
    if tokenizer.eos_token_id is not None:
        ids.add(int(tokenizer.eos_token_id))
    return ids


def _cache_kwarg() -> str:
    """``generate``'s name for a given KV cache: ``cache`` from transformers 5, ``past_key_values`` before."""
    import transformers

    return "cache" if int(transformers.__version__.split(".")[0]) >= 5 else "past_key_values"


class PromptCache:
    """The KV cache of each episode's prompt, carried from one turn to the next (see `generate_replies`).

    A turn's prompt is the last turn's prompt plus the reply and the tool result, so most of its
    tokens were already run. Per key (an episode), the cache holds the keys and values of the
    last prompt's tokens; the next prompt is run from the longest prefix it shares with them.
    The values are those a full forward pass computes for the same tokens (the causal mask
    makes a prefix's keys and values independent of what follows; batched and unbatched matmuls
    differ only in float rounding).
    """

    def __init__(self) -> None:
        self._ids: dict[Hashable, list[int]] = {}
        self._kv: dict[Hashable, list[tuple[Any, Any]]] = {}
        self.reused_tokens = 0
        self.computed_tokens = 0

    def prefill(self, model: Any, key: Hashable, ids: Sequence[int]) -> list[tuple[Any, Any]]:
        """Per layer, ``(keys, values)`` of ``ids`` (``[1, heads, len(ids), dim]``), running only what is new."""
        import torch
        from transformers import DynamicCache

        old = self._ids.get(key, [])
        same = 0
        for a, b in zip(old, ids, strict=False):
            if a != b:
                break
            same += 1
        kv = [(k[:, :, :same], v[:, :, :same]) for k, v in self._kv.get(key, [])] if same else []
        if same < len(ids):
            device = next(model.parameters()).device
            past = DynamicCache(ddp_cache_data=kv) if kv else DynamicCache()
            new = torch.tensor([list(ids[same:])], device=device)
            out = model(input_ids=new, use_cache=True, **{_cache_kwarg(): past})
            kv = [(k, v) for k, v, *_ in out[_cache_kwarg()]]
        self.reused_tokens += same
        self.computed_tokens += len(ids) - same
        self._ids[key], self._kv[key] = list(ids), kv
        return kv

    def batch(self, model: Any, input_ids: Any, attention_mask: Any, keys: Sequence[Hashable]) -> Any:
        """A left-padded batch cache of every row's prompt but its last token (``generate`` runs that one).

        Padding slots hold zeros; the attention mask keeps them out, and position ids come from
        the mask, so each row's real tokens sit where an unpadded run puts them.
        """
        import torch
        from transformers import DynamicCache

        width = input_ids.shape[1]
        rows = []
        first_with: dict[tuple[int, ...], Hashable] = {}  # rows with the same prompt (a GRPO group) run it once
        for row, key in enumerate(keys):
            real = tuple(input_ids[row][attention_mask[row].bool()].tolist()[:-1])
            if real in first_with:
                self._ids[key], self._kv[key] = list(real), self._kv[first_with[real]]
                self.reused_tokens += len(real)
            else:
                self.prefill(model, key, real)
                first_with[real] = key
            rows.append(self._kv[key])
        layers = []
        for layer in range(len(rows[0])):
            ks, vs = [], []
            for kv in rows:
                k, v = kv[layer]
                pad = width - 1 - k.shape[2]
                ks.append(torch.nn.functional.pad(k, (0, 0, pad, 0)))
                vs.append(torch.nn.functional.pad(v, (0, 0, pad, 0)))
            layers.append((torch.cat(ks), torch.cat(vs)))
        return DynamicCache(ddp_cache_data=layers)

    def forget(self, key: Hashable) -> None:
        """Drop an episode's cache (it has ended)."""
        self._ids.pop(key, None)
        self._kv.pop(key, None)


def play(
    model: Any,
    tokenizer: Any,
    envs: Sequence[Any],
    infos: Sequence[Mapping[str, Any]],
    tools: Sequence[Sequence[Mapping[str, Any]]],
    *,
    max_new_tokens: int = 32,
    temperature: float = 0.0,
    seed: int | None = None,
    context_messages: Sequence[int] | None = None,
    answer_tokens: int | None = None,
    fmt: Any = None,
    reuse_cache: bool = True,
    grammar: CallGrammar | None = None,
) -> list[Rollout]:
    """Play episodes in lockstep: each turn, one batched generation for every episode still open.

    The environments must be reset (or forked) already; ``infos`` are their latest infos. The
    model's replies go through ``env.step`` (tool results come back as observations) until each
    episode ends.

    Args:
        model: A causal LM (with or without adapters).
        tokenizer: Its tokenizer.
        envs: One environment per episode.
        infos: The info each environment returned last.
        tools: The tool list each episode's prompt shows (see `compact_tools`).
        max_new_tokens: Longest reply per turn.
        temperature: Sampling temperature; 0 is greedy.
        seed: Seeds sampling once for the whole batch.
        context_messages: Per episode, how many leading messages were given, not sampled.
        answer_tokens: Cut a reply that opens no call within this many tokens (see
            `generate_replies`).
        fmt: The prompt format (default: `prompt_format` of the tokenizer).
        reuse_cache: Carry each episode's prompt KV cache from turn to turn (see `PromptCache`),
            so a turn runs only its new tokens through the model; False runs every prompt whole.
        grammar: Decode calls under each episode's tool schemas (see `gym_mcp.policies.guided`).

    Returns:
        One `Rollout` per environment, in order, except for environments on a Ray worker that
        died mid-episode (`gym_mcp.ray`): those episodes are lost and left out.
    """
    from gym_mcp.policies.prompt import prompt_format

    fmt = fmt or prompt_format(tokenizer)
    n = len(envs)
    latest = [dict(i) for i in infos]
    rewards = [0.0] * n
    open_ = list(range(n))
    lost: set[int] = set()
    turn = 0
    cache = PromptCache() if reuse_cache else None
    while open_:
        prompts = [fmt.prompt(latest[i]["messages"], tools[i]) for i in open_]
        replies = generate_replies(
            model,
            tokenizer,
            prompts,
            max_new_tokens=max_new_tokens,
            temperature=temperature,
            seed=None if seed is None else seed + turn,
            answer_tokens=answer_tokens,
            cache=cache,
            keys=open_,
            grammar=grammar,
            tools=[tools[i] for i in open_],
        )
        still = []
        for i, result in zip(open_, step_all([envs[i] for i in open_], replies), strict=True):
            if isinstance(result, WorkerLostError):  # its Ray worker died: the episode is gone
                lost.add(i)
                if cache is not None:
                    cache.forget(i)
                continue
            _, r, terminated, truncated, latest[i] = result
            rewards[i] = float(r)
            if not (terminated or truncated):
                still.append(i)
            elif cache is not None:
                cache.forget(i)
        open_ = still
        turn += 1
    ctx = list(context_messages or [0] * n)
    return [
        Rollout(
            list(latest[i]["messages"]),
            [dict(t) for t in tools[i]],
            rewards[i],
            dict(latest[i].get("reward_terms", {})),
            ctx[i],
            int(latest[i].get("invalid_calls", 0)),
        )
        for i in range(n)
        if i not in lost
    ]


def step_all(envs: Sequence[Any], actions: Sequence[Any]) -> list[Any]:
    """Step each environment with its action: the step results, in order.

    Remote environments (`gym_mcp.ray.RemoteEnv`, which have ``step_async``) are all sent their
    step before any is waited for, so they step side by side on their workers. A remote
    environment whose worker died gives its `WorkerLostError` in its place instead of raising.
    """
    pending = [env.step_async(a) if hasattr(env, "step_async") else None for env, a in zip(envs, actions, strict=True)]
    results: list[Any] = []
    for env, action, sent in zip(envs, actions, pending, strict=True):
        try:
            results.append(sent.result() if sent is not None else env.step(action))
        except WorkerLostError as exc:
            results.append(exc)
    return results


def rollout(
    model: Any,
    tokenizer: Any,
    env: Any,
    task: Any,
    *,
    max_new_tokens: int = 32,
    temperature: float = 1.0,
    seed: int = 0,
    distractors: int | None = None,
) -> Rollout:
    """Play one episode with the model sampling its replies; tool results come from ``env.step``.

    ``distractors`` shows the model a compact tool list (see `compact_tools`).
    """
    from gym_mcp.train.data import compact_tools

    _, info = env.reset(seed=seed, options={"task": task})
    tools = compact_tools(info["tools"], task, distractors, info.get("perturbations", ()))
    return play(
        model, tokenizer, [env], [info], [tools], max_new_tokens=max_new_tokens, temperature=temperature, seed=seed
    )[0]


def rollout_group(
    model: Any,
    tokenizer: Any,
    env: Any,
    task: Any,
    size: int,
    *,
    fork_after: int = 0,
    max_new_tokens: int = 32,
    temperature: float = 1.0,
    seed: int = 0,
    distractors: int | None = None,
    answer_tokens: int | None = None,
    fmt: Any = None,
    grammar: CallGrammar | None = None,
) -> list[Rollout]:
    """A GRPO group: ``size`` rollouts of one task, sampled as one batch from forked environments.

    With ``fork_after=k`` the task's first ``k`` reference calls are played first (with a
    simulated user, the reference dialogue up to them) and the group starts from that mid-episode
    state (``env.fork``): the rollouts differ only in what the model does next, and the given
    turns are context, not the model's tokens.

    Args:
        model: The policy.
        tokenizer: Its tokenizer.
        env: An environment of the task's server (it is reset on the task; the group plays in forks).
        task: The task.
        size: Rollouts in the group (G).
        fork_after: Reference calls to play before forking (clamped to the task's length - 1).
        max_new_tokens: Longest reply per turn.
        temperature: Sampling temperature.
        seed: Seeds the reset and the sampling.
        distractors: Tools shown besides the task's own (see `compact_tools`).
        answer_tokens: Cut a reply that opens no call within this many tokens.
        fmt: The prompt format (default: `prompt_format` of the tokenizer).
        grammar: Decode calls under the tools' schemas (see `gym_mcp.policies.guided`).

    Returns:
        The group's rollouts. With a remote environment (`gym_mcp.ray.RemoteEnv`) whose worker
        dies, those it lost are left out: fewer than ``size``, or none when it died before the
        group began (the caller trains on the rest or skips the group).
    """
    from gym_mcp.episode import shown_call
    from gym_mcp.train.data import compact_tools

    try:
        _, info = env.reset(seed=seed, options={"task": task})
        tools = compact_tools(info["tools"], task, distractors, info.get("perturbations", ()))
        given = max(0, min(fork_after, len(task.reference_calls) - 1))
        # with a simulated user, the reference dialogue up to the given calls (its questions included)
        turns: list[Any] = task.reference_dialogue() if "user" in info else [dict(c) for c in task.reference_calls]
        played = 0
        renames = info.get("perturbations") or ()  # under a Perturb wrapper: the names shown
        for turn in turns:
            if played >= given:
                break
            _, _, _, _, info = env.step(shown_call(turn, renames) if isinstance(turn, dict) else turn)
            played += isinstance(turn, dict)
        forks = env.unwrapped.fork(size)
    except WorkerLostError:
        return []  # the Ray worker holding the environment died before the group began
    try:
        return play(
            model,
            tokenizer,
            forks,
            [info] * size,
            [tools] * size,
            max_new_tokens=max_new_tokens,
            temperature=temperature,
            seed=seed,
            context_messages=[len(info["messages"])] * size,
            answer_tokens=answer_tokens,
            fmt=fmt,
            grammar=grammar,
        )
    finally:
        for fork in forks:
            fork.close()


def grpo_step(
    model: Any,
    tokenizer: Any,
    optimizer: Any,
    rollouts: Sequence[Rollout],
    *,
    clip: float = 0.2,
    kl_coef: float = 0.0,
    temperature: float = 1.0,
    backward: Callable[[Any], None] | None = None,
    micro_batch: int | None = None,
    fmt: Any = None,
    scale_rewards: bool = True,
    checkpoint_tokens: int = 0,
    num_iterations: int = 1,
) -> dict[str, Any]:
    """GRPO updates from a group of rollouts of the same task.

    Advantages are group-relative; a group whose rewards are all equal carries no signal and is
    skipped (``zero_spread``). Only the model's own tokens enter the loss. The group is used for
    ``num_iterations`` updates (TRL's name; PPO's epochs): the first runs at ratio 1 (the policy
    that sampled the group is the current one, so its log-probs are the current ones, detached,
    with no second forward pass) and records them; each later update's ratio is to those, clipped
    to ``[1 - clip, 1 + clip]``, so one group of rollouts, the costly part, moves the policy
    several times but never far from where it sampled. The KL term, when ``kl_coef > 0``, is to
    the base model: the same weights with the adapter disabled (on the unwrapped model when
    ``model`` is wrapped, e.g. by DDP). ``temperature`` is the one the rollouts were sampled at:
    log-probs are those of the sampling distribution. ``micro_batch`` plays the rollouts through
    the model that many at a time (see `sft_step`); ``fmt`` is the prompt format they were played
    in; ``scale_rewards`` divides the advantages by the group's std (see `group_advantages`);
    chunks at least ``checkpoint_tokens`` long run with activation checkpointing (see
    `checkpointed`).

    Returns:
        ``{"rewards", "zero_spread", "loss" (the first update's), "kl", "tokens", "clipped" (share
        of the model's tokens whose ratio was clipped in the later updates)}``.
    """
    import torch

    from gym_mcp.train.data import encode_conversation, pad_batch

    rewards = [r.reward for r in rollouts]
    advantages = group_advantages(rewards, scale=scale_rewards)
    stats: dict[str, Any] = {"rewards": rewards, "zero_spread": not any(advantages), "loss": 0.0, "kl": 0.0}
    stats["clipped"] = 0.0
    if stats["zero_spread"] and not hasattr(model, "module"):
        return stats  # no signal; under DDP (a wrapped model) every rank must still run its backward
    examples = [
        encode_conversation(tokenizer, r.messages, r.tools, context_messages=r.context_messages, fmt=fmt)
        for r in rollouts
    ]
    device = next(model.parameters()).device
    ids, labels = pad_batch(examples, tokenizer.eos_token_id or 0, device)
    adv = torch.tensor(advantages, device=device)
    total = float(max(int((labels[:, 1:] != -100).sum()), 1))
    size = micro_batch or ids.shape[0]
    chunks = list(zip(range(0, ids.shape[0], size), _chunks(ids, labels, micro_batch), strict=True))
    old: dict[int, Any] = {}  # per chunk, the sampling policy's log-probs (the first update's)
    clipped, later_tokens = 0.0, 0.0
    for iteration in range(max(1, num_iterations)):
        loss_sum, kl_sum = 0.0, 0.0
        for first, (chunk_ids, chunk_labels) in chunks:
            ref = None
            if kl_coef > 0:
                inner = getattr(model, "module", model)
                with torch.no_grad(), inner.disable_adapter():
                    ref, _ = token_logprobs(inner, chunk_ids, chunk_labels, temperature)
            with checkpointed(model, chunk_ids.shape[1], checkpoint_tokens):
                logprobs, mask = token_logprobs(model, chunk_ids, chunk_labels, temperature)
                sampled = old.setdefault(first, logprobs.detach())
                share = float(mask.sum()) / total  # the means below are over this chunk; weigh it by its tokens
                chunk_adv = adv[first : first + chunk_ids.shape[0]]
                loss = clipped_surrogate(logprobs, sampled, chunk_adv, mask, clip=clip) * share
                if iteration:
                    ratio = torch.exp(logprobs.detach() - sampled)
                    clipped += float((((ratio - 1).abs() > clip).float() * mask).sum())
                    later_tokens += float(mask.sum())
                if ref is not None:
                    kl = kl_to_reference(logprobs, ref, mask) * share
                    loss = loss + kl_coef * kl
                    kl_sum += float(kl.detach())
                (backward or _backward)(loss)
            loss_sum += float(loss.detach())
        optimizer.step()
        optimizer.zero_grad()
        if iteration == 0:
            stats["loss"], stats["kl"] = loss_sum, kl_sum
    stats["tokens"] = int(ids.numel())
    stats["clipped"] = clipped / later_tokens if later_tokens else 0.0
    return stats
