"""The one decode loop: batched, cached, stop-aware generation shared by the local-model policy and training.

`generate_replies` renders nothing: it takes prompts already rendered and returns each row's next
reply, cut where the model's turn ends (see `gym_mcp.policies.prompt.cut_reply`). The trainer's
evaluation and GRPO rollouts call it with many rows and a `PromptCache` carried between turns;
`gym_mcp.policies.local.LocalModel` calls it with one row, so a local model answers exactly as the
same weights do in training.

- `generate_replies`: tokenize, run the prompt (through the cache), decode, cut.
- `sample_replies`: the same decode, keeping what RL trains on (`SampledReply`): the prompt's
  and the reply's token ids, each token's log-probability under the distribution it was drawn
  from (the grammar's mask and the temperature applied) and that mask.
- `PromptCache`: each episode's prompt KV cache from one turn to the next.
- `sample_next`: greedy or sampled choice of the next token (temperature, top-k, top-p as
  transformers' own warpers compute them).
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gym_mcp.policies.guided import CallGrammar

__all__ = ["PromptCache", "SampledReply", "generate_replies", "sample_next", "sample_replies"]


@dataclass
class SampledReply:
    """One reply as it was sampled: the tokens in and out, for a loss that re-renders nothing.

    Attributes:
        text: The reply as the environment gets it (cut where the model's turn ends).
        prompt_ids: The prompt's token ids, unpadded.
        token_ids: Every token drawn, in order, the end-of-turn token included when one was drawn
            (it is the choice to stop). ``text`` is their decoding, cut.
        logprobs: Each token's log-probability under the distribution it was drawn from: the
            logits masked by the grammar (when one guided the reply), divided by the temperature.
        allowed: Per token, the grammar's bitmask of allowed tokens (an int32 row of
            ``ceil(vocab / 32)`` words, xgrammar's layout), or None where no grammar guided the
            reply; a loss applies the same masks.
        forced: Per token, whether the mask allowed it alone (its log-probability is 0 and it
            carries no gradient: the grammar chose it, not the model).
    """

    text: str
    prompt_ids: list[int]
    token_ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    allowed: list[Any] | None = None
    forced: list[bool] = field(default_factory=list)


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
    top_k: int | None = None,
    top_p: float = 1.0,
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

    ``top_k`` and ``top_p`` narrow sampling (``temperature`` > 0) the way transformers' warpers
    do; the trainer samples from the full distribution (None and 1.0).
    """
    return [
        r.text
        for r in _generate(
            model,
            tokenizer,
            prompts,
            max_new_tokens=max_new_tokens,
            temperature=temperature,
            seed=seed,
            answer_tokens=answer_tokens,
            cache=cache,
            keys=keys,
            grammar=grammar,
            tools=tools,
            top_k=top_k,
            top_p=top_p,
            trace=False,
        )
    ]


def sample_replies(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[str],
    *,
    temperature: float,
    max_new_tokens: int = 32,
    seed: int | None = None,
    answer_tokens: int | None = None,
    cache: PromptCache | None = None,
    keys: Sequence[Hashable] | None = None,
    grammar: CallGrammar | None = None,
    tools: Sequence[Sequence[Mapping[str, Any]]] | None = None,
) -> list[SampledReply]:
    """Sampled replies with their tokens and log-probs (see `SampledReply`), decoded as `generate_replies` does.

    Sampling is from the full distribution at ``temperature`` (> 0; no top-k or top-p, so the
    recorded log-probs are those of the distribution each token was drawn from).
    """
    if temperature <= 0:
        raise ValueError("sample_replies samples: temperature must be > 0 (generate_replies decodes greedily)")
    return _generate(
        model,
        tokenizer,
        prompts,
        max_new_tokens=max_new_tokens,
        temperature=temperature,
        seed=seed,
        answer_tokens=answer_tokens,
        cache=cache,
        keys=keys,
        grammar=grammar,
        tools=tools,
        trace=True,
    )


def _generate(
    model: Any,
    tokenizer: Any,
    prompts: Sequence[str],
    *,
    max_new_tokens: int,
    temperature: float,
    seed: int | None,
    answer_tokens: int | None,
    cache: PromptCache | None,
    keys: Sequence[Hashable] | None,
    grammar: CallGrammar | None,
    tools: Sequence[Sequence[Mapping[str, Any]]] | None,
    trace: bool,
    top_k: int | None = None,
    top_p: float = 1.0,
) -> list[SampledReply]:
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
        replies = [SampledReply("", ids[row][mask[row].bool()].tolist() if trace else []) for row in range(len(ids))]
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
            top_k=top_k,
            top_p=top_p,
            trace=replies if trace else None,
        )
    for reply, row in zip(replies, new, strict=True):
        reply.text = cut_reply(str(tokenizer.decode(row, skip_special_tokens=True)))
    return replies


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
    top_k: int | None = None,
    top_p: float = 1.0,
    trace: Sequence[SampledReply] | None = None,
) -> list[list[int]]:
    """Each row's continuation, token by token; a row leaves the batch as soon as it stops.

    A row stops at an end-of-turn token, once its text holds a stop string (`STOP_STRINGS`; a
    guided row only where its grammar is complete, so not inside a call's string value),
    after ``answer_tokens`` tokens without a ``<tool_call>``, or at ``max_new_tokens``. A stopped
    row's cache is dropped from the batch, so the rest decode at the cost of the rows still
    running (``generate`` keeps computing finished rows until the last one stops). Greedy at
    ``temperature`` 0, else sampled from the full distribution at that temperature (what
    ``generate(do_sample=True, top_k=0)`` does), narrowed by ``top_k``/``top_p`` (see `sample_next`).

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
        top_k: Sample among the ``top_k`` likeliest tokens only (None or 0: all).
        top_p: Sample from the smallest set of tokens whose probability reaches ``top_p``.
        trace: One `SampledReply` per row to record each drawn token in (its id, log-prob, mask),
            the end-of-turn token included; None records nothing.
    """
    import torch

    from gym_mcp.policies.prompt import STOP_STRINGS

    stop_ids = _stop_token_ids(model, tokenizer)
    # Tokens decoded at each step to look for stop strings: each token is at least one character
    # of an ASCII marker; twice that for tokens that decode to nothing (special ones, skipped).
    tail_tokens = 2 * max(len(m) for m in (*STOP_STRINGS, "<tool_call>"))
    kw = cache_kwarg(model)
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
    past, logits, mask = reserve_room(output_cache(out), ROOM), out.logits[:, -1, :], attention_mask
    position = positions[:, -1] + 1
    active = list(range(input_ids.shape[0]))
    new: list[list[int]] = [[] for _ in active]
    called = [False for _ in active]  # a row's text holds "<tool_call>"
    guided = grammar is not None and matchers is not None
    for step in range(max_new_tokens):
        bitmask = None
        if guided:
            logits = logits.float()
            bitmask = grammar.mask(logits, [matchers[row] for row in active])  # type: ignore[index,union-attr]
        picked = sample_next(logits, temperature, top_k=top_k, top_p=top_p)
        if trace is not None:
            drawn = torch.log_softmax(logits.float() / temperature, dim=-1)
            chosen = drawn.gather(1, picked[:, None]).squeeze(1).tolist()
            alone = (torch.isfinite(logits).sum(-1) == 1).tolist()
        keep = []
        tokens = picked.tolist()  # one device-to-host copy a step for every row, not one per row
        for j, row in enumerate(active):
            token = tokens[j]
            if trace is not None:
                record = trace[row]
                record.token_ids.append(token)
                record.logprobs.append(float(chosen[j]))
                record.forced.append(bool(alone[j]))
                if matchers is not None and matchers[row] is not None and bitmask is not None:
                    record.allowed = record.allowed or []
                    record.allowed.append(bitmask[j].clone())
            if token in stop_ids:
                continue
            matcher = matchers[row] if guided else None  # type: ignore[index]
            if matcher is not None and not matcher.accept_token(token):
                continue
            new[row].append(token)
            # Only the last tokens are decoded: a marker is ASCII, so it first shows in a reply's
            # text with the token that ends it, within its length in tokens of the end (the whole
            # text each step was quadratic in the reply's length).
            tail = tokenizer.decode(new[row][-tail_tokens:], skip_special_tokens=True)
            called[row] = called[row] or "<tool_call>" in tail
            # a guided call stops where its grammar closes it, not at a stop string inside a value
            if any(marker in tail for marker in STOP_STRINGS) and (matcher is None or matcher.is_completed()):
                continue
            if answer_tokens is not None and len(new[row]) >= answer_tokens and not called[row]:
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
        past, logits, position = output_cache(out), out.logits[:, -1, :], position + 1
    return new


def sample_next(logits: Any, temperature: float, *, top_k: int | None = None, top_p: float = 1.0) -> Any:
    """The next token of each row (``[rows]``): the argmax at ``temperature`` 0, else a sample.

    Sampling divides the logits by ``temperature``, keeps the ``top_k`` likeliest tokens and the
    ``top_p`` nucleus with transformers' own warpers (so a local model samples as ``generate``
    did), then draws one token per row from the softmax. A grammar mask, when there is one, is
    applied before: the nucleus is taken among the tokens the grammar allows, never emptied by it.
    """
    import torch

    if temperature <= 0:
        return logits.argmax(dim=-1)
    scores = logits.float() / temperature
    if top_k:
        from transformers.generation.logits_process import TopKLogitsWarper

        scores = TopKLogitsWarper(top_k=top_k)(None, scores)
    if top_p < 1.0:
        from transformers.generation.logits_process import TopPLogitsWarper

        scores = TopPLogitsWarper(top_p=top_p)(None, scores)
    return torch.multinomial(torch.softmax(scores, dim=-1), 1).squeeze(1)


def _stop_token_ids(model: Any, tokenizer: Any) -> set[int]:
    """The end-of-turn tokens: the generation config's ``eos_token_id`` (one or a list) and the tokenizer's."""
    config = getattr(model, "generation_config", None)
    eos = getattr(config, "eos_token_id", None)
    ids = set(eos if isinstance(eos, list | tuple) else [eos] if eos is not None else [])
    if tokenizer.eos_token_id is not None:
        ids.add(int(tokenizer.eos_token_id))
    return ids


def cache_kwarg(model: Any) -> str:
    """The keyword ``model``'s forward takes a KV cache by: ``cache`` or ``past_key_values``.

    Read from the forward's signature (a PEFT model's base model's), not guessed from the
    transformers version: 5.x releases renamed it at different times for different outputs.
    """
    import inspect

    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    params = inspect.signature(base.forward).parameters
    return "cache" if "cache" in params and "past_key_values" not in params else "past_key_values"


# Positions a decoding cache reserves ahead, per layer and row (see `reserve_room`; 0: none, transformers' torch.cat).
ROOM = 128


def reserve_room(cache: Any, room: int = ROOM) -> Any:
    """Let ``cache``'s layers grow into reserved memory instead of copying themselves every token.

    transformers' `DynamicCache` appends a token's keys and values with ``torch.cat``, which
    copies the layer's whole cache: at a batch of 16 two-thousand-token prompts that is about
    1.5 GB copied per decoded token on SmolLM2-135M, memory-bound on a CPU. Each plain dynamic
    layer here writes into a buffer with ``room`` spare positions and hands attention a view of
    its filled part; the buffer is copied only when it fills, or after rows leave the batch
    (`batch_select_indices` makes a new tensor). The keys and values, and so the tokens, are
    those of the plain cache. Layers of other kinds (sliding windows, static caches) are left
    as they are; ``room`` 0 leaves every layer as it is.

    Returns:
        ``cache``, its layers changed in place.
    """
    try:
        from transformers.cache_utils import DynamicLayer
    except ImportError:  # a transformers without cache layers
        return cache
    if room <= 0:
        return cache
    roomy = _roomy_layer_class(DynamicLayer)
    for layer in getattr(cache, "layers", ()):
        if type(layer) is DynamicLayer:
            layer.__class__ = roomy
            layer.room = room
    return cache


@functools.cache
def _roomy_layer_class(base: type) -> type:
    """A subclass of transformers' ``DynamicLayer`` whose ``update`` writes into reserved room (one, made once)."""

    class RoomyLayer(base):
        keys: Any
        values: Any
        room = ROOM
        _buffers: tuple[Any, Any] | None = None

        def update(self, key_states: Any, value_states: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
            if not self.is_initialized or self.keys is None or self.keys.dim() != 4:
                return super().update(key_states, value_states, *args, **kwargs)
            have, new = self.keys.shape[-2], key_states.shape[-2]
            buffers = self._buffers
            if (
                buffers is None
                or buffers[0].data_ptr() != self.keys.data_ptr()  # rows left: keys is a new tensor
                or buffers[0].shape[0] != self.keys.shape[0]
                or have + new > buffers[0].shape[-2]
            ):
                batch, heads, _, dim = self.keys.shape
                buffers = (
                    self.keys.new_empty(batch, heads, have + new + self.room, dim),
                    self.values.new_empty(batch, heads, have + new + self.room, self.values.shape[-1]),
                )
                buffers[0][:, :, :have] = self.keys
                buffers[1][:, :, :have] = self.values
                self._buffers = buffers
            buffers[0][:, :, have : have + new] = key_states
            buffers[1][:, :, have : have + new] = value_states
            self.keys, self.values = buffers[0][:, :, : have + new], buffers[1][:, :, : have + new]
            return self.keys, self.values

    return RoomyLayer


def output_cache(out: Any) -> Any:
    """The KV cache a forward pass returned, under whichever name this transformers gives it."""
    for name in ("cache", "past_key_values"):
        value = out.get(name) if hasattr(out, "get") else getattr(out, name, None)
        if value is not None:
            return value
    raise KeyError("the model returned no KV cache (neither 'cache' nor 'past_key_values'); was use_cache=True?")


class PromptCache:
    """The KV cache of each episode's prompt, carried from one turn to the next (see `generate_replies`).

    A turn's prompt is the last turn's prompt plus the reply and the tool result, so most of its
    tokens were already run. Per key (an episode), the cache holds the keys and values of the
    last prompt's tokens; the next prompt is run from the longest prefix it shares with them.
    The values are those a full forward pass computes for the same tokens (the causal mask
    makes a prefix's keys and values independent of what follows; batched and unbatched matmuls
    differ only in float rounding).

    With ``batch_prefill`` the new tokens of a batch's rows run in one padded forward pass
    (`prefill_many`), else one pass per row. The default (None) batches on a GPU only: on two CPU
    cores the batched pass measured 1.09x the time of the row-by-row passes (32 held-out tasks
    of a trained run, ``bench_eval_cache.py``; padding and the explicit mask cost more than the
    larger matmuls save there), while a GPU pays a kernel launch per layer per pass.
    """

    def __init__(self, *, batch_prefill: bool | None = None) -> None:
        self._ids: dict[Hashable, list[int]] = {}
        self._kv: dict[Hashable, list[tuple[Any, Any]]] = {}
        self.batch_prefill = batch_prefill
        self.reused_tokens = 0
        self.computed_tokens = 0

    def _shared(self, key: Hashable, ids: Sequence[int]) -> tuple[int, list[tuple[Any, Any]]]:
        """How many leading tokens of ``ids`` the cache of ``key`` holds, and their keys and values."""
        same = 0
        for a, b in zip(self._ids.get(key, []), ids, strict=False):
            if a != b:
                break
            same += 1
        return same, [(k[:, :, :same], v[:, :, :same]) for k, v in self._kv.get(key, [])] if same else []

    def prefill(self, model: Any, key: Hashable, ids: Sequence[int]) -> list[tuple[Any, Any]]:
        """Per layer, ``(keys, values)`` of ``ids`` (``[1, heads, len(ids), dim]``), running only what is new."""
        import torch
        from transformers import DynamicCache

        same, kv = self._shared(key, ids)
        if same < len(ids):
            device = next(model.parameters()).device
            past = DynamicCache(ddp_cache_data=kv) if kv else DynamicCache()
            new = torch.tensor([list(ids[same:])], device=device)
            # logits for the last token only: the cache is what is kept (all of them cost a
            # [tokens, vocabulary] matrix and the lm_head's share of the pass)
            out = model(input_ids=new, use_cache=True, logits_to_keep=1, **{cache_kwarg(model): past})
            kv = [(k, v) for k, v, *_ in output_cache(out)]
        self.reused_tokens += same
        self.computed_tokens += len(ids) - same
        self._ids[key], self._kv[key] = list(ids), kv
        return kv

    def prefill_many(self, model: Any, rows: Sequence[tuple[Hashable, Sequence[int]]]) -> None:
        """`prefill` for several ``(key, ids)`` rows, their new tokens in one padded forward pass.

        Row i's cached prefix (``p_i`` tokens) is left-padded to the longest prefix ``P`` and its
        new tokens (``s_i``) to the longest ``S``; the attention mask is 0 on both paddings and
        the position ids count only real tokens, so each row's tokens see what they see alone.
        Each row then keeps its real positions only (``[1, heads, p_i + s_i, dim]``).
        """
        import torch
        from transformers import DynamicCache

        device = next(model.parameters()).device
        if not (device.type == "cuda" if self.batch_prefill is None else self.batch_prefill):
            for key, ids in rows:  # the CPU default: one pass per row, each prefix compared once
                self.prefill(model, key, ids)
            return
        todo = []
        for key, ids in rows:
            same, kv = self._shared(key, ids)
            if same == len(ids):
                self.prefill(model, key, ids)
            else:
                todo.append((key, list(ids), same, kv))
        if len(todo) == 1:
            self.prefill(model, todo[0][0], todo[0][1])
        if len(todo) < 2:
            return
        longest_prefix = max(same for _, _, same, _ in todo)
        longest_new = max(len(ids) - same for _, ids, same, _ in todo)
        new = torch.zeros(len(todo), longest_new, dtype=torch.long, device=device)
        mask = torch.zeros(len(todo), longest_prefix + longest_new, dtype=torch.long, device=device)
        positions = torch.zeros(len(todo), longest_new, dtype=torch.long, device=device)
        for row, (_, ids, same, _) in enumerate(todo):
            count = len(ids) - same
            new[row, longest_new - count :] = torch.tensor(ids[same:], device=device)
            mask[row, longest_prefix - same : longest_prefix] = 1
            mask[row, longest_prefix + longest_new - count :] = 1
            positions[row, longest_new - count :] = torch.arange(same, len(ids), device=device)
        past = DynamicCache()
        if longest_prefix:
            layers = []
            template = next(kv for _, _, _, kv in todo if kv)
            for layer, (k0, v0) in enumerate(template):
                ks, vs = [], []
                for _, _, same, kv in todo:
                    k, v = kv[layer] if kv else (k0[:, :, :0], v0[:, :, :0])
                    ks.append(torch.nn.functional.pad(k, (0, 0, longest_prefix - same, 0)))
                    vs.append(torch.nn.functional.pad(v, (0, 0, longest_prefix - same, 0)))
                layers.append((torch.cat(ks), torch.cat(vs)))
            past = DynamicCache(ddp_cache_data=layers)
        out = model(
            input_ids=new,
            attention_mask=mask,
            position_ids=positions,
            use_cache=True,
            logits_to_keep=1,
            **{cache_kwarg(model): past},
        )
        computed = [(k, v) for k, v, *_ in output_cache(out)]
        for row, (key, ids, same, _) in enumerate(todo):
            real = mask[row].bool()
            self._kv[key] = [(k[row : row + 1, :, real], v[row : row + 1, :, real]) for k, v in computed]
            self._ids[key] = ids
            self.reused_tokens += same
            self.computed_tokens += len(ids) - same

    def batch(self, model: Any, input_ids: Any, attention_mask: Any, keys: Sequence[Hashable]) -> Any:
        """A left-padded batch cache of every row's prompt but its last token (``generate`` runs that one).

        Padding slots hold zeros; the attention mask keeps them out, and position ids come from
        the mask, so each row's real tokens sit where an unpadded run puts them.
        """
        import torch
        from transformers import DynamicCache

        width = input_ids.shape[1]
        first_with: dict[tuple[int, ...], Hashable] = {}  # rows with the same prompt (a GRPO group) run it once
        copies = []
        for row, key in enumerate(keys):
            real = tuple(input_ids[row][attention_mask[row].bool()].tolist()[:-1])
            if real in first_with:
                copies.append((key, real))
            else:
                first_with[real] = key
        self.prefill_many(model, [(key, real) for real, key in first_with.items()])
        for key, real in copies:
            self._ids[key], self._kv[key] = list(real), self._kv[first_with[real]]
            self.reused_tokens += len(real)
        rows = [self._kv[key] for key in keys]
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
