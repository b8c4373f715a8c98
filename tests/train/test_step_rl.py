"""Step-level RL: replies kept as sampled (tokens in, tokens out), decision points judged on live forks."""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium as gym
import pytest

torch = pytest.importorskip("torch", reason="training needs the [train] extra (the README's test command installs it)")
peft = pytest.importorskip("peft", reason="training needs the [train] extra")
xgrammar = pytest.importorskip("xgrammar", reason="guided decoding needs the [train] extra")

import gym_mcp  # noqa: E402, F401
from gym_mcp.errors import ConfigError  # noqa: E402
from gym_mcp.policies.decoding import SampledReply, sample_replies  # noqa: E402
from gym_mcp.policies.prompt import prompt_format  # noqa: E402
from gym_mcp.train.data import compact_tools  # noqa: E402
from gym_mcp.train.loading import call_grammar, load_lora_model  # noqa: E402
from gym_mcp.train.losses import reply_step, sampled_logprobs  # noqa: E402
from gym_mcp.train.steps import judge, reference_points  # noqa: E402
from tests.helpers import CraftedChat, chat_body, deposit_then_balance_task, send_json, serve_handler  # noqa: E402
from tests.tiny_model import build_tiny_model  # noqa: E402
from tests.users.test_users import ASK_150, ASK_200, BALANCE, TRANSFER, dialogue_task  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def _setup(tiny: Path) -> tuple[object, object, object, object, str, list]:  # type: ignore[type-arg]
    torch.manual_seed(0)
    model, tokenizer = load_lora_model(tiny, peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))
    fmt = prompt_format(tokenizer)
    grammar = call_grammar(True, tokenizer, fmt, model)
    env = gym.make("gym_mcp/Banking-v0")
    try:
        task = deposit_then_balance_task()
        _, info = env.reset(options={"task": task})
        tools = compact_tools(info["tools"], task, None, ())
        prompt = fmt.prompt(info["messages"], tools)
    finally:
        env.close()
    return model, tokenizer, fmt, grammar, prompt, tools


def test_the_first_update_is_at_ratio_one_on_every_sampled_token(tiny: Path) -> None:
    model, tokenizer, _, grammar, prompt, tools = _setup(tiny)
    replies = sample_replies(
        model, tokenizer, [prompt] * 4, temperature=1.0, max_new_tokens=16, seed=3, grammar=grammar, tools=[tools] * 4
    )
    assert all(len(r.token_ids) == len(r.logprobs) == len(r.forced) > 0 for r in replies)
    assert all(r.allowed is not None and len(r.allowed) == len(r.token_ids) for r in replies)
    # the same ids decode to the text the environment got (the reply is cut, never re-tokenized)
    for r in replies:
        assert r.text in tokenizer.decode(r.token_ids, skip_special_tokens=True)  # type: ignore[attr-defined]
    logprobs, mask = sampled_logprobs(model, replies, 1.0)
    logprobs = logprobs.detach()
    for row, r in enumerate(replies):
        for j, old in enumerate(r.logprobs):
            if mask[row, j]:
                assert abs(float(logprobs[row, j]) - old) < 1e-4
    start = {n: p.detach().clone() for n, p in model.named_parameters()}  # type: ignore[attr-defined]
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)  # type: ignore[attr-defined]
    stats = reply_step(model, opt, [(replies, [1.0, 0.0, 0.0, 1.0])], temperature=1.0, num_iterations=2)
    assert stats["kept"] == 1 and stats["ratio_error"] < 1e-4
    changed = [n for n, p in model.named_parameters() if not torch.equal(p, start[n])]  # type: ignore[attr-defined]
    assert changed and all("lora_" in n for n in changed)
    # a group whose replies all score alike moves nothing
    assert reply_step(model, opt, [(replies, [1.0] * 4)], temperature=1.0)["kept"] == 0


def test_grammar_forced_tokens_get_no_gradient_and_the_mask_is_the_one_sampled_with(tiny: Path) -> None:
    """A call walked through xgrammar's own matcher: its log-probs, computed here with a plain
    full forward pass and xgrammar's own mask kernel, equal `sampled_logprobs`; the tokens the
    grammar forces (the call's fixed text) are out of the loss."""
    model, tokenizer, fmt, grammar, prompt, tools = _setup(tiny)
    g = grammar  # the call as the prompt format writes it (`call_layout`)
    call = f'{g.begin}get_balance{g.arguments_prefix}{{"account_id": "ACC-1001"}}{g.end}'  # type: ignore[attr-defined]
    ids = tokenizer(call, add_special_tokens=False)["input_ids"]  # type: ignore[operator]
    prompt_ids = tokenizer(prompt)["input_ids"]  # type: ignore[operator]
    matcher = grammar.matcher(tools)  # type: ignore[attr-defined]
    masks, forced, kept_ids = [], [], []
    for token in ids:
        bitmask = xgrammar.allocate_token_bitmask(1, grammar.vocab_size)  # type: ignore[attr-defined]
        matcher.fill_next_token_bitmask(bitmask, 0)
        assert matcher.accept_token(token)
        allowed = torch.zeros(1, grammar.vocab_size)  # type: ignore[attr-defined]
        xgrammar.apply_token_bitmask_inplace(allowed, bitmask)
        forced.append(int(torch.isfinite(allowed).sum()) == 1)
        masks.append(bitmask[0].clone())
        kept_ids.append(token)
    assert sum(forced) > 0 and not all(forced)  # the call's fixed text is forced, its values are not
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([prompt_ids + kept_ids])).logits[0].float()  # type: ignore[operator]
    rows = logits[len(prompt_ids) - 1 : len(prompt_ids) - 1 + len(kept_ids)].clone()
    xgrammar.apply_token_bitmask_inplace(rows, torch.stack(masks))
    expected = torch.log_softmax(rows, -1).gather(1, torch.tensor(kept_ids)[:, None]).squeeze(1)
    reply = SampledReply(call, prompt_ids, kept_ids, expected.tolist(), masks, forced)
    logprobs, mask = sampled_logprobs(model, [reply], 1.0)
    logprobs = logprobs.detach()
    assert mask[0].tolist() == [0.0 if f else 1.0 for f in forced]
    for j in range(len(kept_ids)):
        if not forced[j]:
            assert float(logprobs[0, j]) == pytest.approx(float(expected[j]), abs=1e-4)
        else:
            assert float(expected[j]) == pytest.approx(0.0, abs=1e-6)  # the only choice: probability 1


def test_decision_points_and_what_a_reply_at_each_did_wrong() -> None:
    task = dialogue_task()
    env = gym.make("gym_mcp/Banking-v0", user="scripted", max_steps=20)
    try:
        points = reference_points(env, task)
        assert [p.kind for p in points] == ["confirm", "confirm", "call", "report", "call", "stop"]
        assert [p.user_kind for p in points[:2]] == ["revise", "confirm"]

        def reply_at(turn: int, action: object, text: str = "") -> str | None:
            _, info = env.reset(options={"task": task})
            for given in task.reference_dialogue()[:turn]:
                _, _, _, _, info = env.step(given)
            _, _, _, _, after = env.step(action)
            return judge(points[turn], text, info, after)

        assert reply_at(1, ASK_150, ASK_150) is None  # the reference's own turn
        assert reply_at(1, TRANSFER) == "acted without asking"
        assert reply_at(2, TRANSFER) is None
        assert reply_at(2, {**TRANSFER, "arguments": {**TRANSFER["arguments"], "amount": 200}}) == "wrong arguments"
        assert reply_at(2, BALANCE) == "wrong tool"
        assert reply_at(3, BALANCE) == "needless call"
        assert reply_at(5, "All done.", "All done.") is None
    finally:
        env.close()


def test_a_reply_the_reference_can_still_finish_from_is_told_from_one_that_spoiled_the_state() -> None:
    from gym_mcp.train.steps import finish_with_reference

    task = dialogue_task()
    env = gym.make("gym_mcp/Banking-v0", user="scripted", max_steps=20)
    try:
        point = reference_points(env, task)[2]  # the transfer, once confirmed

        def finish_after(action: object) -> bool:
            env.reset(options={"task": task})
            for given in task.reference_dialogue()[: point.turn]:
                env.step(given)
            _, _, _, _, after = env.step(action)
            return finish_with_reference(env, point, after)

        assert finish_after(BALANCE)  # a read first: the reference still gets there
        assert not finish_after({**TRANSFER, "arguments": {**TRANSFER["arguments"], "amount": 200}})  # $200 moved
        assert finish_after(TRANSFER)  # the reference's own call is not made twice
    finally:
        env.close()


def test_step_level_rl_runs_in_the_trainer(tiny: Path, tmp_path: Path) -> None:
    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.tasks import save_tasks
    from gym_mcp.train import TrainConfig, train

    tasks = tmp_path / "tasks.jsonl"
    made = synthesize("banking", SynthConfig(n=10, seed=2, max_chain=2)).tasks
    save_tasks(made, tasks)
    config = TrainConfig(
        model=str(tiny),
        tasks=str(tasks),
        output_dir=str(tmp_path / "out"),
        sft_steps=1,
        grpo_steps=2,
        rl_level="step",
        step_late_credit=0.5,
        step_tasks=3,
        step_points=2,
        num_generations=2,
        max_completion_length=8,
        max_answer_tokens=8,
        eval_tasks=2,
        lora_r=4,
    )
    train(config, progress=False)
    found = json.loads((tmp_path / "out" / "decision_points.json").read_text())
    trained = [json.loads(line) for line in (tmp_path / "out" / "train.jsonl").read_text().splitlines()]
    assert found["tasks"] == 3
    assert found["points"] == sum(row["points"] for row in found["by_kind"].values())
    assert found["points"] >= 3 * min(len(t["reference_calls"]) for t in trained)  # every reference call is a point
    rows = [json.loads(line) for line in (tmp_path / "out" / "metrics.jsonl").read_text().splitlines()]
    steps = [r for r in rows if r["phase"] == "grpo"]
    assert len(steps) == 2 and all(r["level"] == "step" for r in steps)
    assert steps[0]["points"] == 2 and len(steps[0]["kinds"]) == 2


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"rl_level": "turn"}, "rl_level must be one of episode, step"),
        ({"rl_level": "step", "perturb": "rename_tools"}, "in-process without perturbations"),
        ({"step_points": 0}, "step_points must be >= 1"),
        ({"step_visits": 0}, "step_visits must be >= 1"),
        ({"step_late_credit": 1.0}, r"step_late_credit must be in \[0, 1\)"),
    ],
)
def test_bad_step_settings_are_one_line(change: dict, message: str) -> None:  # type: ignore[type-arg]
    from gym_mcp.train import TrainConfig

    with pytest.raises(ConfigError, match=message):
        TrainConfig(model="x", **change)


def _two_guided(env: object, points: list, model: object, tokenizer: object, fmt: object, grammar: object) -> list:  # type: ignore[type-arg]
    """Groups of 2 sampled replies at ``points`` of one env, guided where none is right."""
    from gym_mcp.train.steps import sample_at

    return sample_at(
        model,
        tokenizer,
        lambda server: env,
        points,
        2,
        tools_for=lambda info, task: compact_tools(info["tools"], task, None, ()),
        fmt=fmt,
        temperature=1.0,
        max_new_tokens=8,
        seed=0,
        grammar=grammar,
        guide=True,
    )


def test_a_point_the_model_never_gets_right_is_guided_by_the_reference_reply(tiny: Path) -> None:

    model, tokenizer, fmt, grammar, _, _ = _setup(tiny)
    env = gym.make("gym_mcp/Banking-v0", user="scripted", max_steps=20)
    try:
        points = reference_points(env, dialogue_task())
        # the transfer call; the confirmation request before it
        groups = _two_guided(env, [points[2], points[1]], model, tokenizer, fmt, grammar)
    finally:
        env.close()
    for group in groups:  # a random model takes neither turn: each group gets the reference's reply
        assert group.guided and group.rewards == [0.0, 0.0, 1.0] and group.pass_rate == 0.0
        shown = group.replies[-1]
        assert shown.prompt_ids == group.replies[0].prompt_ids
        assert len(shown.token_ids) == len(shown.logprobs) == len(shown.forced)
    call, ask = groups[0].replies[-1], groups[1].replies[-1]
    assert '"transfer_funds"' in call.text or "transfer_funds" in call.text
    assert call.allowed is not None and any(call.forced)  # the grammar's masks, walked over the call
    assert ask.text == ASK_150 and ask.token_ids[-1] == tokenizer.eos_token_id  # type: ignore[attr-defined]
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)  # type: ignore[attr-defined]
    stats = reply_step(model, opt, [(g.replies, g.rewards) for g in groups], temperature=1.0)
    assert stats["kept"] == 2 and stats["ratio_error"] < 1e-4


class RuleUser(CraftedChat):
    """Plays an outside LLM user on loopback: each reply chosen by the agent's last message."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        said = [m["content"] for m in body["messages"] if m["role"] == "user"]  # the agent's turns, roles flipped
        last = said[-1] if said else ""
        if "$200" in last and "go ahead" in last:
            text = "Actually, make it $150 instead."
        elif "$150" in last and "go ahead" in last:
            text = "Yes, please go ahead."
        elif "transfer went through" in last:
            text = "Now show me the balance of account ACC-1136."
        elif "balance of ACC-1136 is" in last:
            text = "Thanks, that is all. ###STOP###"
        else:
            text = "Could you tell me what you did?"
        self.requests.append(body)
        send_json(self, chat_body(text))


def test_decision_points_work_with_an_llm_user_endpoint(tiny: Path) -> None:
    """The same decisions, judged the same way, when an OpenAI-compatible endpoint plays the user."""
    handler = type("Rules", (RuleUser,), {"requests": []})
    with serve_handler(handler) as url:
        env = gym.make("gym_mcp/Banking-v0", user=f"openai:{url}@sim", max_steps=20)
        try:
            task = dialogue_task()
            points = reference_points(env, task)
            assert [p.kind for p in points] == ["confirm", "confirm", "call", "report", "call", "stop"]
            assert [p.user_kind for p in points] == ["revise", "confirm", None, "reveal", None, "stop"]
            _, info = env.reset(options={"task": task})
            _, _, _, _, info = env.step(ASK_200)
            _, _, _, _, after = env.step(TRANSFER)  # acts where the reference asks again
            assert judge(points[1], "", info, after) == "acted without asking"
            model, tokenizer, fmt, grammar, _, _ = _setup(tiny)
            groups = _two_guided(env, [points[1]], model, tokenizer, fmt, grammar)
        finally:
            env.close()
    # a random model never asks: the reference's question joins the group, judged by the endpoint's answer
    assert groups[0].guided and groups[0].rewards == [0.0, 0.0, 1.0]
    assert handler.requests  # every user turn above came from the endpoint
