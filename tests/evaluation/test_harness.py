"""Policies and the evaluation harness on synthesized task sets over real servers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from gym_mcp.errors import EndpointError
from gym_mcp.evaluation import EvalConfig, evaluate, pass_hat_k, write_report
from gym_mcp.policies import NoopPolicy, OpenAIPolicy, RandomPolicy, ReferencePolicy
from gym_mcp.synth import SynthConfig, synthesize, write_outputs


@pytest.fixture(scope="module")
def task_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    os.environ.setdefault("GYM_MCP_HOME", str(tmp_path_factory.mktemp("home")))
    files = {}
    for server in ("banking", "shopping"):
        path = tmp_path_factory.mktemp(server) / f"{server}.jsonl"
        write_outputs(synthesize(server, SynthConfig(n=24, seed=11)), path)
        files[server] = path
    return files


def test_pass_hat_k() -> None:
    assert pass_hat_k(3, 3, 2) == 1.0
    assert pass_hat_k(2, 4, 2) == pytest.approx(1 / 6)
    assert pass_hat_k(0, 4, 1) == 0.0


def test_two_policies_on_two_servers(task_files: dict[str, Path], tmp_path: Path) -> None:
    runs = [("gym_mcp/Banking-v0", task_files["banking"]), ("gym_mcp/Shopping-v0", task_files["shopping"])]
    config = EvalConfig(k=2, concurrency=2, seed=4)
    result = evaluate(
        runs, {"reference": ReferencePolicy, "noop": NoopPolicy, "random": lambda: RandomPolicy(4)}, config
    )
    for env_id, _ in runs:
        ref = result.metrics["reference"][env_id]
        assert ref["success_rate"] == 1.0
        assert ref["pass^k"] == {"1": 1.0, "2": 1.0}
        assert ref["mean_reward"] == pytest.approx(1.0)
        assert ref["invalid_call_rate"] == 0.0
        noop = result.metrics["noop"][env_id]
        irrelevant = sum(
            1 for e in result.episodes if e["env"] == env_id and e["policy"] == "noop" and e["variant"] == "irrelevant"
        )
        # a do-nothing agent only "solves" irrelevant requests (where doing nothing is right)
        assert noop["success_rate"] == pytest.approx(irrelevant / noop["episodes"], abs=1e-4)
        noop_writes = [
            e for e in result.episodes if e["env"] == env_id and e["policy"] == "noop" and e["variant"] != "irrelevant"
        ]
        assert noop_writes
        assert all(e["reward"] == 0.0 and e["terms"]["coverage"] == 0.0 for e in noop_writes)
        rand = result.metrics["random"][env_id]
        assert rand["success_rate"] < 0.5
        assert rand["invalid_call_rate"] + rand["tool_error_rate"] > 0
        assert set(ref["by_difficulty"]) <= {"easy", "medium", "hard"}
    files = write_report(result, tmp_path / "out", config)
    assert [f.name for f in files] == ["results.json", "results.md", "results.png"]
    data = json.loads(files[0].read_text())
    episode = data["episodes"][0]
    assert {"messages", "calls", "terms", "reward", "success"} <= set(episode)
    assert "| reference | gym_mcp/Banking-v0 |" in files[1].read_text()


def test_same_seed_same_files(task_files: dict[str, Path], tmp_path: Path) -> None:
    runs = [("gym_mcp/Banking-v0", task_files["banking"])]
    outputs = []
    for i in range(2):
        config = EvalConfig(k=1, concurrency=2, seed=9)
        result = evaluate(runs, {"reference": ReferencePolicy, "random": lambda: RandomPolicy(9)}, config)
        files = write_report(result, tmp_path / f"run{i}", config)
        outputs.append((files[0].read_bytes(), files[1].read_bytes()))
    assert outputs[0] == outputs[1]


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gym_mcp.cli", *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


def test_cli_eval_and_its_errors(task_files: dict[str, Path], tmp_path: Path) -> None:
    out = _cli(
        "eval",
        "--env",
        "gym_mcp/Banking-v0",
        "--tasks",
        str(task_files["banking"]),
        "--policy",
        "reference",
        "--policy",
        "noop",
        "-o",
        str(tmp_path / "cli"),
        "--quiet",
    )
    assert out.returncode == 0, out.stderr
    assert "reference" in out.stdout
    assert (tmp_path / "cli" / "results.md").exists()
    bad = tmp_path / "bad.jsonl"
    lines = task_files["banking"].read_text().splitlines()
    bad.write_text(lines[0] + "\n{not json\n")
    cases = [
        (["--env", "gym_mcp/Banking-v0", "--tasks", str(bad), "--policy", "reference"], f"{bad}:2: not valid JSON"),
        (
            ["--env", "gym_mcp/Nope-v0", "--tasks", str(task_files["banking"]), "--policy", "reference"],
            "unknown environment id 'gym_mcp/Nope-v0'",
        ),
        (
            [
                "--env",
                "gym_mcp/Banking-v0",
                "--tasks",
                str(task_files["banking"]),
                "--policy",
                "openai:http://127.0.0.1:9/v1",
            ],
            "endpoint http://127.0.0.1:9/v1 is unreachable",
        ),
        (
            ["--env", "gym_mcp/Banking-v0", "--tasks", str(task_files["banking"]), "--policy", "genius"],
            "unknown policy 'genius'",
        ),
    ]
    for args, expect in cases:
        ran = _cli("eval", *args, "-o", str(tmp_path / "x"), "--quiet")
        assert ran.returncode == 1, (args, ran.stderr)
        last = ran.stderr.strip().splitlines()[-1]
        assert last.startswith("gym-mcp: error:")
        assert expect in last, last


class _Flaky(BaseHTTPRequestHandler):
    """An OpenAI-compatible stand-in on loopback that fails with 503 before answering."""

    failures_left = 2
    seen: list[dict] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append(body)
        if type(self).failures_left > 0:
            type(self).failures_left -= 1
            self.send_response(503)
            self.end_headers()
            return
        reply = {
            "choices": [
                {
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "get_balance", "arguments": '{"account_id": "ACC-1001"}'},
                            }
                        ],
                    }
                }
            ]
        }
        payload = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_openai_policy_retries_and_sends_tools() -> None:
    import gymnasium as gym

    server = HTTPServer(("127.0.0.1", 0), _Flaky)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        policy = OpenAIPolicy(f"http://127.0.0.1:{server.server_address[1]}/v1", "m", max_retries=3, system="Be brief.")
        policy.check()
        env = gym.make("gym_mcp/Banking-v0")
        obs, info = env.reset(seed=0)
        action = policy.act(obs, info)
        obs, *_ = env.step(action)
        assert json.loads(obs)["account_id"] == "ACC-1001"
        sent = _Flaky.seen[-1]
        assert sent["messages"][0] == {"role": "system", "content": "Be brief."}
        assert {t["function"]["name"] for t in sent["tools"]} >= {"get_balance", "deposit"}
        assert len(_Flaky.seen) == 3  # two 503s, then the answer
        env.close()
        policy.close()
    finally:
        server.shutdown()
    with pytest.raises(EndpointError, match="unreachable"):
        OpenAIPolicy("http://127.0.0.1:9/v1").check()


def test_a_whole_suite_plots_one_row_per_environment(tmp_path: Path) -> None:
    import matplotlib.image

    from gym_mcp.evaluation.harness import EvalResult
    from gym_mcp.evaluation.report import _plot

    envs = [f"gym_mcp/Server{i}-v0" for i in range(25)]
    metrics = {
        "reference": {e: {"success_rate": 1.0, "mean_reward": 1.0} for e in envs},
        "random": {e: {"success_rate": 0.0 if i else None, "mean_reward": 0.05} for i, e in enumerate(envs)},
    }
    path = _plot(EvalResult(episodes=[], metrics=metrics), tmp_path / "suite.png")
    assert path is not None
    height, width, _ = matplotlib.image.imread(path).shape
    assert height > width  # rows, not 50 bars side by side
