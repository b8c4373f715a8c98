"""What makes training fit in memory and time: micro-batches, the shared prompt cache, cut answers, the split."""

from __future__ import annotations

import copy
import itertools
from pathlib import Path

import gymnasium as gym
import pytest

torch = pytest.importorskip("torch", reason="training needs the [train] extra (the README's test command installs it)")
peft = pytest.importorskip("peft", reason="training needs the [train] extra")

import gym_mcp  # noqa: E402
from gym_mcp.policies import decoding  # noqa: E402
from gym_mcp.policies.decoding import generate_replies  # noqa: E402
from gym_mcp.train.data import (  # noqa: E402
    IGNORE,
    encode_conversation,
    held_out_split,
    pack_batch,
    pad_batch,
    reference_conversation,
)
from gym_mcp.train.loading import load_lora_model  # noqa: E402
from gym_mcp.train.losses import grpo_step, sft_step, token_logprobs, turn_starts  # noqa: E402
from gym_mcp.train.rollouts import Rollout  # noqa: E402
from tests.helpers import deposit_then_balance_task  # noqa: E402
from tests.tiny_model import build_tiny_model  # noqa: E402

TASKS = (
    deposit_then_balance_task(),
    gym_mcp.Task(
        id="one",
        server="banking",
        instruction="What is the balance of ACC-1002?",
        reference_calls=({"name": "get_balance", "arguments": {"account_id": "ACC-1002"}},),
    ),
    gym_mcp.Task(id="none", server="banking", instruction="Tell me a joke.", reference_calls=()),
)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def conversations() -> list[tuple[list[dict], list[dict]]]:
    env = gym.make("gym_mcp/Banking-v0")
    try:
        return [reference_conversation(env, task, 2) for task in TASKS]
    finally:
        env.close()


def _twins(tiny: Path) -> tuple[object, object, object]:
    torch.manual_seed(0)
    model, tokenizer = load_lora_model(tiny, peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))
    for name, p in model.named_parameters():  # B starts at zero; move it so every path has a gradient
        if "lora_B" in name:
            p.data.normal_(0, 0.05)
    return model, copy.deepcopy(model), tokenizer


PROMPTS = (
    "<|system|> You are a helpful assistant with tools. <|user|> Show the balance of account ACC-1001",
    "<|user|> Freeze account ACC-1002",
)


def _plain_model(tiny: Path) -> tuple[object, object]:
    """The tiny model without adapters, and its tokenizer."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(tiny, local_files_only=True)
    return model, AutoTokenizer.from_pretrained(tiny, local_files_only=True)


def _lora_state(model: object) -> dict[str, object]:
    return {n: p.detach().clone() for n, p in model.named_parameters() if "lora_" in n}  # type: ignore[attr-defined]


@pytest.mark.parametrize(("per_turn", "decision"), [(False, 0.0), (True, 0.0), (False, 1.0)])
def test_micro_batches_give_the_whole_batchs_update(
    tiny: Path, conversations: list, per_turn: bool, decision: float
) -> None:
    whole, chunked, tokenizer = _twins(tiny)
    examples = [encode_conversation(tokenizer, m, t) for m, t in conversations]
    ids, labels = pad_batch(examples, tokenizer.eos_token_id)
    assert len({len(e.input_ids) for e in examples}) == 3  # rows of different lengths: chunks are cut
    losses = []
    for model, size in ((whole, None), (chunked, 1)):
        optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.5)
        losses.append(
            sft_step(model, optimizer, ids, labels, per_turn=per_turn, micro_batch=size, decision_weight=decision)
        )
    assert losses[0] == pytest.approx(losses[1], rel=1e-5)
    a, b = _lora_state(whole), _lora_state(chunked)
    assert all(torch.allclose(a[n], b[n], atol=1e-6) for n in a)


def test_packed_rows_hold_each_conversation_once_with_its_own_positions(tiny: Path, conversations: list) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny, local_files_only=True)
    examples = [encode_conversation(tokenizer, m, t) for m, t in conversations]
    lengths = [len(e.input_ids) for e in examples]
    ids, labels, positions = pack_batch(examples, tokenizer.eos_token_id, sum(lengths))
    assert ids.shape == (1, sum(lengths))  # all three in one row, longest first
    starts = (positions[0] == 0).nonzero().flatten().tolist()
    assert len(starts) == 3 and starts[0] == 0
    order = sorted(range(3), key=lambda i: -lengths[i])
    for start, i in zip(starts, order, strict=True):
        n = lengths[i]
        assert ids[0, start : start + n].tolist() == examples[i].input_ids
        assert positions[0, start : start + n].tolist() == list(range(n))
        expected = ([IGNORE] if start else examples[i].labels[:1]) + examples[i].labels[1:]
        assert labels[0, start : start + n].tolist() == expected  # a later conversation's first token: no target
    # a capacity below the longest conversation is raised to it; nothing is split across rows
    ids, labels, positions = pack_batch(examples, tokenizer.eos_token_id, 1)
    short = sorted(lengths)[:2]
    assert ids.shape == (2 if sum(short) <= max(lengths) else 3, max(lengths))
    assert int((labels != IGNORE).sum()) <= sum(sum(x != IGNORE for x in e.labels) for e in examples)


@pytest.mark.parametrize("attention", ["sdpa", "eager"])
def test_packed_rows_score_each_conversation_as_alone(tiny: Path, conversations: list, attention: str) -> None:
    """With restarting positions and no attention mask, transformers masks the other conversations out."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(tiny, local_files_only=True, attn_implementation=attention)
    tokenizer = AutoTokenizer.from_pretrained(tiny, local_files_only=True)
    examples = [encode_conversation(tokenizer, m, t) for m, t in conversations]
    with torch.no_grad():
        alone = sum(float(token_logprobs(model, *pad_batch([e], tokenizer.eos_token_id))[0].sum()) for e in examples)
        ids, labels, positions = pack_batch(examples, tokenizer.eos_token_id, 10_000)
        packed = float(token_logprobs(model, ids, labels, position_ids=positions)[0].sum())
        leaked = float(token_logprobs(model, ids, labels)[0].sum())  # one long sequence: later ones see earlier
    assert packed == pytest.approx(alone, rel=1e-5)
    assert abs(leaked - alone) > 1e-3


@pytest.mark.parametrize(("per_turn", "decision", "micro"), [(False, 1.0, None), (True, 0.0, None), (False, 1.0, 1)])
def test_packed_rows_give_the_unpacked_update(
    tiny: Path, conversations: list, per_turn: bool, decision: float, micro: int | None
) -> None:
    padded, packed, tokenizer = _twins(tiny)
    examples = [encode_conversation(tokenizer, m, t) for m, t in conversations]
    lengths = sorted(len(e.input_ids) for e in examples)
    ids, labels = pad_batch(examples, tokenizer.eos_token_id)
    # the two shorter in one row, the longest in the other: two rows of different lengths
    p_ids, p_labels, p_positions = pack_batch(examples, tokenizer.eos_token_id, lengths[0] + lengths[1])
    assert p_ids.shape[0] == 2
    losses = []
    for model, batch in ((padded, (ids, labels, None)), (packed, (p_ids, p_labels, p_positions))):
        optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.5)
        losses.append(
            sft_step(
                model,
                optimizer,
                batch[0],
                batch[1],
                per_turn=per_turn,
                decision_weight=decision,
                micro_batch=micro,
                position_ids=batch[2],
            )
        )
    assert losses[0] == pytest.approx(losses[1], rel=1e-5)
    a, b = _lora_state(padded), _lora_state(packed)
    assert all(torch.allclose(a[n], b[n], atol=1e-6) for n in a)


def test_long_rows_are_checkpointed_and_give_the_same_update(tiny: Path, conversations: list) -> None:
    plain, checkpointed, tokenizer = _twins(tiny)
    examples = [encode_conversation(tokenizer, m, t) for m, t in conversations]
    ids, labels = pad_batch(examples, tokenizer.eos_token_id)
    lengths = sorted(len(e.input_ids) for e in examples)
    threshold = lengths[0] + 1  # the two longer rows are checkpointed, the shortest is not
    layer_calls = []
    mlp = checkpointed.base_model.model.model.layers[0].mlp  # type: ignore[attr-defined]
    hook = mlp.register_forward_pre_hook(lambda *_: layer_calls.append(1))
    checkpointed.eval()  # checkpointing needs training mode; the step sets it and restores this
    for model, tokens in ((plain, 0), (checkpointed, threshold)):
        optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.5)
        sft_step(model, optimizer, ids, labels, micro_batch=1, decision_weight=1.0, checkpoint_tokens=tokens)
    hook.remove()
    assert len(layer_calls) == 3 + 2  # every row's forward, and the two long rows' recomputation
    assert not checkpointed.training and not checkpointed.base_model.model.is_gradient_checkpointing  # type: ignore[attr-defined]
    a, b = _lora_state(plain), _lora_state(checkpointed)
    assert all(torch.allclose(a[n], b[n], atol=1e-6) for n in a)


def test_decision_weight_weighs_each_turns_first_token(tiny: Path, conversations: list) -> None:
    _, tokenizer = load_lora_model(tiny, peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj"]))
    example = encode_conversation(tokenizer, *conversations[0])
    starts = turn_starts(torch.tensor([example.labels]))
    assert int(starts.sum()) == 3  # deposit, get_balance, "Done."


def test_grpo_micro_batches_give_the_whole_groups_update(tiny: Path, conversations: list) -> None:
    whole, chunked, tokenizer = _twins(tiny)
    rollouts = [Rollout(m, t, reward) for (m, t), reward in zip(conversations, (1.0, 0.2, 0.0), strict=True)]
    for model, size in ((whole, None), (chunked, 1)):
        optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.5)
        grpo_step(model, tokenizer, optimizer, rollouts, kl_coef=0.1, micro_batch=size)
    a, b = _lora_state(whole), _lora_state(chunked)
    assert all(torch.allclose(a[n], b[n], atol=1e-6) for n in a)


def test_a_groups_prompt_is_computed_once_and_gives_the_same_replies(tiny: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(tiny, local_files_only=True)
    prompt = "<|system|> You are a helpful assistant with tools. <|user|> Show the balance of account ACC-1001"
    widths: list[tuple[int, int]] = []

    def record(_module: object, args: tuple, kwargs: dict) -> None:
        ids = kwargs.get("input_ids")
        widths.append(tuple((ids if ids is not None else args[0]).shape))

    hook = model.register_forward_pre_hook(record, with_kwargs=True)
    try:
        shared = generate_replies(model, tokenizer, [prompt] * 4, max_new_tokens=12)
    finally:
        hook.remove()
    alone = generate_replies(model, tokenizer, [prompt], max_new_tokens=12)
    assert shared == alone * 4
    n_prompt = len(tokenizer(prompt)["input_ids"])
    assert widths[0] == (1, n_prompt - 1)  # the prompt once, for one row
    assert all(rows == 4 and width == 1 for rows, width in widths[1:])  # then one token per row


@pytest.mark.parametrize("batch_prefill", [True, False])
def test_the_next_turn_runs_only_its_new_tokens_and_replies_as_a_full_prompt_does(
    tiny: Path, batch_prefill: bool
) -> None:
    from gym_mcp.policies.decoding import PromptCache

    model, tokenizer = _plain_model(tiny)
    first = [*PROMPTS, PROMPTS[0]]  # the same prompt twice (a group): run once
    cache = PromptCache(batch_prefill=batch_prefill)
    widths: list[tuple[int, int]] = []

    def record(_module: object, args: tuple, kwargs: dict) -> None:
        ids = kwargs.get("input_ids")
        widths.append(tuple((ids if ids is not None else args[0]).shape))

    replies = generate_replies(model, tokenizer, first, max_new_tokens=10, cache=cache, keys=[0, 1, 2])
    assert replies == generate_replies(model, tokenizer, first, max_new_tokens=10)
    assert cache.computed_tokens == sum(len(tokenizer(p)["input_ids"]) - 1 for p in first[:2])
    second = [p + r + " <|tool|> {'balance': 12.5} <|assistant|>" for p, r in zip(first, replies, strict=True)]
    hook = model.register_forward_pre_hook(record, with_kwargs=True)
    try:
        again = generate_replies(model, tokenizer, second, max_new_tokens=10, cache=cache, keys=[0, 1, 2])
    finally:
        hook.remove()
    assert again == generate_replies(model, tokenizer, second, max_new_tokens=10)
    expected = []
    for before, after in zip(first[:2], second[:2], strict=True):
        old, new = tokenizer(before)["input_ids"][:-1], tokenizer(after)["input_ids"][:-1]
        same = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
        assert same >= len(old) - 2  # the first turn's prompt is reused (a token may re-tokenize at the seam)
        expected.append((1, len(new) - same))
    if batch_prefill:  # the distinct rows' new tokens in one padded pass
        assert widths[0] == (2, max(width for _, width in expected))
        widths = widths[1:]
    else:  # each distinct row alone, only its new tokens
        assert widths[:2] == expected
        widths = widths[2:]
    assert all(rows == 3 and width == 1 for rows, width in widths)  # then one token per row


def test_a_batched_prefill_holds_what_each_row_computes_alone(tiny: Path) -> None:
    """Rows with different cached prefixes and new tokens, run in one padded pass: each row's keys
    and values are those of its own pass (to float rounding), its padding dropped."""
    import torch

    from gym_mcp.policies.decoding import PromptCache

    model, _ = _plain_model(tiny)
    vocab = int(model.config.vocab_size)
    g = torch.Generator().manual_seed(0)
    turns = [torch.randint(5, vocab, (n,), generator=g).tolist() for n in (7, 3, 12)]
    rows = {"a": turns[0], "b": turns[1], "c": []}  # c has nothing cached
    grown = {"a": turns[0] + turns[2][:4], "b": turns[1] + turns[2], "c": turns[2][:5]}
    batched, alone = PromptCache(), PromptCache(batch_prefill=False)
    with torch.no_grad():
        for cache in (batched, alone):
            cache.prefill_many(model, [(k, v) for k, v in rows.items() if v])
            cache.prefill_many(model, list(grown.items()))
    for key, ids in grown.items():
        for (k1, v1), (k2, v2) in zip(batched._kv[key], alone._kv[key], strict=True):
            assert k1.shape == k2.shape == (1, k1.shape[1], len(ids), k1.shape[3])
            assert torch.allclose(k1, k2, atol=1e-5) and torch.allclose(v1, v2, atol=1e-5)
    assert batched.computed_tokens == alone.computed_tokens == len(turns[0]) + len(turns[1]) + 4 + 12 + 5


@pytest.mark.parametrize("room", [decoding.ROOM, 1, 0])  # the default; a refill every other token; torch.cat
def test_replies_are_what_transformers_generate_writes(tiny: Path, room: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from gym_mcp.policies.prompt import STOP_STRINGS, cut_reply

    monkeypatch.setattr(decoding, "ROOM", room)
    model, tokenizer = _plain_model(tiny)
    prompts = [*PROMPTS, "<|user|> Tell me a joke about banks, a long one please"]
    tokenizer.padding_side, tokenizer.pad_token = "left", tokenizer.pad_token or tokenizer.eos_token
    inputs = tokenizer(prompts, return_tensors="pt", padding=True)
    oracle = model.generate(
        input_ids=inputs["input_ids"],  # not **inputs: older tokenizers add token_type_ids, which generate refuses
        attention_mask=inputs["attention_mask"],
        max_new_tokens=24,
        do_sample=False,
        pad_token_id=tokenizer.pad_token_id,
        stop_strings=list(STOP_STRINGS),
        tokenizer=tokenizer,
    )
    width = inputs["input_ids"].shape[1]
    expected = [cut_reply(tokenizer.decode(row, skip_special_tokens=True)) for row in oracle[:, width:]]
    assert generate_replies(model, tokenizer, prompts, max_new_tokens=24) == expected


def test_a_reserved_cache_holds_what_torch_cat_builds_and_grows_in_place() -> None:
    from transformers import DynamicCache

    gen = torch.Generator().manual_seed(0)
    start = [(torch.randn(3, 2, 5, 4, generator=gen), torch.randn(3, 2, 5, 4, generator=gen)) for _ in range(2)]
    plain, roomy = DynamicCache(ddp_cache_data=start), decoding.reserve_room(DynamicCache(ddp_cache_data=start), 4)
    places = []
    for step in range(9):
        if step == 6:  # a row leaves the batch: a new tensor, refilled with room again
            for cache in (plain, roomy):
                cache.batch_select_indices(torch.tensor([0, 2]))
        rows = 3 if step < 6 else 2
        for layer in range(2):
            new = torch.randn(rows, 2, 1, 4, generator=gen), torch.randn(rows, 2, 1, 4, generator=gen)
            want, got = plain.update(*new, layer), roomy.update(*new, layer)
            assert all(torch.equal(a, b) for a, b in zip(want, got, strict=True))
        places.append(roomy.layers[0].keys.data_ptr())
    # the first update fills 6 of 10 places, the next four are written in place, the fifth finds
    # the buffer full; the rows leaving at step 6 move the cache once, then it grows in place again
    assert places[0] == places[1] == places[2] == places[3] == places[4] != places[5]
    assert places[6] == places[7] == places[8] != places[5]


def test_a_reply_without_a_call_is_cut_at_answer_tokens(tiny: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny, local_files_only=True)
    model = AutoModelForCausalLM.from_pretrained(tiny, local_files_only=True)
    prompts = ["<|user|> Tell me a story", "<|user|> What is the balance?"]
    full = generate_replies(model, tokenizer, prompts, max_new_tokens=40)
    cut = generate_replies(model, tokenizer, prompts, max_new_tokens=40, answer_tokens=6)
    for long, short in zip(full, cut, strict=True):
        assert "<tool_call>" not in long  # the random model writes no call: its answer is cut
        assert (
            len(tokenizer(short, add_special_tokens=False)["input_ids"])
            <= 8
            < len(tokenizer(long, add_special_tokens=False)["input_ids"])
        )
        assert long.startswith(short[:4])


def test_held_out_tasks_are_stratified_by_variant_and_chain_length() -> None:
    def task(i: int, variant: str, length: int, split: str = "test") -> gym_mcp.Task:
        calls = tuple({"name": "get_balance", "arguments": {"account_id": f"ACC-{i}"}} for _ in range(length))
        return gym_mcp.Task(
            id=f"t{i}", server="banking", instruction="x", reference_calls=calls, variant=variant, split=split
        )

    tasks = (
        [task(i, "complete", 1) for i in range(20)]
        + [task(100 + i, "complete", 2) for i in range(10)]
        + [task(200 + i, "distractors", 1) for i in range(6)]
        + [task(300, "irrelevant", 0)]
        + [task(400 + i, "complete", 1, "train") for i in range(5)]
    )
    train, held = held_out_split(tasks, 12)
    assert [t.id for t in train] == [f"t{400 + i}" for i in range(5)]
    counts: dict[tuple[str, int], int] = {}
    for t in held:
        key = (t.variant, len(t.reference_calls))
        counts[key] = counts.get(key, 0) + 1
    # 37 test tasks, 12 places: the rare irrelevant request is kept, the rest in proportion
    assert counts == {("complete", 1): 6, ("complete", 2): 3, ("distractors", 1): 2, ("irrelevant", 0): 1}
    assert held_out_split(tasks, 12) == (train, held)  # deterministic
    assert held_out_split(tasks, 100)[1] == [t for t in tasks if t.split == "test"]


def test_sft_batches_go_through_every_example_once_per_epoch() -> None:
    from gym_mcp.train.data import sft_batch_indices

    n, batch = 10, 4
    drawn = [i for step in range(5) for i in sft_batch_indices(n, step, batch, seed=0)]  # two epochs
    assert sorted(drawn[:10]) == list(range(10)) and sorted(drawn[10:20]) == list(range(10))
    assert drawn[:10] != drawn[10:20]  # a new order each epoch
    assert sft_batch_indices(n, 3, batch, seed=0) == sft_batch_indices(n, 3, batch, seed=0)  # resumable
    assert [sft_batch_indices(n, s, batch, seed=1) for s in range(3)] != [
        sft_batch_indices(n, s, batch, seed=0) for s in range(3)
    ]
    assert sorted(sft_batch_indices(3, 0, 8, seed=0)) == [0, 1, 2]  # a batch larger than the set


def test_sft_learning_rate_schedules() -> None:
    from gym_mcp.train import TrainConfig
    from gym_mcp.train.schedule import sft_learning_rate

    def rates(**kw: object) -> list[float]:
        config = TrainConfig(sft_steps=5, learning_rate=1e-3, **kw)  # type: ignore[arg-type]
        return [round(sft_learning_rate(config, s), 6) for s in range(5)]

    assert rates() == [1e-3] * 5
    assert rates(lr_scheduler_type="linear") == [1e-3, 8e-4, 6e-4, 4e-4, 2e-4]
    assert rates(lr_scheduler_type="linear", warmup_steps=1) == [5e-4, 1e-3, 7.5e-4, 5e-4, 2.5e-4]
    cosine = rates(lr_scheduler_type="cosine")
    assert cosine[0] == 1e-3 and all(a > b for a, b in itertools.pairwise(cosine)) and cosine[-1] > 0


def test_adapters_on_the_last_layers_only(tiny: Path) -> None:
    lora = peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"])
    model, _ = load_lora_model(tiny, lora, last_layers=1)
    depth = model.base_model.model.config.num_hidden_layers
    adapted = {int(n.split(".layers.")[1].split(".")[0]) for n, _ in model.named_parameters() if "lora_" in n}
    assert depth > 1 and adapted == {depth - 1}


def test_breakdown_says_which_held_out_tasks_call_untrained_tools() -> None:
    from gym_mcp.train.reporting import breakdown_table, unseen_tool_tasks

    def task(i: int, tool: str) -> gym_mcp.Task:
        call = {"name": tool, "arguments": {"account_id": f"ACC-{i}"}}
        return gym_mcp.Task(id=f"t{i}", server="banking", instruction="x", reference_calls=(call,))

    train = [task(0, "get_balance")]
    held = [task(1, "get_balance"), task(2, "freeze_account")]
    assert unseen_tool_tasks(train, held) == {"t2"}

    def summary(solved: list[float]) -> dict[str, object]:
        return {
            "episodes": [{"task": t.id, "reference_calls": 1, "success": s} for t, s in zip(held, solved, strict=True)]
        }

    table = breakdown_table(summary([0, 0]), summary([1, 0]), {"t2"})
    assert "| tools: all trained | 1 | 0 | 1 |" in table and "| tools: unseen in training | 1 | 0 | 0 |" in table
    assert "tools:" not in breakdown_table(summary([0, 0]), summary([1, 0]))


def test_arguments_are_taught_in_schema_order_wherever_the_tasks_came_from(tmp_path: Path) -> None:
    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.tasks import load_tasks, save_tasks
    from gym_mcp.train.data import schema_ordered

    made = [t for t in synthesize("banking", SynthConfig(n=12, seed=4, max_chain=2)).tasks if t.reference_calls]
    save_tasks(made, tmp_path / "tasks.jsonl")
    read = load_tasks(tmp_path / "tasks.jsonl")
    env = gym.make("gym_mcp/Banking-v0")
    try:
        _, info = env.reset()
    finally:
        env.close()
    schema = {t["function"]["name"]: list(t["function"]["parameters"]["properties"]) for t in info["tools"]}
    assert any(  # the round trip sorts argument names: the order differs before
        list(a["arguments"]) != list(b["arguments"])
        for x, y in zip(made, read, strict=True)
        for a, b in zip(x.reference_calls, y.reference_calls, strict=True)
    )
    for x, y in zip(made, read, strict=True):
        ordered = schema_ordered(x, info["tools"])
        assert [list(c["arguments"]) for c in ordered.reference_calls] == [
            list(c["arguments"]) for c in schema_ordered(y, info["tools"]).reference_calls
        ]
        for call in ordered.reference_calls:
            names = list(call["arguments"])
            assert names == [p for p in schema[call["name"]] if p in names]
        assert ordered.model_dump(exclude={"reference_calls"}) == x.model_dump(exclude={"reference_calls"})
