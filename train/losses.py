"""The losses and the updates they drive: SFT on the model's own tokens, GRPO's clipped surrogate and KL.

Each piece is a small function with a test: `token_logprobs` (log-probs of the labelled tokens
only), `turn_weights`/`turn_starts` (per-turn weighting of SFT), `group_advantages`,
`clipped_surrogate`, `kl_to_reference`, and the updates that combine them, `sft_step`,
`grpo_step` (one optimizer step each, micro-batched, with activation checkpointing for long rows)
and `reply_step` (step-level GRPO on replies kept as sampled: `sampled_logprobs` recomputes their
log-probs from the very tokens and grammar masks they were drawn with).
`gym_mcp.train.trainer.GymTrainer` calls the updates; nothing here plays an environment.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym_mcp.policies.decoding import SampledReply
    from gym_mcp.train.rollouts import Rollout

__all__ = [
    "checkpointed",
    "clipped_surrogate",
    "group_advantages",
    "grpo_step",
    "kl_to_reference",
    "reply_step",
    "sampled_logprobs",
    "sft_step",
    "token_logprobs",
    "turn_starts",
    "turn_weights",
]


def token_logprobs(
    model: Any, input_ids: Any, labels: Any, temperature: float = 1.0, position_ids: Any = None
) -> tuple[Any, Any]:
    """Log-probabilities of the labelled tokens under ``model``, and their mask.

    Logits are computed only at the positions that predict a labelled token in some row (the
    model's own tokens are a small share of a tool-use conversation, and the vocabulary
    projection is the largest single matrix): less time and far less memory than full logits.

    Args:
        model: A causal LM.
        input_ids: ``[batch, seq]`` token ids.
        labels: Same shape; ``-100`` where the token is context (not the model's own).
        temperature: Divide the logits by it (the distribution rollouts were sampled from).
        position_ids: ``[batch, seq]`` positions for packed rows (`pack_batch`: each
            conversation's restart at 0, so it attends to itself only); None: ``0..seq-1``.

    Returns:
        ``(logprobs, mask)``, both ``[batch, kept]``: one column per kept position, the same
        columns for the same ``labels`` (so old, new and reference log-probs line up).
    """
    import torch

    targets = labels[:, 1:]
    keep = (targets != -100).any(dim=0).nonzero().squeeze(-1)
    extra = {} if position_ids is None else {"position_ids": position_ids}
    try:
        logits = model(input_ids=input_ids, logits_to_keep=keep, use_cache=False, **extra).logits
    except TypeError:  # a model without logits_to_keep
        logits = model(input_ids=input_ids, use_cache=False, **extra).logits[:, :-1, :][:, keep, :]
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
    position_ids: Any = None,
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

    ``position_ids`` come with rows that hold several conversations each (`pack_batch`); the
    loss is the same as over the conversations one to a row.
    """
    chunks = _chunks(input_ids, labels, micro_batch, position_ids)
    turns = float(max(sum(turn_weights(lab)[1] for _, lab, _ in chunks), 1))
    total = turns if per_turn else float(max(int((labels[:, 1:] != -100).sum()), 1))
    loss_sum = 0.0
    for ids, lab, pos in chunks:
        with checkpointed(model, ids.shape[1], checkpoint_tokens):
            logprobs, _ = token_logprobs(model, ids, lab, position_ids=pos)
            weights = turn_weights(lab)[0] if per_turn else 1.0
            loss = -(logprobs * weights).sum() / total
            if decision_weight:
                loss = loss - decision_weight * (logprobs * turn_starts(lab)).sum() / turns
            (backward or _backward)(loss)
        loss_sum += float(loss.detach())
    optimizer.step()
    optimizer.zero_grad()
    return loss_sum


def _chunks(input_ids: Any, labels: Any, size: int | None, position_ids: Any = None) -> list[tuple[Any, Any, Any]]:
    """The batch in chunks of ``size`` rows, each cut to its longest row (``size`` None: one chunk).

    Each chunk is ``(input_ids, labels, position_ids)``, the last None when ``position_ids`` is.
    """
    if not size or size >= input_ids.shape[0]:
        return [(input_ids, labels, position_ids)]
    out = []
    for start in range(0, input_ids.shape[0], size):
        lab = labels[start : start + size]
        real = (lab != -100).any(dim=0).nonzero()
        width = int(real.max()) + 1 if len(real) else lab.shape[1]
        pos = None if position_ids is None else position_ids[start : start + size, :width]
        out.append((input_ids[start : start + size, :width], lab[:, :width], pos))
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
        for first, (chunk_ids, chunk_labels, _) in chunks:
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


def _allowed(bitmask: Any, vocab: int) -> Any:
    """Unpack xgrammar's bitmask rows (``[..., words]`` int32) into booleans ``[..., vocab]``."""
    import torch

    shifts = torch.arange(32, dtype=torch.int32, device=bitmask.device)
    bits = (bitmask.unsqueeze(-1) >> shifts) & 1
    flat = bits.flatten(-2).bool()
    if flat.shape[-1] < vocab:  # logits wider than the grammar's vocabulary: the extra ids were never allowed
        flat = torch.nn.functional.pad(flat, (0, vocab - flat.shape[-1]), value=False)
    return flat[..., :vocab]


def sampled_logprobs(model: Any, replies: Sequence[SampledReply], temperature: float) -> tuple[Any, Any]:
    """Log-probs of replies to one prompt, recomputed from the tokens and masks they were sampled with.

    The prompt runs once (with gradient: the adapter acts on it too) and its KV cache is shared
    by every reply; each reply's tokens then run as one padded batch. Nothing is re-rendered or
    re-tokenized: the ids are `SampledReply.token_ids`, each position's logits are masked by the
    grammar's recorded bitmask and divided by ``temperature``, as when the token was drawn.

    Args:
        model: The policy (with its adapter).
        replies: Sampled replies to the same prompt (`SampledReply.prompt_ids` equal).
        temperature: The sampling temperature.

    Returns:
        ``(logprobs, mask)``, ``[len(replies), longest]``: the mask is 1 on a reply's tokens that
        the model chose (padding and grammar-forced tokens are 0).
    """
    import torch
    from transformers import DynamicCache

    from gym_mcp.policies.decoding import cache_kwarg, output_cache

    prompt = replies[0].prompt_ids
    if any(r.prompt_ids != prompt for r in replies):
        raise ValueError("sampled_logprobs takes replies to one prompt")
    device = next(model.parameters()).device
    n, width = len(replies), max(len(r.token_ids) for r in replies)
    kw = cache_kwarg(model)
    out = model(input_ids=torch.tensor([prompt], device=device), use_cache=True, logits_to_keep=1)
    first = out.logits[:, -1:, :].expand(n, 1, -1)  # predicts every reply's first token
    logits = first
    if width > 1:
        layers = [(k.expand(n, -1, -1, -1), v.expand(n, -1, -1, -1)) for k, v, *_ in output_cache(out)]
        ids = torch.zeros(n, width - 1, dtype=torch.long, device=device)
        attention = torch.zeros(n, len(prompt) + width - 1, dtype=torch.long, device=device)
        attention[:, : len(prompt)] = 1
        for row, r in enumerate(replies):
            body = r.token_ids[:-1]
            ids[row, : len(body)] = torch.tensor(body, dtype=torch.long)
            attention[row, len(prompt) : len(prompt) + len(body)] = 1
        positions = torch.arange(len(prompt), len(prompt) + width - 1, device=device).expand(n, -1)
        rest = model(
            input_ids=ids,
            attention_mask=attention,
            position_ids=positions,
            use_cache=True,
            **{kw: DynamicCache(ddp_cache_data=layers)},
        ).logits
        logits = torch.cat([first, rest], dim=1)
    logits = logits.float()
    vocab = logits.shape[-1]
    targets = torch.zeros(n, width, dtype=torch.long, device=device)
    mask = torch.zeros(n, width, device=device)
    allowed = torch.ones(n, width, vocab, dtype=torch.bool, device=device)
    for row, r in enumerate(replies):
        count = len(r.token_ids)
        targets[row, :count] = torch.tensor(r.token_ids, dtype=torch.long)
        mask[row, :count] = torch.tensor([0.0 if f else 1.0 for f in r.forced], device=device)
        if r.allowed is not None:
            allowed[row, :count] = _allowed(torch.stack(r.allowed).to(device), vocab)
    logits = logits.masked_fill(~allowed, float("-inf"))
    chosen = torch.log_softmax(logits / temperature, dim=-1).gather(-1, targets[..., None]).squeeze(-1)
    return chosen.masked_fill(mask == 0, 0.0), mask


def reply_step(
    model: Any,
    optimizer: Any,
    groups: Sequence[tuple[Sequence[SampledReply], Sequence[float]]],
    *,
    temperature: float,
    clip: float = 0.2,
    kl_coef: float = 0.0,
    scale_rewards: bool = True,
    num_iterations: int = 1,
    backward: Callable[[Any], None] | None = None,
) -> dict[str, Any]:
    """Step-level GRPO: updates from groups of sampled replies to one decision point each.

    Each group is the replies sampled from one point and their rewards; advantages are relative
    within the group (`group_advantages`), and a group without spread is left out. The ratio of
    every update is to the log-probs recorded when the tokens were drawn (`SampledReply.logprobs`),
    so the first update's ratio is 1 up to float rounding and later ones (``num_iterations``) are
    clipped to ``[1 - clip, 1 + clip]`` around the sampling policy: the trust region is PPO's
    clip against the policy that sampled, plus, when ``kl_coef`` > 0, the k3 KL to the base model
    (the adapter disabled). The loss is the token mean over every chosen token of the kept groups.

    Returns:
        ``{"groups", "kept" (groups with spread), "loss" (the first update's), "kl", "tokens",
        "ratio_error" (the first update's largest ``|ratio - 1|``), "clipped" (share of tokens
        clipped in later updates)}``.
    """
    import torch

    kept = []
    for replies, rewards in groups:
        adv = group_advantages(list(rewards), scale=scale_rewards)
        if any(adv):
            kept.append((list(replies), adv))
    stats: dict[str, Any] = {"groups": len(groups), "kept": len(kept), "loss": 0.0, "kl": 0.0, "tokens": 0}
    stats["ratio_error"], stats["clipped"] = 0.0, 0.0
    if not kept:
        return stats
    device = next(model.parameters()).device
    total = float(sum(len(r.token_ids) - sum(r.forced) for replies, _ in kept for r in replies)) or 1.0
    clipped = later = 0.0
    for iteration in range(max(1, num_iterations)):
        loss_sum = kl_sum = 0.0
        for replies, adv in kept:
            width = max(len(r.token_ids) for r in replies)
            old = torch.tensor([r.logprobs + [0.0] * (width - len(r.logprobs)) for r in replies], device=device)
            logprobs, mask = sampled_logprobs(model, replies, temperature)
            old = old * mask
            ratio = torch.exp(logprobs.detach() - old)
            if iteration == 0:
                error = float(((ratio - 1).abs() * mask).max())
                stats["ratio_error"] = max(stats["ratio_error"], error)
            else:
                clipped += float((((ratio - 1).abs() > clip).float() * mask).sum())
                later += float(mask.sum())
            share = float(mask.sum()) / total
            loss = clipped_surrogate(logprobs, old, torch.tensor(adv, device=device), mask, clip=clip) * share
            if kl_coef > 0:
                inner = getattr(model, "module", model)
                with torch.no_grad(), inner.disable_adapter():
                    ref, _ = sampled_logprobs(inner, replies, temperature)
                kl = kl_to_reference(logprobs, ref, mask) * share
                loss = loss + kl_coef * kl
                kl_sum += float(kl.detach())
            (backward or _backward)(loss)
            loss_sum += float(loss.detach())
        optimizer.step()
        optimizer.zero_grad()
        if iteration == 0:
            stats["loss"], stats["kl"] = loss_sum, kl_sum
    stats["tokens"] = int(total)
    stats["clipped"] = clipped / later if later else 0.0
    return stats
