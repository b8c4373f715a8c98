"""Training pieces on a tiny random-init Llama: loss masks, LoRA updates, GRPO advantages and gradients."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import gymnasium as gym
import pytest

torch = pytest.importorskip("torch", reason="training needs the [train] extra (the README's test command installs it)")
peft = pytest.importorskip("peft", reason="training needs the [train] extra")

import gym_mcp  # noqa: E402
from gym_mcp.train.data import IGNORE, encode_conversation, reference_conversation  # noqa: E402
from gym_mcp.train.loading import load_lora_model  # noqa: E402
from gym_mcp.train.losses import (  # noqa: E402
    clipped_surrogate,
    group_advantages,
    kl_to_reference,
    sft_step,
    token_logprobs,
)
from tests.helpers import deposit_then_balance_task  # noqa: E402
from tests.tiny_model import build_tiny_model  # noqa: E402

TASK = deposit_then_balance_task()


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def conversation() -> tuple[list[dict], list[dict]]:
    env = gym.make("gym_mcp/Banking-v0")
    try:
        return reference_conversation(env, TASK)
    finally:
        env.close()


def _lora(tiny: Path) -> tuple[object, object]:
    return load_lora_model(tiny, peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]))


def test_loss_mask_covers_only_the_models_tokens(tiny: Path, conversation: tuple[list[dict], list[dict]]) -> None:
    messages, tools = conversation
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    _, tokenizer = _lora(tiny)
    example = encode_conversation(tokenizer, messages, tools, TASK.id)
    learned = tokenizer.decode([t for t, lab in zip(example.input_ids, example.labels, strict=True) if lab != IGNORE])
    context = tokenizer.decode([t for t, lab in zip(example.input_ids, example.labels, strict=True) if lab == IGNORE])
    assert learned == (
        '<tool_call>{"name": "deposit", "arguments": {"account_id": "ACC-1001", "amount": 25.0}}</tool_call>'
        '<tool_call>{"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}</tool_call>'
        "Done." + tokenizer.eos_token
    )
    # the tool results (live server output) and the request are context, never learned
    assert messages[2]["content"] in context
    assert TASK.instruction in context
    assert "new_balance" not in learned


def test_sft_changes_lora_weights_and_not_base_weights(tiny: Path, conversation: tuple[list[dict], list[dict]]) -> None:
    model, tokenizer = _lora(tiny)
    example = encode_conversation(tokenizer, *conversation)
    ids = torch.tensor([example.input_ids])
    labels = torch.tensor([example.labels])
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=1e-2)
    losses = [sft_step(model, optimizer, ids, labels) for _ in range(5)]
    assert losses[-1] < losses[0]
    changed = {n for n, p in model.named_parameters() if not torch.equal(p, before[n])}
    assert changed
    assert all("lora_" in n for n in changed)  # only adapter weights moved
    assert any("lora_" in n for n in changed)


def test_equal_rewards_give_zero_advantages_and_zero_gradient(
    tiny: Path, conversation: tuple[list[dict], list[dict]]
) -> None:
    assert group_advantages([1.0, 1.0, 1.0, 1.0]) == [0.0, 0.0, 0.0, 0.0]
    adv = group_advantages([1.0, 0.0, 0.0, 1.0])
    # unscaled (Dr. GRPO): a group of near-equal failures keeps near-zero advantages
    assert group_advantages([0.40, 0.42, 0.40, 0.42], scale=False) == pytest.approx([-0.01, 0.01, -0.01, 0.01])
    assert max(group_advantages([0.40, 0.42, 0.40, 0.42])) == pytest.approx(1.0, abs=1e-3)
    assert adv == pytest.approx([1.0, -1.0, -1.0, 1.0], abs=1e-4)
    model, tokenizer = _lora(tiny)
    example = encode_conversation(tokenizer, *conversation)
    ids = torch.tensor([example.input_ids] * 4)
    labels = torch.tensor([example.labels] * 4)
    logprobs, mask = token_logprobs(model, ids, labels)
    loss = clipped_surrogate(logprobs, logprobs.detach(), torch.tensor(group_advantages([0.5] * 4)), mask)
    loss.backward()
    grads = [p.grad for p in model.parameters() if p.requires_grad]
    assert all(g is None or torch.count_nonzero(g) == 0 for g in grads)


def test_clipped_surrogate_and_kl_values() -> None:
    logp = torch.log(torch.tensor([[0.5, 0.5]]))
    old = torch.log(torch.tensor([[0.25, 0.5]]))  # ratio 2 on the first token, 1 on the second
    mask = torch.ones(1, 2)
    loss = clipped_surrogate(logp, old, torch.tensor([1.0]), mask, clip=0.2)
    assert float(loss) == pytest.approx(-(1.2 + 1.0) / 2)  # the ratio 2 is clipped to 1.2
    assert float(kl_to_reference(logp, logp, mask)) == pytest.approx(0.0)
    assert float(kl_to_reference(logp, old, mask)) > 0.0


def test_reference_logprobs_with_the_adapter_disabled(tiny: Path, conversation: tuple[list[dict], list[dict]]) -> None:
    model, tokenizer = _lora(tiny)
    example = encode_conversation(tokenizer, *conversation)
    ids, labels = torch.tensor([example.input_ids]), torch.tensor([example.labels])
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    for _ in range(3):
        sft_step(model, optimizer, ids, labels)
    with torch.no_grad():
        trained, mask = token_logprobs(model, ids, labels)
        with model.disable_adapter():
            reference, _ = token_logprobs(model, ids, labels)
    assert float(kl_to_reference(trained, reference, mask)) > 0.0  # one model, two policies


def test_one_grpo_step_through_the_environment(tiny: Path) -> None:
    from gym_mcp.train.losses import grpo_step
    from gym_mcp.train.rollouts import rollout

    model, tokenizer = _lora(tiny)
    # a reward with spread even for a random model: the length of its final answer, modulo 3
    env = gym.make("gym_mcp/Banking-v0", max_steps=2, reward=lambda ep: float(len(ep.final_answer or "x") % 3))
    try:
        group = [rollout(model, tokenizer, env, TASK, max_new_tokens=12, seed=s) for s in range(4)]
    finally:
        env.close()
    assert all(r.messages[0] == {"role": "user", "content": TASK.instruction} for r in group)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    stats = grpo_step(model, tokenizer, optimizer, group, kl_coef=0.05)
    if stats["zero_spread"]:
        pytest.skip(f"the sampled group happened to have equal rewards: {stats['rewards']}")
    changed = {n for n, p in model.named_parameters() if not torch.equal(p, before[n])}
    assert changed
    assert all("lora_" in n for n in changed)
    # a group with equal rewards is skipped: nothing moves
    same = [type(group[0])(g.messages, g.tools, 1.0) for g in group]
    after = {n: p.detach().clone() for n, p in model.named_parameters()}
    assert grpo_step(model, tokenizer, optimizer, same)["zero_spread"]
    assert all(torch.equal(p, after[n]) for n, p in model.named_parameters())


def _config(tiny: Path, out: Path, tasks: Path, **overrides: object) -> object:
    from gym_mcp.train import TrainConfig

    base = {
        "model": str(tiny),
        "tasks": str(tasks),
        "output_dir": str(out),
        "sft_steps": 4,
        "sft_batch": 2,
        "grpo_steps": 0,
        "lora_r": 4,
        "lora_alpha": 8,
        "lora_targets": ["q_proj", "v_proj"],
        "save_steps": 2,
        "learning_rate": 1e-2,
        "eval_tasks": 0,
        "max_completion_length": 8,
    }
    return TrainConfig(**{**base, **overrides})


def test_resume_from_a_checkpoint_continues_identically(tiny: Path, tmp_path: Path) -> None:
    from safetensors.torch import load_file

    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.tasks import save_tasks
    from gym_mcp.train import train

    tasks = tmp_path / "tasks.jsonl"
    save_tasks(synthesize("banking", SynthConfig(n=8, seed=2, max_chain=2)).tasks, tasks)
    train(_config(tiny, tmp_path / "straight", tasks), progress=False)
    interrupted = _config(tiny, tmp_path / "resumed", tasks, sft_steps=2)
    train(interrupted, progress=False)  # stops after 2 steps, checkpointed
    train(_config(tiny, tmp_path / "resumed", tasks), progress=False)  # resumes at step 2, runs 2 more
    a = load_file(tmp_path / "straight" / "checkpoint" / "adapter_model.safetensors")
    b = load_file(tmp_path / "resumed" / "checkpoint" / "adapter_model.safetensors")
    assert a.keys() == b.keys()
    assert all(torch.equal(a[k], b[k]) for k in a)
    losses_a = [json.loads(x)["loss"] for x in (tmp_path / "straight" / "metrics.jsonl").read_text().splitlines()]
    losses_b = [json.loads(x)["loss"] for x in (tmp_path / "resumed" / "metrics.jsonl").read_text().splitlines()]
    assert losses_a == losses_b
    # a checkpoint of other settings is refused, not silently continued; GRPO's own may still change
    from gym_mcp.errors import ConfigError

    with pytest.raises(ConfigError, match="sft_batch differ"):
        train(_config(tiny, tmp_path / "resumed", tasks, sft_batch=4, sft_steps=5), progress=False)
    # the reward's shaping (PROVE's budget growth b) is GRPO's too: a b = 0 arm forks an SFT run
    train(
        _config(tiny, tmp_path / "resumed", tasks, sft_steps=5, temperature=0.5, reward_budget_growth=0.0),
        progress=False,
    )
    assert json.loads((tmp_path / "resumed" / "metrics.jsonl").read_text().splitlines()[-1])["step"] == 5


def test_a_packed_run_takes_the_unpacked_runs_steps(tiny: Path, tmp_path: Path) -> None:
    """``sft_pack_tokens``: fewer, fuller rows, the same losses (to float rounding) step by step."""
    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.tasks import save_tasks
    from gym_mcp.train import train

    tasks = tmp_path / "tasks.jsonl"
    save_tasks(synthesize("banking", SynthConfig(n=8, seed=2, max_chain=2)).tasks, tasks)
    rows = {}
    for name, pack in (("padded", 0), ("packed", 100_000)):
        out = tmp_path / name
        train(_config(tiny, out, tasks, sft_batch=4, sft_steps=2, sft_pack_tokens=pack), progress=False)
        rows[name] = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["loss"] for r in rows["packed"]] == pytest.approx([r["loss"] for r in rows["padded"]], rel=1e-3)
    # four conversations in one row of their summed length, against four padded to the longest
    assert all(p["tokens"] < u["tokens"] for p, u in zip(rows["packed"], rows["padded"], strict=True))


def test_a_run_stopped_between_checkpoints_logs_each_step_once_when_resumed(tiny: Path, tmp_path: Path) -> None:
    """Steps logged after the last checkpoint are trained again on resume: their first rows go."""
    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.tasks import save_tasks
    from gym_mcp.train import GymTrainer, train

    class StopsAtStep3(GymTrainer):
        def sft_step(self, step: int) -> dict[str, object]:
            if step == 3:  # steps 1-3 logged, the checkpoint holds 2 (save_steps=2)
                raise KeyboardInterrupt
            return super().sft_step(step)

    tasks = tmp_path / "tasks.jsonl"
    save_tasks(synthesize("banking", SynthConfig(n=8, seed=2, max_chain=2)).tasks, tasks)
    train(_config(tiny, tmp_path / "straight", tasks), progress=False)
    with pytest.raises(KeyboardInterrupt):
        StopsAtStep3(_config(tiny, tmp_path / "resumed", tasks), progress=False).train()
    metrics = tmp_path / "resumed" / "metrics.jsonl"
    assert [json.loads(x)["step"] for x in metrics.read_text().splitlines()] == [1, 2, 3]
    train(_config(tiny, tmp_path / "resumed", tasks), progress=False)
    rows = [json.loads(x) for x in metrics.read_text().splitlines()]
    straight = [json.loads(x) for x in (tmp_path / "straight" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1, 2, 3, 4]
    assert [r["loss"] for r in rows] == [r["loss"] for r in straight]


def test_the_evaluation_before_training_is_the_base_models_when_a_run_resumes(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A resumed run has its trained adapters loaded when it evaluates "before": they are switched off."""
    import shutil

    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.tasks import save_tasks
    from gym_mcp.train import train

    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))
    tasks = tmp_path / "tasks.jsonl"
    save_tasks(synthesize("banking", SynthConfig(n=8, seed=2, max_chain=2)).tasks, tasks)
    evals = {"eval_tasks": 2, "per_device_eval_batch_size": 2, "learning_rate": 5e-2}
    out = tmp_path / "run"
    first = train(_config(tiny, out, tasks, sft_steps=2, **evals), progress=False)
    base = [e["messages"] for e in first["before"]["episodes"]]
    assert base != [e["messages"] for e in first["after"]["episodes"]]  # the adapters change the replies
    for name in ("eval_before.json", "eval_after.json", "summary.json"):
        (out / name).unlink()
    shutil.rmtree(tmp_path / "home" / "cache" / "evals")  # nothing cached: "before" is played again
    resumed = train(_config(tiny, out, tasks, sft_steps=3, **evals), progress=False)
    assert [e["messages"] for e in resumed["before"]["episodes"]] == base


def test_train_config_validation(tmp_path: Path) -> None:
    from gym_mcp.errors import ConfigError
    from gym_mcp.train import TrainConfig

    with pytest.raises(ConfigError, match="num_generations must be >= 2"):
        TrainConfig(model="m", num_generations=1)
    with pytest.raises(ConfigError, match="reward must be"):
        TrainConfig(model="m", reward="vibes")
    with pytest.raises(ConfigError, match="sft_pack_tokens must be >= 0"):
        TrainConfig(model="m", sft_pack_tokens=-1)
    bad = tmp_path / "c.toml"
    bad.write_text('model = "m"\nlearning_rat = 1\n')
    with pytest.raises(ConfigError, match="unknown key"):
        TrainConfig.from_toml(bad)
    bad.write_text('model = "m"\nlearning_rate = 1\n')
    with pytest.raises(ConfigError, match=r"learning_rate must be in \(0, 1\)"):
        TrainConfig.from_toml(bad)


def test_old_config_keys_name_their_new_names(tmp_path: Path) -> None:
    """A TOML file with a former key name fails with a one-line error naming the new key and the file."""
    from gym_mcp.errors import ConfigError
    from gym_mcp.train import TrainConfig
    from gym_mcp.train.config import RENAMED_KEYS

    old = tmp_path / "old.toml"
    old.write_text('model = "m"\nlr = 5e-4\n')
    with pytest.raises(ConfigError) as caught:
        TrainConfig.from_toml(old)
    message = str(caught.value)
    assert "\n" not in message
    assert str(old) in message
    assert "lr was renamed to learning_rate" in message
    old.write_text('model = "m"\ngroup_size = 4\nkl_coef = 0.01\nbogus = 1\n')
    with pytest.raises(ConfigError) as caught:
        TrainConfig.from_toml(old)
    message = str(caught.value)
    assert "\n" not in message and str(old) in message
    assert "group_size was renamed to num_generations" in message
    assert "kl_coef was renamed to beta" in message
    assert "unknown key(s) bogus" in message  # a truly unknown key is still named
    # every former key is named with its new one; no former key is a field, every new one is
    known = {f.name for f in dataclasses.fields(TrainConfig)}
    assert set(RENAMED_KEYS).isdisjoint(known)
    assert set(RENAMED_KEYS.values()) <= known
    for key, new in RENAMED_KEYS.items():
        old.write_text(f'model = "m"\n{key} = 1\n')
        with pytest.raises(ConfigError, match=rf"{key} was renamed to {new}\b"):
            TrainConfig.from_toml(old)


def test_cli_train_runs_sft_and_grpo_and_writes_metrics_and_plot(tiny: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    config = tmp_path / "train.toml"
    config.write_text(
        f'model = "{tiny}"\nserver = "banking"\nn_tasks = 14\noutput_dir = "{tmp_path / "out"}"\n'
        "sft_steps = 2\nsft_batch = 2\ngrpo_steps = 1\nnum_generations = 2\nmax_completion_length = 8\n"
        'max_episode_steps = 2\nlora_r = 4\nlora_alpha = 8\nlora_targets = ["q_proj", "v_proj"]\n'
        "learning_rate = 0.01\neval_tasks = 2\nper_device_eval_batch_size = 2\nfork_starts = 1.0\n"
        # domain randomization: SFT and rollouts under every kind, the evaluations under the run-time ones
        'perturb = "all"\neval_perturb = "transition"\n'
    )
    env = {**os.environ, "GYM_MCP_HOME": str(tmp_path / "home")}

    def cli_train(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "gym_mcp.cli", "train", "--config", str(config), *extra],
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=300,
        )

    ran = cli_train()
    assert ran.returncode == 0, ran.stderr
    rows = [json.loads(x) for x in (tmp_path / "out" / "metrics.jsonl").read_text().splitlines()]
    assert [r["phase"] for r in rows] == ["sft", "sft", "grpo"]
    assert {"reward_mean", "success", "calls", "zero_spread"} <= set(rows[-1])
    assert (tmp_path / "out" / "training.png").stat().st_size > 5_000
    assert (tmp_path / "out" / "checkpoint" / "adapter_model.safetensors").exists()
    before = json.loads((tmp_path / "out" / "eval_before.json").read_text())
    after = json.loads((tmp_path / "out" / "eval_after.json").read_text())
    assert len(before["episodes"]) == len(after["episodes"]) == 2
    assert "| base |" in ran.stdout and "| trained |" in ran.stdout and "success change" in ran.stdout
    # the run folder keeps the tasks it trained and evaluated on, and says where the time went
    out = tmp_path / "out"
    held_out = [json.loads(x)["id"] for x in (out / "test.jsonl").read_text().splitlines()]
    assert held_out == [e["task"] for e in after["episodes"]]
    assert (out / "train.jsonl").read_text().strip()
    assert json.loads((out / "config.json").read_text())["perturb"] == "all"
    summary = json.loads((out / "summary.json").read_text())
    assert {"model load (conversion included)", "synthesis", "evaluation before", "SFT", "GRPO"} <= set(
        summary["timings"]
    )
    assert 0 < summary["peak_rss_gb"] < 100
    by_phase = summary["peak_rss_gb_by_phase"]  # a running peak: never falls, ends at the run's
    assert list(by_phase) == list(summary["timings"]) and list(by_phase.values()) == sorted(by_phase.values())
    assert 0 < by_phase["synthesis"] <= max(by_phase.values()) <= summary["peak_rss_gb"]
    assert summary["peak_gpu_gb"] is None if not torch.cuda.is_available() else summary["peak_gpu_gb"] > 0
    assert "| calls: " in summary["breakdown"] and "| variant: " in summary["breakdown"]
    assert "time and memory" in ran.stdout and "peak RSS by its end" in ran.stdout and "by chain length" in ran.stdout
    # a second run on the same model, prompt and tasks reuses the base model's evaluation
    again = cli_train("--output-dir", str(tmp_path / "b"))
    assert again.returncode == 0, again.stderr
    assert "evaluation reused from" in again.stderr
    reused = json.loads((tmp_path / "b" / "eval_before.json").read_text())
    assert reused["episodes"] == before["episodes"] and reused["cached"] is True
    bad = subprocess.run(
        [sys.executable, "-m", "gym_mcp.cli", "train", "--config", str(tmp_path / "nope.toml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 1
    assert bad.stderr.strip().startswith("gym-mcp: error: cannot read config")


def test_compact_tool_list_keeps_the_tasks_tools_and_a_few_others() -> None:
    from gym_mcp.train.data import compact_tools

    env = gym.make("gym_mcp/Banking-v0")
    try:
        _, info = env.reset(seed=0)
    finally:
        env.close()
    tools = compact_tools(info["tools"], TASK, 3)
    names = [t["function"]["name"] for t in tools]
    assert {"deposit", "get_balance"} <= set(names)
    assert len(names) == 5
    assert names == [t["function"]["name"] for t in compact_tools(info["tools"], TASK, 3)]  # same task, same list
    assert len(compact_tools(info["tools"], TASK, None)) == len(info["tools"])


def test_example_configs_parse_and_the_adapter_example_runs(tiny: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.tasks import save_tasks
    from gym_mcp.train import TrainConfig, train

    root = Path(__file__).resolve().parents[2]
    for name in ("train_cpu.toml", "train_gpu.toml"):
        assert TrainConfig.from_toml(root / "examples" / name).learning_rate > 0
    assert TrainConfig.from_toml(root / "examples" / "train_dr.toml").perturb == "static"
    spelled_out = TrainConfig.from_toml(root / "examples" / "train_cpu.toml")  # the default run, spelled out
    assert dataclasses.replace(spelled_out, output_dir=TrainConfig().output_dir) == TrainConfig()
    tasks = tmp_path / "tasks.jsonl"
    save_tasks(synthesize("banking", SynthConfig(n=4, seed=3, max_chain=1)).tasks, tasks)
    train(_config(tiny, tmp_path / "run", tasks, sft_steps=2), progress=False)
    ran = subprocess.run(
        [
            sys.executable,
            str(root / "examples" / "agent_with_adapter.py"),
            "--model",
            str(tiny),
            "--adapter",
            str(tmp_path / "run" / "checkpoint"),
            "--tasks",
            str(tasks),
            "--episodes",
            "2",
            "--max-new-tokens",
            "8",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr
    assert "solved" in ran.stdout.splitlines()[-1]


def test_forked_group_starts_mid_episode_and_learns_only_sampled_tokens(tiny: Path) -> None:
    from gym_mcp.train.rollouts import rollout_group

    model, tokenizer = _lora(tiny)
    env = gym.make("gym_mcp/Banking-v0", max_steps=3)
    try:
        group = rollout_group(model, tokenizer, env, TASK, 3, fork_after=1, max_new_tokens=8, seed=1)
        parent_calls = len(env.unwrapped.episode().calls)
    finally:
        env.close()
    assert len(group) == 3
    for r in group:
        # the deposit was played before the fork: every rollout starts after it, as context
        assert r.context_messages == 3
        assert r.messages[1]["tool_calls"][0]["function"]["name"] == "deposit"
        assert r.messages[:3] == group[0].messages[:3]
        example = encode_conversation(tokenizer, r.messages, r.tools, context_messages=r.context_messages)
        learned = tokenizer.decode(
            [t for t, lab in zip(example.input_ids, example.labels, strict=True) if lab != IGNORE]
        )
        assert "deposit" not in learned  # the given call is not the model's token
    assert parent_calls == 1  # the forks played; the parent stayed at the fork point


def test_batched_evaluation_plays_every_task_through_live_envs(tiny: Path) -> None:
    from gym_mcp.train.evaluation import evaluate_model

    model, tokenizer = _lora(tiny)
    tasks = [TASK, gym_mcp.Task(id="u", server="banking", instruction="Lock card CRD-1001.", reference_calls=())]
    made: list[object] = []

    def make_env() -> object:
        made.append(gym.make("gym_mcp/Banking-v0", max_steps=2))
        return made[-1]

    result = evaluate_model(model, tokenizer, make_env, tasks, batch_size=4, max_new_tokens=6)
    assert len(made) == 2  # one env per episode in the batch, never more than there are tasks
    assert [row["task"] for row in result.episodes] == ["t", "u"]
    for row, task in zip(result.episodes, tasks, strict=True):
        assert row["messages"][0] == {"role": "user", "content": task.instruction}
        assert row["messages"][1]["role"] == "assistant"  # the model's batched reply went through env.step
    assert result.success == sum(row["success"] for row in result.episodes) / 2


def test_resolve_model_errors_name_the_problem(tmp_path: Path) -> None:
    from gym_mcp.errors import ConfigError
    from gym_mcp.policies.weights import resolve_model

    with pytest.raises(ConfigError, match="does not exist"):
        resolve_model(str(tmp_path / "missing-folder"))
    with pytest.raises(ConfigError, match=r"GGUF file .* does not exist"):
        resolve_model(str(tmp_path / "missing.gguf"))
    assert resolve_model(str(tmp_path)) == str(tmp_path)


def test_default_model_converts_once_from_its_gguf_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The packaged SmolLM2 GGUF becomes a plain cached folder holding the GGUF file's weights.

    The weights are checked against the file itself, read by the gguf package (a second
    transformers load of the GGUF would cost 20 s of CI for the same evidence): the tied
    embedding, a whole layer (the query projection un-permuted as llama.cpp stores it) and the
    final norm.
    """
    from gym_mcp.errors import ConfigError
    from gym_mcp.policies.weights import find_default_gguf, resolve_model

    gguf = pytest.importorskip("gguf", reason="reading GGUF files needs the gguf package (in the [train] extra)")
    try:
        gguf_path = find_default_gguf()
    except ConfigError as exc:
        pytest.skip(str(exc))
    from transformers import AutoModelForCausalLM, AutoTokenizer

    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path))
    folder = Path(resolve_model("smollm2"))
    assert folder.parent == tmp_path / "cache" / "models"
    stamp = (folder / "config.json").stat().st_mtime_ns
    assert resolve_model("smollm2") == str(folder)  # cached: no second conversion
    assert (folder / "config.json").stat().st_mtime_ns == stamp
    assert "quantization_config" not in json.loads((folder / "config.json").read_text())  # plain weights now
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    assert tokenizer.convert_tokens_to_ids("<|im_start|>") != tokenizer.unk_token_id
    converted = AutoModelForCausalLM.from_pretrained(folder, local_files_only=True).state_dict()

    stored = {tensor.name: tensor for tensor in gguf.GGUFReader(gguf_path).tensors}

    def weight(name: str) -> torch.Tensor:
        tensor = stored[name]
        return torch.from_numpy(gguf.quants.dequantize(tensor.data, tensor.tensor_type).copy()).float()

    heads = converted["model.layers.0.self_attn.q_proj.weight"].shape[0] // 64  # SmolLM2-135M: 9 heads of 64
    query = weight("blk.0.attn_q.weight")
    query = query.reshape(heads, 32, 2, -1).swapaxes(1, 2).reshape(query.shape)  # llama.cpp's rotary layout back
    pairs = {
        "model.embed_tokens.weight": weight("token_embd.weight"),
        "model.norm.weight": weight("output_norm.weight"),
        "model.layers.0.self_attn.q_proj.weight": query,
        "model.layers.0.self_attn.v_proj.weight": weight("blk.0.attn_v.weight"),
        "model.layers.0.self_attn.o_proj.weight": weight("blk.0.attn_output.weight"),
        "model.layers.0.mlp.gate_proj.weight": weight("blk.0.ffn_gate.weight"),
        "model.layers.0.mlp.up_proj.weight": weight("blk.0.ffn_up.weight"),
        "model.layers.0.mlp.down_proj.weight": weight("blk.0.ffn_down.weight"),
        "model.layers.0.input_layernorm.weight": weight("blk.0.attn_norm.weight"),
        "model.layers.0.post_attention_layernorm.weight": weight("blk.0.ffn_norm.weight"),
    }
    for name, expected in pairs.items():
        assert torch.allclose(converted[name].float(), expected, atol=1e-6), name


def test_per_turn_weights_make_every_assistant_turn_weigh_one() -> None:
    from gym_mcp.train.losses import turn_weights

    labels = torch.tensor(
        [
            [IGNORE, IGNORE, 5, 6, 7, IGNORE, IGNORE, 8, 9, IGNORE],  # a 3-token turn and a 2-token turn
            [IGNORE, IGNORE, IGNORE, 1, IGNORE, IGNORE, IGNORE, 2, IGNORE, IGNORE],  # two 1-token turns
        ]
    )
    weights, turns = turn_weights(labels)
    assert turns == 4
    assert weights.shape == (2, 5)  # the columns token_logprobs keeps: targets 1, 2, 3, 6, 7
    assert torch.allclose(weights[0], torch.tensor([1 / 3, 1 / 3, 1 / 3, 1 / 2, 1 / 2]))
    assert torch.allclose(weights[1], torch.tensor([0.0, 1.0, 0.0, 1.0, 0.0]))
    assert float(weights.sum()) == pytest.approx(turns)


def test_two_process_ddp_run_with_torchrun(tiny: Path, tmp_path: Path) -> None:
    """The same `gym-mcp train` under DDP: two CPU processes (gloo), SFT and GRPO, one writer."""
    import shutil
    import subprocess
    import sys

    from gym_mcp.synth import SynthConfig, synthesize
    from gym_mcp.tasks import save_tasks

    torchrun = Path(sys.executable).parent / "torchrun"
    if not torchrun.exists() and not shutil.which("torchrun"):
        pytest.skip("torchrun (from torch) is not on this environment's path")
    tasks = tmp_path / "tasks.jsonl"
    save_tasks(synthesize("banking", SynthConfig(n=8, seed=2, max_chain=2)).tasks, tasks)
    config = tmp_path / "ddp.toml"
    config.write_text(
        f'model = "{tiny}"\ntasks = "{tasks}"\noutput_dir = "{tmp_path / "out"}"\n'
        "sft_steps = 2\nsft_batch = 2\ngrpo_steps = 2\nnum_generations = 2\nmax_completion_length = 8\n"
        "max_episode_steps = 2\neval_tasks = 2\nper_device_eval_batch_size = 2\nlora_r = 4\nlora_alpha = 8\n"
        'lora_targets = ["q_proj", "v_proj"]\nlearning_rate = 0.01\n'
    )
    ran = subprocess.run(
        [
            str(torchrun if torchrun.exists() else "torchrun"),
            "--nproc_per_node",
            "2",
            "-m",
            "gym_mcp.cli",
            "train",
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "GYM_MCP_HOME": str(tmp_path / "home")},
        check=False,
        timeout=240,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert ran.stdout.count("done in") == 2  # both ranks finished
    rows = [json.loads(x) for x in (tmp_path / "out" / "metrics.jsonl").read_text().splitlines()]
    assert [r["phase"] for r in rows] == ["sft", "sft", "grpo", "grpo"]  # written once, by rank 0
    assert (tmp_path / "out" / "checkpoint" / "adapter_model.safetensors").exists()
