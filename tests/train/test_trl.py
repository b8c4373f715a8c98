"""TRL interop: gym-mcp environments behind TRL's ``environment_factory``, and one real GRPOTrainer step."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

torch = pytest.importorskip("torch", reason="training needs the [train] extra")
peft = pytest.importorskip("peft", reason="training needs the [train] extra")
pytest.importorskip("transformers", reason="training needs the [train] extra")

import gym_mcp  # noqa: E402
from gym_mcp.errors import ConfigError, DependencyMissing  # noqa: E402
from gym_mcp.rewards import CompositeReward  # noqa: E402
from gym_mcp.synth import SynthConfig, synthesize  # noqa: E402
from gym_mcp.train.trl import (  # noqa: E402
    MCPToolEnv,
    _methods_render_as_tools,
    ensure_tool_chat_template,
    environment_factory,
    record_final_answers,
    tasks_dataset,
    tool_env_class,
)
from tests.tiny_model import build_tiny_model  # noqa: E402

pytestmark = pytest.mark.skipif(
    not _methods_render_as_tools(),
    reason="TRL's environment_factory needs transformers>=5.2 (methods as chat-template tools); "
    "environment_factory says so with DependencyMissing",
)


def _tasks(n: int = 2) -> list[gym_mcp.Task]:
    """Synthesized banking tasks that change state, each with a different tool."""
    out: list[gym_mcp.Task] = []
    for task in synthesize("banking", SynthConfig(n=8, seed=0, max_chain=1)).tasks:
        name = task.reference_calls[0]["name"] if task.reference_calls else None
        if task.variant == "complete" and name and name not in {t.reference_calls[0]["name"] for t in out}:
            out.append(task)
    return out[:n]


def _public_functions(cls: type) -> list[str]:
    """The names TRL turns into tools: public functions of the class but reset and get_reward."""
    return [
        n
        for n, _ in inspect.getmembers(cls, predicate=inspect.isfunction)
        if not n.startswith("_") and n not in ("reset", "get_reward")
    ]


def test_tool_methods_are_typed_documented_and_bad_arguments_come_back_as_errors(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    from transformers.utils import get_json_schema

    env = gym.make("gym_mcp/Banking-v0", reward=CompositeReward.prove())
    try:
        tool_env = MCPToolEnv.wrap(env)
        _, info = env.reset(seed=0)
        schemas = {t["function"]["name"]: t["function"] for t in info["tools"]}
        assert _public_functions(type(tool_env)) == sorted(schemas)  # every tool, nothing else

        method = tool_env.set_card_limit
        params = inspect.signature(method).parameters
        assert list(params) == ["card_id", "daily_limit"]
        assert params["card_id"].annotation is str and params["daily_limit"].annotation is float
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params.values())
        assert "Args:\n    card_id: Card id" in (method.__doc__ or "")
        # what TRL renders for the model: the server's own types, descriptions and required arguments
        for name, fn in schemas.items():
            rendered = get_json_schema(getattr(tool_env, name))["function"]
            assert rendered["name"] == name
            assert rendered["description"] == fn["description"].strip()
            assert sorted(rendered["parameters"].get("required", [])) == sorted(fn["parameters"].get("required", []))
            assert set(rendered["parameters"]["properties"]) == set(fn["parameters"]["properties"])
        listed = get_json_schema(tool_env.list_transactions)["function"]["parameters"]["properties"]
        assert listed["kind"]["type"] == "string" and listed["kind"]["nullable"] is True  # anyOf [string, null]
        assert listed["limit"]["type"] == "integer" and "nullable" not in listed["limit"]  # optional, never null
        assert inspect.signature(tool_env.list_transactions).parameters["limit"].default is None

        task = _tasks(1)[0]
        row = tasks_dataset([task])[0]
        assert tool_env.reset(**row) == task.instruction
        assert tool_env.task_id == task.id
        # bad arguments: an error observation, never an exception, counted by the environment
        assert tool_env.set_card_limit(card_id=1094, daily_limit=1000).startswith("Error: set_card_limit: argument")
        assert "missing required argument" in tool_env.set_card_limit(card_id="CRD-1094")
        assert tool_env.set_card_limit(card_id="CRD-1094", daily_limit=1000, colour="red").startswith("Error")
        assert json.loads(tool_env.list_transactions(account_id="ACC-1001", limit=None))["transactions"]  # limit unset
        call = task.reference_calls[0]
        result = getattr(tool_env, call["name"])(**call["arguments"])
        assert not result.startswith("Error") and json.loads(result)
        assert [h[0] for h in tool_env.history] == ["set_card_limit"] * 3 + ["list_transactions", "set_card_limit"]
        assert env.unwrapped.counters["invalid_calls"] == 3
        reward = tool_env.get_reward()  # closes the open episode with a final answer
        assert reward == tool_env.reward_terms["reward"]
        assert tool_env.reward_terms["state_match"] == 1.0 and 0.0 < reward < 1.0  # right state, 4 wasted calls
        assert tool_env.get_reward() == reward  # idempotent
        assert tool_env.set_card_limit(card_id="CRD-1094", daily_limit=5).startswith("Error: the episode is over")
    finally:
        env.close()
    clash = {"type": "function", "function": {"name": "reset", "parameters": {"type": "object", "properties": {}}}}
    with pytest.raises(ConfigError, match="clashes"):
        tool_env_class([clash])
    bad = {"type": "function", "function": {"name": "read-file", "parameters": {"type": "object", "properties": {}}}}
    with pytest.raises(ConfigError, match="not a valid method name"):
        tool_env_class([bad])
    with pytest.raises(ConfigError, match="unknown tool"):
        tool_env_class([clash], only=["nope"])
    monkeypatch.setitem(sys.modules, "trl.chat_template_utils", None)  # as if trl were not installed
    with pytest.raises(DependencyMissing, match="pip install 'trl"):
        ensure_tool_chat_template(object())


def test_one_trl_grpo_step_plays_live_episodes_and_moves_only_lora_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tasks = _tasks(2)
    only = sorted({t.reference_calls[0]["name"] for t in tasks})
    factory = environment_factory(
        "gym_mcp/Banking-v0", tasks, only=only, brief=True, max_steps=4, reward=CompositeReward.prove()
    )
    _one_grpo_step(factory, tasks, only, tmp_path, monkeypatch)


def test_one_trl_grpo_step_whose_rollouts_go_through_openenv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same GRPO step, every rollout a WebSocket session of ``gym-mcp serve-openenv`` (another process)."""
    pytest.importorskip("openenv.core.env_server", reason="the [openenv] extra is not installed")
    import httpx

    from gym_mcp.openenv.remote import OpenEnvGymEnv
    from gym_mcp.tasks import save_tasks
    from tests.openenv.test_openenv import served

    tasks = _tasks(2)
    only = sorted({t.reference_calls[0]["name"] for t in tasks})
    path = tmp_path / "tasks.jsonl"
    save_tasks(tasks, path)
    with served("banking", "--tasks", str(path), "--max-steps", "4") as url:
        factory = environment_factory("gym_mcp/Banking-v0", tasks, only=only, brief=True, openenv_url=url)
        _one_grpo_step(factory, tasks, only, tmp_path, monkeypatch, env_type=OpenEnvGymEnv)
        pool = httpx.get(f"{url}/gym-mcp/pool").json()
        assert pool["built"] >= 1  # the episodes ran in the server's environments, not in this process
    with pytest.raises(ConfigError, match="server holds"):
        environment_factory("gym_mcp/Banking-v0", tasks, openenv_url="http://127.0.0.1:1", max_steps=4)


def _one_grpo_step(
    factory: Any,
    tasks: list[gym_mcp.Task],
    only: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    env_type: type = gym.Env,
) -> None:
    """One real GRPOTrainer step of a tiny model over ``factory``'s environments, checked."""
    trl = pytest.importorskip("trl", reason="TRL interop needs trl")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    folder = build_tiny_model(tmp_path / "tiny")
    tokenizer = ensure_tool_chat_template(AutoTokenizer.from_pretrained(folder))
    dataset = tasks_dataset(tasks)
    # A random tiny model never writes a tool call, so its decoding is steered (a large logit bias)
    # into each task's reference call right after that task's prompt. Everything else is real:
    # TRL renders the env's methods as tools, parses the call, runs it on the live server, and
    # the model samples freely after the tool result (so the group's completions differ).
    probe = factory()
    methods = [getattr(probe, n) for n in only]
    bias: list[list[object]] = []
    for row, task in zip(dataset, tasks, strict=True):
        prompt = [*row["prompt"][:-1], {"role": "user", "content": probe.reset(**row)}]
        ids = tokenizer.apply_chat_template(
            prompt, tools=methods, add_generation_prompt=True, tokenize=True, return_dict=False
        )
        call = json.dumps({"name": task.reference_calls[0]["name"], "arguments": task.reference_calls[0]["arguments"]})
        target = tokenizer(f"<tool_call>\n{call}\n</tool_call><|im_end|>", add_special_tokens=False)["input_ids"]
        target.append(tokenizer.eos_token_id)
        bias += [[list(ids[-30:]) + target[: k + 1], 100.0] for k in range(len(target))]
    factory.instances.remove(probe)
    probe.env.close()

    def spread(completions: list, **kwargs: object) -> list[float]:
        return [float(i % 2) for i in range(len(completions))]  # a signal in every group

    args = trl.GRPOConfig(
        output_dir=str(tmp_path / "out"),
        max_steps=1,
        per_device_train_batch_size=4,
        num_generations=2,
        max_completion_length=256,
        max_tool_calling_iterations=1,
        learning_rate=1e-2,
        gradient_checkpointing=False,
        generation_kwargs={"sequence_bias": bias},
        logging_steps=1,
        save_strategy="no",
        report_to="none",
        use_cpu=True,
        seed=0,
    )
    model = AutoModelForCausalLM.from_pretrained(folder)
    trainer = trl.GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        args=args,
        train_dataset=dataset,
        reward_funcs=[record_final_answers, spread],
        environment_factory=factory,
        peft_config=peft.LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"]),
    )
    before = {n: p.detach().clone() for n, p in trainer.model.named_parameters()}
    try:
        trainer.train()
        assert trainer.state.global_step == 1
        # four rollouts (2 tasks x 2 generations), each a live episode on its own environment
        assert len(factory.instances) == 4
        by_task: dict[str, int] = {}
        for env in factory.instances:
            task = next(t for t in tasks if t.id == env.task_id)
            assert isinstance(env.env, env_type)
            by_task[task.id] = by_task.get(task.id, 0) + 1
            assert env.episodes == 1
            (name, arguments, observation), *_ = env.history
            assert (name, arguments) == (task.reference_calls[0]["name"], task.reference_calls[0]["arguments"])
            assert not observation.startswith("Error")
            assert env.reward_terms["state_match"] == 1.0  # the live server's state is the expected one
            assert env.reward == env.reward_terms["reward"] > 0.9
            assert isinstance(env.pending_answer, str)  # record_final_answers handed over the model's text
        assert by_task == {t.id: 2 for t in tasks}
        logged = trainer.state.log_history[0]
        assert logged["rewards/BankingToolEnv/mean"] == pytest.approx(
            sum(e.reward or 0.0 for e in factory.instances) / 4
        )
        assert logged["tools/call_frequency"] >= 1.0
        changed = {n for n, p in trainer.model.named_parameters() if not torch.equal(p.detach(), before[n])}
        assert changed
        assert all("lora_" in n for n in changed)  # the adapter moved, the base weights did not
    finally:
        factory.close()


def test_the_trl_grpo_example_runs_its_quick_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """examples/trl_grpo.py end to end (warm start, GRPO through live episodes, the summary) on the tiny model."""
    pytest.importorskip("trl", reason="TRL interop needs trl")
    import importlib.util

    from trl.chat_template_utils import qwen2_5_chat_template

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    folder = build_tiny_model(tmp_path / "tiny", chat_template=qwen2_5_chat_template)
    path = Path(__file__).resolve().parents[2] / "examples" / "trl_grpo.py"
    spec = importlib.util.spec_from_file_location("trl_grpo_example", path)
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    out = tmp_path / "out"
    figures = example.main(["--model", str(folder), "--quick", "--threads", "1", "--output-dir", str(out)])
    assert figures["steps"] == 1.0
    assert figures["warmup_loss_first"] > 0.0  # the warm start trained on the assistant's tokens
    assert 0.0 <= figures["reward_first"] <= 1.0 and 0.0 <= figures["clipped"] <= 1.0
    assert (out / "adapter_config.json").exists()
