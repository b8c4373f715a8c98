"""Tool schemas: MCP tools in OpenAI function format, and a strict check of call arguments.

The check runs before a call reaches the server, so a malformed call (an unknown argument, a
missing required one, a string where an integer belongs) is counted as *invalid* and answered
with an error observation that says exactly what to fix. It is deliberately strict: servers
often coerce ``"5"`` into ``5``, but a model that sends the wrong type has made a mistake.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from mcp.types import Tool

__all__ = ["check_arguments", "openai_tools"]


def openai_tools(tools: Sequence[Tool]) -> list[dict[str, Any]]:
    """MCP tools as OpenAI function schemas (``{"type": "function", "function": {...}}``)."""
    out = []
    for tool in tools:
        params = dict(tool.input_schema or {"type": "object", "properties": {}})
        params.pop("title", None)
        out.append(
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description or "",
                    "parameters": _strip_titles(params),
                },
            }
        )
    return out


def _strip_titles(schema: Any) -> Any:
    """Drop pydantic's auto-generated ``title`` keys (noise in a prompt)."""
    if isinstance(schema, dict):
        return {k: _strip_titles(v) for k, v in schema.items() if not (k == "title" and isinstance(v, str))}
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


_TYPE_NAMES = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "array": "an array",
    "object": "an object",
    "null": "null",
}


def _is_type(value: Any, type_name: str) -> bool:
    if type_name == "string":
        return isinstance(value, str)
    if type_name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if type_name == "boolean":
        return isinstance(value, bool)
    if type_name == "array":
        return isinstance(value, list)
    if type_name == "object":
        return isinstance(value, dict)
    if type_name == "null":
        return value is None
    return True  # unknown type keyword: do not judge


def _resolve(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        node: Any = root
        for part in ref[2:].split("/"):
            node = node.get(part, {}) if isinstance(node, Mapping) else {}
        return node if isinstance(node, Mapping) else {}
    return schema


def _check_value(value: Any, schema: Mapping[str, Any], root: Mapping[str, Any], where: str) -> str | None:
    schema = _resolve(schema, root)
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            errors = [_check_value(value, opt, root, where) for opt in options if isinstance(opt, Mapping)]
            if any(e is None for e in errors):
                return None
            return errors[0]
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(json.dumps(v) for v in schema["enum"])
        return f"{where} must be one of {allowed}, got {json.dumps(value)}"
    if "const" in schema and value != schema["const"]:
        return f"{where} must be {json.dumps(schema['const'])}"
    type_spec = schema.get("type")
    if type_spec is not None:
        types = type_spec if isinstance(type_spec, list) else [type_spec]
        if not any(_is_type(value, t) for t in types):
            expected = " or ".join(_TYPE_NAMES.get(str(t), str(t)) for t in types)
            return f"{where} must be {expected}, got {json.dumps(value)[:80]}"
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        for i, item in enumerate(value):
            err = _check_value(item, schema["items"], root, f"{where}[{i}]")
            if err:
                return err
    if isinstance(value, dict) and isinstance(schema.get("properties"), Mapping):
        return _check_object(value, schema, root, where)
    return None


def _check_object(
    value: Mapping[str, Any], schema: Mapping[str, Any], root: Mapping[str, Any], where: str
) -> str | None:
    props: Mapping[str, Any] = schema.get("properties") or {}
    required = [r for r in schema.get("required", []) if isinstance(r, str)]
    missing = [r for r in required if r not in value]
    if missing:
        return f"missing required argument(s) {', '.join(repr(m) for m in missing)}" + (
            f" in {where}" if where != "arguments" else ""
        )
    extra_ok = schema.get("additionalProperties", props == {} and "properties" not in schema)
    if props and extra_ok is not True and not isinstance(extra_ok, Mapping):
        unknown = [k for k in value if k not in props]
        if unknown:
            expected = ", ".join(props) or "none"
            return f"unknown argument(s) {', '.join(repr(u) for u in unknown)}; expected: {expected}"
    for key, sub in props.items():
        if key in value and isinstance(sub, Mapping):
            err = _check_value(value[key], sub, root, f"argument {key!r}" if where == "arguments" else f"{where}.{key}")
            if err:
                return err
    return None


def check_arguments(arguments: Any, schema: Mapping[str, Any] | None) -> str | None:
    """Check call arguments against a tool's input schema.

    Args:
        arguments: The arguments the agent sent.
        schema: The tool's JSON schema (``inputSchema``).

    Returns:
        None when the arguments fit, else a one-line description of the first problem.
    """
    if not isinstance(arguments, dict):
        return f"arguments must be a JSON object, got {type(arguments).__name__}"
    if not schema:
        return None
    return _check_object(arguments, schema, schema, "arguments")
