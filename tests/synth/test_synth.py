"""Task synthesis on the real bundled servers: verified by independent replay, deterministic."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import gymnasium as gym
import pytest
from sqlalchemy.orm import Session

import gym_mcp
from gym_mcp import BundledSource, load_tasks
from gym_mcp.servers import BUNDLED
from gym_mcp.servers.compositions import COMPOSITIONS
from gym_mcp.servers.kit import ServerKit
from gym_mcp.synth import SynthConfig, SynthError, synthesize, write_outputs
from gym_mcp.synth.render import format_value, is_traceable, render, render_chain
from gym_mcp.synth.report import report_text
from tests.conftest import ROOT
from tests.helpers import send_json
from tests.servers.counter import Base as CounterBase
from tests.servers.counter import Note

SERVERS = ["banking", "shopping", "calendar"]


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))


@pytest.fixture(scope="module")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    os.environ.setdefault("GYM_MCP_HOME", str(tmp_path_factory.mktemp("home")))
    for server in SERVERS:
        result = synthesize(server, SynthConfig(n=60, seed=3))
        path = tmp_path_factory.mktemp(server) / f"{server}.jsonl"
        write_outputs(result, path)
        out[server] = path
    return out


@pytest.mark.parametrize("server", SERVERS)
def test_every_task_replays_to_reward_one_through_gym_make(server: str, synthesized: dict[str, Path]) -> None:
    tasks = load_tasks(synthesized[server])
    assert len(tasks) == 60
    env = gym.make(gym_mcp.env_id(server), tasks=str(synthesized[server]), max_steps=50)
    try:
        for task in tasks:
            assert task.expected_fingerprint
            env.reset(options={"task_id": task.id})
            for call in task.reference_calls:
                obs, _, terminated, _, _ = env.step(dict(call))
                assert not obs.startswith("Error"), (task.id, call, obs)
                assert not terminated
            _, reward, terminated, _, info = env.step("Done.")
            assert terminated
            assert reward == 1.0, (task.id, task.instruction)
    finally:
        env.close()


@pytest.mark.parametrize("server", SERVERS)
def test_writes_tasks_score_zero_for_a_do_nothing_agent(server: str, synthesized: dict[str, Path]) -> None:
    tasks = [t for t in load_tasks(synthesized[server]) if t.variant != "irrelevant"]
    env = gym.make(gym_mcp.env_id(server), tasks=str(synthesized[server]))
    try:
        for task in tasks[:20]:
            env.reset(options={"task_id": task.id})
            _, reward, *_ = env.step("I cannot help with that.")
            assert reward == 0.0, task.id  # every chain holds a write that changes state
    finally:
        env.close()


@pytest.mark.parametrize("server", SERVERS)
def test_task_set_quality(server: str, synthesized: dict[str, Path]) -> None:
    tasks = load_tasks(synthesized[server])
    stats_text = synthesized[server].with_suffix(".report.txt").read_text()
    assert "verified tasks/minute" in stats_text
    assert synthesized[server].with_suffix(".report.png").stat().st_size > 10_000
    with_calls = [t for t in tasks if t.reference_calls]
    sequences = {json.dumps([dict(c) for c in t.reference_calls], sort_keys=True) for t in with_calls}
    assert len(sequences) / len(with_calls) >= 0.95
    variants = {t.variant for t in tasks}
    assert {"complete", "missing_param", "distractors", "irrelevant"} <= variants
    assert {t.split for t in tasks} == {"train", "test"}
    assert max(len(t.reference_calls) for t in tasks) >= 3
    for task in tasks:
        assert task.difficulty in ("easy", "medium", "hard")
        if task.variant == "irrelevant":
            assert task.reference_calls == ()
        if task.variant == "missing_param":
            assert task.hidden_goal
            assert "(ask me which" in task.instruction
        if task.variant == "distractors":
            names = {t["function"]["name"] for t in task.metadata["distractor_tools"]}
            assert names
            assert not names & {c["name"] for c in task.reference_calls}
        if task.variant in ("complete", "distractors"):  # every literal argument is in the instruction
            for call in task.reference_calls:
                for value in call["arguments"].values():
                    values = value if isinstance(value, list) else [value]
                    assert all(
                        is_traceable(v, task.instruction, []) or _from_earlier_output(v, task) for v in values
                    ), (task.instruction, call)


def _from_earlier_output(value: object, task: gym_mcp.Task) -> bool:
    return "that " in task.instruction  # a reference to an earlier step's result


def test_split_holds_out_templates(synthesized: dict[str, Path]) -> None:
    for server in SERVERS:
        tasks = load_tasks(synthesized[server])
        report = synthesized[server].with_suffix(".report.txt").read_text()
        held = report.split("held-out tools: ")[1].split(")")[0].split(", ")
        train_tools = {c["name"] for t in tasks if t.split == "train" for c in t.reference_calls}
        assert not set(held) & train_tools, server


def test_split_without_heldout_tools_trains_every_tool_it_tests() -> None:
    result = synthesize("banking", SynthConfig(n=60, seed=3, heldout_tools=False))
    train_tools = {c["name"] for t in result.tasks if t.split == "train" for c in t.reference_calls}
    test_tools = {c["name"] for t in result.tasks if t.split == "test" for c in t.reference_calls}
    assert result.stats["heldout_tools"] == []
    assert test_tools and test_tools <= train_tools
    assert "held-out tools: none" in report_text(result.stats)


def test_distractor_tools_are_offered_but_not_callable(synthesized: dict[str, Path]) -> None:
    tasks = [t for t in load_tasks(synthesized["banking"]) if t.variant == "distractors"]
    env = gym.make("gym_mcp/Banking-v0", tasks=str(synthesized["banking"]))
    try:
        _, info = env.reset(options={"task_id": tasks[0].id})
        distractor = tasks[0].metadata["distractor_tools"][0]["function"]["name"]
        assert distractor in {t["function"]["name"] for t in info["tools"]}
        obs, _, _, _, info = env.step({"name": distractor, "arguments": {}})
        assert obs.startswith(f"Error: unknown tool '{distractor}'")
        _, info = env.reset(
            options={"task_id": next(t.id for t in load_tasks(synthesized["banking"]) if t.variant == "complete")}
        )
        assert distractor not in {t["function"]["name"] for t in info["tools"]}
    finally:
        env.close()


def test_same_seed_same_bytes_and_another_seed_differs(tmp_path: Path) -> None:
    files = []
    for i, seed in enumerate((7, 7, 8)):
        result = synthesize("shopping", SynthConfig(n=25, seed=seed))
        path = tmp_path / f"run{i}.jsonl"
        write_outputs(result, path)
        files.append(path.read_bytes())
    assert files[0] == files[1]
    assert files[0] != files[2]


def test_tool_graph_has_explicit_and_implicit_edges_and_is_cached(tmp_path: Path) -> None:
    from gym_mcp.synth.graph import cache_dir

    result = synthesize("banking", SynthConfig(n=5, seed=1))
    assert result.stats["graph_edges"]["explicit"] > 20
    assert result.stats["graph_edges"]["implicit"] > 5
    cached = list(cache_dir().glob("banking-*.json"))
    assert len(cached) == 1
    graph = json.loads(cached[0].read_text())
    explicit = {(a, b) for a, b, _ in graph["explicit"]}
    assert ("open_account", "deposit") in explicit  # open_account returns an account id deposit accepts
    implicit = {(a, b) for a, b, _ in graph["implicit"]}
    assert ("deposit", "list_transactions") in implicit  # deposit writes what list_transactions reads


def test_render_rules() -> None:
    template = "Deposit ${amount} into account {account_id}[ with the description '{description}']"
    assert render(template, {"amount": 25.0, "account_id": "ACC-1"}) == "Deposit $25 into account ACC-1"
    assert render(template, {"amount": 12.5, "account_id": "ACC-1", "description": "gift"}).endswith("'gift'")
    assert render(template, {"amount": 1}, {"account_id": "that account"}) == "Deposit $1 into that account"
    assert render(template, {"amount": 1}) is None  # a required value is missing
    assert format_value(["A", "B", "C"]) == "A, B and C"
    assert render_chain(["Find X", "Show Y"]) == "Find X, then show Y."


# -- bad input ---------------------------------------------------------------------------------


def _kit(*, seed_rows: int, writes: bool) -> ServerKit:
    """A tiny kit over the counter test server's notes table, with or without a write tool."""

    def seed(db: Session, rng: random.Random) -> None:
        for i in range(seed_rows):
            db.add(Note(id=i + 1, text=f"item {rng.randint(0, 99)}"))

    kit = ServerKit("tiny", base=CounterBase, seed=seed)

    @kit.tool(write=False, intent="Show item {item_id}")
    def get_item(db: Session, item_id: int) -> dict:
        """Show an item.

        Args:
            item_id: Item id.
        """
        return {"id": item_id}

    if writes:

        @kit.tool(write=True, intent="Rename item {item_id} to '{name}'", samples={"name": ["a", "b"]})
        def rename_item(db: Session, item_id: int, name: str) -> dict:
            """Rename an item.

            Args:
                item_id: Item id.
                name: New name.
            """
            return {"id": item_id, "name": name}

    return kit


def test_server_without_write_tools_is_refused() -> None:
    source = BundledSource("tiny", kit=_kit(seed_rows=5, writes=False), module="unused")
    with pytest.raises(SynthError, match="tiny: no write tools"):
        synthesize(source, SynthConfig(n=5))


def test_seed_state_without_entities_is_refused() -> None:
    source = BundledSource("tiny", kit=_kit(seed_rows=0, writes=True), module="unused_empty")
    with pytest.raises(SynthError, match=r"tiny: the seed state .* holds no entities"):
        synthesize(source, SynthConfig(n=5))


def test_cli_errors_leave_no_partial_file(tmp_path: Path) -> None:
    env = {**os.environ, "GYM_MCP_HOME": str(tmp_path / "home")}
    out = tmp_path / "tasks.jsonl"
    ran = subprocess.run(
        [sys.executable, "-m", "gym_mcp.cli", "synth", "nope", "-n", "5", "-o", str(out)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert ran.returncode == 1
    assert (
        ran.stderr.strip().splitlines()[-1]
        == f"gym-mcp: error: unknown server 'nope'; bundled servers: {', '.join(sorted(BUNDLED))}; "
        f"compositions: {', '.join(sorted(COMPOSITIONS))}"
    )
    assert not out.exists()
    # a third-party server (here the test counter server, whose tools have no intent templates)
    template = tmp_path / "notes.db"
    from tests.servers.counter import kit as counter_kit

    counter_kit.init_database(f"sqlite:///{template}")
    spec = tmp_path / "notes.json"
    spec.write_text(
        json.dumps(
            {
                "name": "notes",
                "command": [sys.executable, "-m", "tests.servers.counter", "--db", "sqlite:///{state}"],
                "env": {"PYTHONPATH": str(ROOT)},
                "state": {"kind": "sqlite", "path": str(template)},
                # the reset check calls each read three times with drawn arguments: sleep(25 s) would
                # make this test wait 75 s for nothing it checks
                "tools": {"hide": ["sleep"]},
            }
        )
    )
    ran = subprocess.run(
        [sys.executable, "-m", "gym_mcp.cli", "synth", "--spec", str(spec), "-n", "5", "-o", str(out)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert ran.returncode == 1
    assert "notes: no write tools with an intent template" in ran.stderr
    assert not out.exists()
    assert not list(tmp_path.glob("tasks*"))


class _ChatHandler(BaseHTTPRequestHandler):
    """A minimal OpenAI-compatible chat endpoint (an external LLM's stand-in, on loopback)."""

    drop_digits = False

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        content = body["messages"][0]["content"]
        if "Request: " in content:  # paraphrase
            text = "Hi there! Could you please do this: " + content.split("Request: ", 1)[1]
            if self.drop_digits:
                text = "".join(ch for ch in text if not ch.isdigit())
        else:  # graph refinement: call one learned edge meaningless
            text = 'Sure: ["open_account -> deposit"]'
        send_json(self, json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}]}).encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize("drop_digits", [False, True])
def test_llm_paraphrase_is_kept_only_when_traceable(drop_digits: bool) -> None:
    from gym_mcp.synth.llm import ChatEndpoint

    handler = type("H", (_ChatHandler,), {"drop_digits": drop_digits})
    server = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        llm = ChatEndpoint(f"http://127.0.0.1:{server.server_address[1]}/v1", "tiny")
        result = synthesize("banking", SynthConfig(n=12, seed=5), llm=llm)
    finally:
        server.shutdown()
    assert result.stats["llm_dropped_edges"] == ["open_account -> deposit"]
    para = [t for t in result.tasks if "template_instruction" in t.metadata]
    if drop_digits:
        assert para == []  # ids lost their digits: every paraphrase was refused
        assert result.stats["rejections"]["paraphrase dropped a value (template kept)"] > 0
    else:
        assert para
        assert all(t.instruction.startswith("Hi there!") for t in para)
        assert result.stats["paraphrased"] == len(para)
