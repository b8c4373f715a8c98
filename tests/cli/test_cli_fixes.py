"""Command-line fixes: a closed stdout, ``$OPENAI_API_KEY`` for eval's endpoints, serve-model's help.

``gym-mcp`` runs as a real subprocess; the OpenAI-compatible endpoint is a loopback HTTP server
in this process that answers with crafted replies and records what each request carried.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gym_mcp.cli import main
from tests.helpers import CraftedChat, serve_handler

CLI = [sys.executable, "-m", "gym_mcp.cli"]
TASK = {
    "id": "balance-1",
    "server": "banking",
    "instruction": "What is the balance of account ACC-1001?",
    "reference_calls": [{"name": "get_balance", "arguments": {"account_id": "ACC-1001"}}],
}


def _help(*argv: str, capsys: pytest.CaptureFixture[str]) -> str:
    """The help text of a command, with argparse's line wrapping undone."""
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    return " ".join(capsys.readouterr().out.split())


# -- a closed stdout ends the command quietly ----------------------------------------------------


def test_servers_list_into_a_pipe_closed_after_one_line_is_quiet() -> None:
    proc = subprocess.Popen([*CLI, "servers", "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    stderr = proc.stderr.read().decode()
    status = proc.wait(timeout=120)
    assert first.split()[:2] == [b"server", b"tools"]
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    assert stderr == ""
    assert status in (0, 141)  # 141: killed by SIGPIPE, as a shell reports it


def test_help_into_a_pipe_closed_before_it_is_read_is_quiet() -> None:
    proc = subprocess.Popen([*CLI, "eval", "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=120) in (0, 141)
    assert stderr == "", stderr


# -- eval's openai: policy and LLM user send $OPENAI_API_KEY ---------------------------------------


class KeyedChat(CraftedChat):
    """A crafted chat endpoint that also records each request's Authorization header."""

    authorizations: list[str | None] = []

    def do_POST(self) -> None:
        self.authorizations.append(self.headers.get("Authorization"))
        super().do_POST()


@pytest.fixture
def keyed_endpoint() -> Iterator[tuple[str, type[KeyedChat]]]:
    handler = type("Keyed", (KeyedChat,), {"replies": [], "requests": [], "authorizations": []})
    with serve_handler(handler) as url:
        yield url, handler


def _eval(url: str, tmp_path: Path, key: str | None) -> subprocess.CompletedProcess[str]:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(TASK) + "\n")
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    if key is not None:
        env["OPENAI_API_KEY"] = key
    argv = ["eval", "--env", "gym_mcp/Banking-v0", "--tasks", str(tasks), "--policy", f"openai:{url}"]
    argv += ["--user", f"openai:{url}@sim", "--max-steps", "2", "-o", str(tmp_path / "out"), "--quiet"]
    ran = subprocess.run([*CLI, *argv], env=env, capture_output=True, text=True, timeout=300, check=False)
    assert ran.returncode == 0, ran.stderr
    return ran


def _senders(requests: list[dict[str, Any]]) -> list[str]:
    """Who sent each request: the policy sends the tools; the LLM user, its persona prompt."""
    return ["policy" if body.get("tools") else "user" for body in requests]


def test_eval_sends_openai_api_key_from_the_policy_and_the_user(
    keyed_endpoint: tuple[str, type[KeyedChat]], tmp_path: Path
) -> None:
    url, handler = keyed_endpoint
    _eval(url, tmp_path, "sk-test-key-123")
    assert {"policy", "user"} <= set(_senders(handler.requests))
    assert handler.authorizations and set(handler.authorizations) == {"Bearer sk-test-key-123"}


def test_eval_sends_no_authorization_without_the_key(
    keyed_endpoint: tuple[str, type[KeyedChat]], tmp_path: Path
) -> None:
    url, handler = keyed_endpoint
    _eval(url, tmp_path, None)
    assert {"policy", "user"} <= set(_senders(handler.requests))
    assert set(handler.authorizations) == {None}


def test_eval_help_says_openai_api_key_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help("eval", capsys=capsys)
    policy = text[text.rindex("--policy POLICY") :]
    assert "openai: sends $OPENAI_API_KEY" in policy.split("--model")[0]
    user = text[text.rindex("--user USER") :]
    assert "sends $OPENAI_API_KEY" in user.split("--perturb")[0]


# -- serve-model's help names what --model takes ---------------------------------------------------


def test_serve_model_help_names_every_form_of_model(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help("serve-model", capsys=capsys)
    model = text[text.rindex("--model MODEL") :].split("--adapter")[0]
    for form in ("local model folder", ".gguf file", "smollm2"):
        assert form in model, model
