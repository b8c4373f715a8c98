"""Tools labelled by an LLM: kinds, request templates and entity pools, asked once and cached.

Rule-based inference (`gym_mcp.synth.infer`) needs no model. With an LLM (``gym-mcp synth
--llm URL``), each tool without ``gym_mcp/*`` metadata is shown to it the way PROVE builds its
tool graph: the tool's name, description, input schema and MCP annotations, the state's entity
columns, and what the rules guessed. It answers with the keys of a spec file's
``[tools.hints.<tool>]`` (``kind``, ``intent``, ``pools``, ``samples``, ``confirm``); each key it
gives replaces the rules' guess, and the spec file's own hints still come last, over both.

Every answer is kept in a labels file (beside the spec: ``server.toml`` ->
``server.labels.json``), keyed by a digest of the model name and the prompt. A rerun asks the
LLM only for a tool whose prompt changed (its schema, the state's columns, the rules' guess), so
the same spec, state and labels file give the same tasks with the endpoint down. An answer that
is not such a JSON object, or that names a parameter or a column the tool or the state lacks,
fails in one line before any task is made, and the labels file is written only when every tool
is labelled.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mcp.types import Tool
from pydantic import ValidationError

from gym_mcp.errors import ConfigError
from gym_mcp.specs.schema import ToolHint
from gym_mcp.synth.graph import ToolSpec
from gym_mcp.synth.hints import check_hints
from gym_mcp.synth.llm import ChatEndpoint

__all__ = ["LABELS_VERSION", "ToolLabeler", "labels_file"]

LABELS_VERSION = 1

_PROMPT = """\
You label one tool of an MCP server, so that realistic user requests that need it can be generated.

Tool: {name}
Description: {description}
Input schema: {schema}
MCP annotations: {annotations}
Columns of the entities in the server's state (each with a few values): {columns}
What simple rules guessed: {guess}

Answer with one JSON object and nothing else. Give only the keys you would change:
- "kind": "read" if the tool only looks things up, "write" if it can change the server's state;
- "intent": how a user would ask for this call, with each argument written as {{parameter}};
  a part in [brackets] is kept only when all its parameters are given (for optional ones);
- "pools": {{"parameter": "column"}} for parameters that take the value of an existing entity,
  naming one of the columns above;
- "samples": {{"parameter": [values]}} for parameters that take free values (text, numbers).
"""


def labels_file(spec_file: str | os.PathLike[str] | None, server: str, cache: Path) -> Path:
    """Where the labels of a server's tools are kept.

    Args:
        spec_file: The spec file the server comes from, if any: the labels go beside it.
        server: The server's name (for a bundled server or a composition).
        cache: The cache folder used when there is no spec file.
    """
    if spec_file is not None:
        path = Path(spec_file)
        return path.with_name(path.stem + ".labels.json")
    return cache / "labels" / f"{server}.json"


class ToolLabeler:
    """Labels tools with an LLM, through a labels file that makes reruns deterministic.

    Args:
        endpoint: The chat endpoint that labels (`ChatEndpoint`, temperature 0).
        path: The labels file (see `labels_file`); read if present, written after labelling.

    Attributes:
        asked: Tools whose labels came from the endpoint in this run (the rest from the file).
    """

    def __init__(self, endpoint: ChatEndpoint, path: str | os.PathLike[str]) -> None:
        self.endpoint = endpoint
        self.path = Path(path)
        self.asked: list[str] = []

    def label(
        self,
        tools: Sequence[Tool],
        specs: Sequence[ToolSpec],
        columns: Mapping[str, Sequence[Any]],
    ) -> dict[str, dict[str, Any]]:
        """Labels for the inferred tools among ``specs``, as spec-file hints by tool name.

        Args:
            tools: The tools as the agent sees them, in the order of ``specs``.
            specs: Their specs after rule-based inference (tools with ``inferred`` are labelled).
            columns: A few values of each entity column of the state.

        Raises:
            ConfigError: An answer is not a JSON object of hint keys, or names a parameter,
                a ``{placeholder}`` or a column that does not exist.
            EndpointError: The endpoint is down or answers with an error.
        """
        where = f"--llm {self.endpoint.url}"
        cached = self._read()
        out: dict[str, dict[str, Any]] = {}
        entries: dict[str, dict[str, Any]] = {}
        for tool, spec in zip(tools, specs, strict=True):
            if not spec.inferred:
                continue
            prompt = _prompt(tool, spec, columns)
            key = hashlib.sha256(f"{self.endpoint.model}\n{prompt}".encode()).hexdigest()[:16]
            entry = cached.get(spec.name)
            if isinstance(entry, dict) and entry.get("key") == key and isinstance(entry.get("label"), dict):
                label = entry["label"]
            else:
                label = _parse(self.endpoint.complete(prompt), spec.name, where)
                self.asked.append(spec.name)
            _check(label, tool, spec, columns, where)
            entries[spec.name] = {"key": key, "label": label}
            if label:
                out[spec.name] = label
        if self.asked or entries.keys() != cached.keys():
            self._write(entries)
        return out

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("version") != LABELS_VERSION:
            return {}
        tools = data.get("tools")
        return tools if isinstance(tools, dict) else {}

    def _write(self, entries: Mapping[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps({"version": LABELS_VERSION, "tools": entries}, indent=1, sort_keys=True) + "\n")
        tmp.replace(self.path)


def _prompt(tool: Tool, spec: ToolSpec, columns: Mapping[str, Sequence[Any]]) -> str:
    annotations = tool.annotations.model_dump(exclude_none=True) if tool.annotations else {}
    shown = {name: [str(v)[:40] for v in list(values)[:3]] for name, values in sorted(columns.items())}
    guess = {"kind": "write" if spec.write else "read", "intent": spec.intent, "pools": dict(spec.pools)}
    return _PROMPT.format(
        name=spec.name,
        description=(tool.description or "(none)").strip(),
        schema=json.dumps(tool.input_schema or {}, sort_keys=True),
        annotations=json.dumps(annotations, sort_keys=True) if annotations else "(none)",
        columns=json.dumps(shown, sort_keys=True, ensure_ascii=False) if shown else "(none)",
        guess=json.dumps(guess, sort_keys=True),
    )


def _parse(answer: str, tool: str, where: str) -> dict[str, Any]:
    """The JSON object in an answer (code fences and words around it are allowed)."""
    start, end = answer.find("{"), answer.rfind("}")
    try:
        data = json.loads(answer[start : end + 1]) if 0 <= start < end else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        shown = " ".join(answer.split())
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise ConfigError(f"{where}: the labels for tool {tool!r} are not a JSON object (the answer: {shown!r})")
    return data


def _check(label: Mapping[str, Any], tool: Tool, spec: ToolSpec, columns: Mapping[str, Any], where: str) -> None:
    """The same checks as a spec file's hint, and every pool a column of the state."""
    try:
        ToolHint.model_validate(label)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(the object)"
        raise ConfigError(f"{where}: the labels for tool {spec.name!r}: {loc}: {first['msg']}") from None
    params = dict((tool.input_schema or {}).get("properties") or {})
    check_hints({spec.name: label}, {spec.name: params}, f"{where}: the labels")
    for param, column in (label.get("pools") or {}).items():
        if column not in columns and f"{spec.part}.{column}" not in columns:
            raise ConfigError(
                f"{where}: the labels for tool {spec.name!r}: pools.{param}: the state has no column {column!r}"
                f" (columns: {', '.join(sorted(columns)[:12]) or 'none'})"
            )
