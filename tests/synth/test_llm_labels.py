"""``gym-mcp synth --llm URL``: an LLM labels the tools nobody annotated, once, through a labels file.

The LLM is a loopback HTTP endpoint that plays an outside model with crafted replies (by the
tool named in the prompt); the server is the npm filesystem server, unmodified, from a spec
with no hints. Its labels reach the tasks; a rerun with the endpoint gone asks nothing and
gives the same bytes; a spec file's hint still wins; a bad endpoint or answer is one line and
leaves no file behind.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from gym_mcp.cli import main
from gym_mcp.synth import SynthConfig, synthesize
from gym_mcp.synth.labels import ToolLabeler, labels_file
from gym_mcp.synth.llm import ChatEndpoint
from tests.synth.test_infer import write_spec

LABELS = {
    "write_file": {"intent": "Please save the text '{content}' in the file {path}"},
    "create_directory": {"kind": "write", "intent": "Make a new folder at {path}"},
}


class _Labeller(BaseHTTPRequestHandler):
    """Answers a labelling prompt with the labels of the tool it names (``{}`` for the others)."""

    answers: ClassVar[dict[str, str]] = {}
    asked: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][0]["content"]
        tool = re.search(r"^Tool: (\S+)$", prompt, re.M)
        name = tool.group(1) if tool else ""
        type(self).asked.append(name)
        text = self.answers.get(name, "Here you go:\n```json\n{}\n```")
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def _serve(answers: dict[str, str]) -> tuple[HTTPServer, type[_Labeller]]:
    handler = type("H", (_Labeller,), {"answers": answers, "asked": []})
    server = HTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, handler


@pytest.fixture
def labeller() -> Iterator[tuple[str, type[_Labeller], HTTPServer]]:
    server, handler = _serve({name: json.dumps(label) for name, label in LABELS.items()})
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", handler, server
    finally:
        server.shutdown()
        server.server_close()


def _synth(spec: Path, out: Path, url: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(
        ["synth", "--spec", str(spec), "-n", "6", "--no-heldout-tools", "-o", str(out), "--quiet", "--llm", url]
    )
    return code, capsys.readouterr().err


def test_llm_labels_reach_the_tasks_and_a_rerun_asks_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    labeller: tuple[str, type[_Labeller], HTTPServer],
) -> None:
    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))
    url, handler, server = labeller
    spec = write_spec(tmp_path)
    code, err = _synth(spec, tmp_path / "one.jsonl", url, capsys)
    assert code == 0, err
    labels = tmp_path / "fs.labels.json"
    assert labels_file(spec, "npm-filesystem", tmp_path) == labels and labels.exists()
    stored = json.loads(labels.read_text())["tools"]
    assert set(handler.asked) == set(stored) and len(handler.asked) == len(stored)  # each tool asked once
    assert {"write_file", "create_directory", "read_text_file"} <= set(stored)
    assert stored["write_file"]["label"] == LABELS["write_file"]
    report = (tmp_path / "one.report.txt").read_text()
    assert "tools labelled by the LLM (--llm): create_directory, write_file" in report
    tasks = [json.loads(line) for line in (tmp_path / "one.jsonl").read_text().splitlines()]
    saved = [t for t in tasks if t["variant"] == "complete" and t["reference_calls"][0]["name"] == "write_file"]
    made = [t for t in tasks if t["variant"] == "complete" and t["reference_calls"][0]["name"] == "create_directory"]
    assert saved or made, [t["instruction"] for t in tasks]
    assert all(t["instruction"].startswith("Please save the text '") for t in saved)
    assert all(t["instruction"].startswith("Make a new folder at ") for t in made)
    assert f"tool labels: {labels} ({len(stored)} asked of the LLM)" in err

    server.shutdown()  # the endpoint is gone: the labels file answers
    server.server_close()
    asked = len(handler.asked)
    code, err = _synth(spec, tmp_path / "two.jsonl", url, capsys)
    assert code == 0, err
    assert len(handler.asked) == asked and "(all from the file)" in err
    assert (tmp_path / "two.jsonl").read_bytes() == (tmp_path / "one.jsonl").read_bytes()


def test_a_spec_hint_wins_over_the_llm_label(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, labeller: tuple[str, type[_Labeller], HTTPServer]
) -> None:
    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))
    url, _, _ = labeller
    spec = write_spec(tmp_path, "\n[tools.hints.write_file]\nintent = \"Put '{content}' into {path}\"\n")
    labeler = ToolLabeler(ChatEndpoint(url), labels_file(spec, "npm-filesystem", tmp_path))
    result = synthesize(spec, SynthConfig(n=6, seed=1, heldout_tools=False), labeler=labeler)
    assert result.stats["llm_labelled_tools"] == ["create_directory", "write_file"]
    firsts = {t.reference_calls[0]["name"]: t.instruction for t in result.tasks if t.variant == "complete"}
    assert firsts, [t.instruction for t in result.tasks]
    if "write_file" in firsts:
        assert firsts["write_file"].startswith("Put '")
    if "create_directory" in firsts:
        assert firsts["create_directory"].startswith("Make a new folder at ")


@pytest.mark.parametrize(
    ("answers", "expect"),
    [
        (None, "Connection refused"),
        ({"write_file": "I think this tool writes files."}, "the labels for tool 'write_file' are not a JSON object"),
        ({"write_file": '{"kind": "change"}'}, "the labels for tool 'write_file': kind:"),
        ({"write_file": '{"intent": "Write {body} to {path}"}'}, "{body} is no parameter of 'write_file'"),
        ({"write_file": '{"pools": {"path": "planet"}}'}, "pools.path: the state has no column 'planet'"),
    ],
    ids=["down", "garbage", "bad-kind", "bad-placeholder", "bad-column"],
)
def test_a_bad_endpoint_or_answer_is_one_line_and_writes_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    answers: dict[str, Any] | None,
    expect: str,
) -> None:
    monkeypatch.setenv("GYM_MCP_HOME", str(tmp_path / "home"))
    spec = write_spec(tmp_path)
    server, _ = _serve(answers or {})
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    if answers is None:  # nothing listens there any more
        server.shutdown()
        server.server_close()
    try:
        code, err = _synth(spec, tmp_path / "tasks.jsonl", url, capsys)
    finally:
        if answers is not None:
            server.shutdown()
            server.server_close()
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("synthesizing")]
    assert code != 0 and len(lines) == 1 and expect in lines[0], lines
    assert f"--llm {url}" in lines[0] or "endpoint" in lines[0]
    assert not list(tmp_path.glob("tasks*")) and not list(tmp_path.glob("*.labels.json*"))
