"""Actions: reading tool calls out of what an agent sends, and checking their arguments.

- `parsing`: `ToolCall`, `ParsedAction` and the parsers of model output (Hermes ``<tool_call>``
  tags, bare JSON, OpenAI assistant messages); `parse_action` never raises;
- `schema`: MCP tools as OpenAI function schemas, and `check_arguments` against a tool's schema.
"""

from __future__ import annotations

from gym_mcp.actions.parsing import (
    ParsedAction,
    Parser,
    ToolCall,
    auto_parser,
    hermes_parser,
    json_parser,
    openai_parser,
    parse_action,
)
from gym_mcp.actions.schema import check_arguments, openai_tools

__all__ = [
    "ParsedAction",
    "Parser",
    "ToolCall",
    "auto_parser",
    "check_arguments",
    "hermes_parser",
    "json_parser",
    "openai_parser",
    "openai_tools",
    "parse_action",
]
