"""One run over several servers: synthesis in processes, a split by server, every part per task's server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="training needs the [train] extra (the README's test command installs it)")
pytest.importorskip("peft", reason="training needs the [train] extra")

from gym_mcp.synth import SynthConfig, synthesize, synthesize_many  # noqa: E402
from gym_mcp.train import GymTrainer, TrainConfig  # noqa: E402
from gym_mcp.train.data import held_out_split, largest_remainder  # noqa: E402
from tests.tiny_model import build_tiny_model  # noqa: E402


def _lines(tasks: list[Any]) -> list[str]:
    return [t.model_dump_json() for t in tasks]


def test_synthesis_in_processes_gives_the_bytes_of_one_process() -> None:
    jobs = {"banking": SynthConfig(n=6, seed=3), "calendar": SynthConfig(n=5, seed=3)}
    seen: list[tuple[int, int]] = []
    spread = synthesize_many(jobs, processes=2, progress=lambda done, total: seen.append((done, total)))
    here = synthesize_many(jobs, processes=1)
    assert list(spread) == ["banking", "calendar"]
    for server, config in jobs.items():
        assert _lines(spread[server].tasks) == _lines(here[server].tasks) == _lines(synthesize(server, config).tasks)
        assert {t.server for t in spread[server].tasks} == {server}
    assert seen[-1] == (11, 11) and all(total == 11 for _, total in seen)
    assert len(seen) > 2  # kept tasks are reported from the worker processes as they come


def test_held_out_places_are_shared_by_server_and_eval_servers_never_train() -> None:
    made = synthesize_many({s: SynthConfig(n=24, seed=1) for s in ("banking", "calendar", "crm")})
    tasks = [t for r in made.values() for t in r.tasks]
    train, held = held_out_split(tasks, 6, eval_servers={"crm"})
    assert {t.server for t in train} == {"banking", "calendar"}
    assert all(t.split == "train" for t in train)
    by_server = {s: [t for t in held if t.server == s] for s in ("banking", "calendar", "crm")}
    assert [len(v) for v in by_server.values()] == [2, 2, 2]
    assert all(t.split == "test" for t in by_server["banking"] + by_server["calendar"])
    few = [t for t in tasks if t.server != "banking" or t.split == "train" or t.id == by_server["banking"][0].id]
    _, held = held_out_split(few, 6, eval_servers={"crm"})  # banking has one test task: its other place moves on
    assert [sum(t.server == s for t in held) for s in ("banking", "calendar", "crm")] == [1, 3, 2]
    assert largest_remainder(10, {"a": 0.5, "b": 0.3, "c": 0.2}) == {"a": 5, "b": 3, "c": 2}
    assert largest_remainder(7, {"a": 1.0, "b": 1.0, "c": 1.0}) == {"a": 3, "b": 2, "c": 2}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


def test_a_run_trains_on_two_servers_and_evaluates_a_third_it_never_saw(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    config = TrainConfig(
        model=str(tiny),
        servers={"banking": 0.5, "calendar": 0.5},
        eval_servers=["crm"],
        n_tasks=32,
        eval_tasks=6,
        output_dir=str(out),
        sft_steps=2,
        grpo_steps=1,
        num_generations=2,
        max_resamples=0,
        lora_r=4,
        lora_alpha=8,
        lora_targets=["q_proj", "v_proj"],
        max_completion_length=8,
        max_answer_tokens=6,
        max_episode_steps=2,
        dialogue_share=0.0,
        guided_calls=False,
    )
    made: list[str | None] = []

    class Recording(GymTrainer):
        def make_env(self, user: str | None = None, perturb: str | None = None, server: str | None = None) -> Any:
            made.append(server)
            return super().make_env(user, perturb, server)

    result = Recording(config, progress=False).train()
    trained = [json.loads(line) for line in (out / "train.jsonl").read_text().splitlines()]
    held = [json.loads(line) for line in (out / "test.jsonl").read_text().splitlines()]
    assert {t["server"] for t in trained} == {"banking", "calendar"}
    assert len(held) == 6 and {t["server"] for t in held} == {"banking", "calendar", "crm"}
    assert not {t["id"] for t in held} & {t["id"] for t in trained}
    for name in ("eval_before.json", "eval_after.json"):
        episodes = json.loads((out / name).read_text())["episodes"]
        assert [e["task"] for e in episodes] == [t["id"] for t in held]  # each played on its own server
        assert [e["server"] for e in episodes] == [t["server"] for t in held]
    # one kept environment per server for SFT and rollouts, and each evaluation's batch per server
    assert made[:3] == ["banking", "calendar", "crm"] and set(made) == {"banking", "calendar", "crm"}
    assert "server: crm (never trained)" in result["breakdown"]
    assert "server: banking |" in result["breakdown"]
    grpo = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()][-1]
    assert grpo["phase"] == "grpo"


def test_a_short_test_split_is_topped_up_and_the_training_tasks_stay() -> None:
    """Seed 1 leaves banking 1 test-split task of 20: more are synthesized, the train tasks stay.

    The same seed makes the same chains first, so the larger synthesis keeps the train tasks
    (the irrelevant requests, drawn after the chains, may differ) and adds test ones.
    """
    from gym_mcp.train.data import run_tasks

    plain = run_tasks(TrainConfig(servers=["banking"], n_tasks=20, eval_tasks=0, seed=1))
    topped = run_tasks(TrainConfig(servers=["banking"], n_tasks=20, eval_tasks=8, seed=1))
    assert sum(t.split == "test" for t in plain) < 8 <= sum(t.split == "test" for t in topped)
    assert sum(t.split == "train" for t in topped) == sum(t.split == "train" for t in plain)

    def chains(tasks: list[Any]) -> list[str]:
        return [t.model_dump_json() for t in tasks if t.split == "train" and t.variant != "irrelevant"]

    assert chains(topped) == chains(plain)
    _, held = held_out_split(topped, 8)
    assert len(held) == 8
