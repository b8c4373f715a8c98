"""Tools, declared and served: `ToolRegistry` and `build_server`, which every bundled server uses.

A tool is a plain function whose first parameter is what one call acts on (a database session,
a workspace folder), given by the server, never by the model. Its docstring is what the model
reads: the text becomes the tool description and each ``Args:`` entry that parameter's
description in the JSON schema. `ToolRegistry` checks and records the declarations
(`ToolInfo`); `build_server` turns them into a live `MCPServer`, given how a call runs its body
(`CallFn`: a session per call for `ServerKit`, a lock on the folder for the filesystem server).

A result goes out twice, as the MCP spec asks of a tool with structured output: as JSON text
(what the gym and the model read) and, for an object or a list, as ``structuredContent`` (see
`tool_result`).
"""

from __future__ import annotations

import functools
import importlib.metadata
import inspect
import json
import re
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, ContentBlock, TextContent, ToolAnnotations
from pydantic import Field

__all__ = [
    "CallFn",
    "ToolFn",
    "ToolInfo",
    "ToolRegistry",
    "bind_tool",
    "build_server",
    "server_version",
    "split_docstring",
    "to_jsonable",
    "tool_meta",
    "tool_result",
]

ToolFn = Callable[..., Any]
"""A tool function: its first parameter is what the call acts on, the others are the tool's arguments."""

CallFn = Callable[[ToolFn, dict[str, Any]], Any]
"""Runs one tool call: ``call(fn, arguments)`` calls ``fn(target, **arguments)`` and returns its result, JSON-ready."""


@dataclass(frozen=True)
class ToolInfo:
    """What the kit knows about one tool.

    Attributes:
        name: The tool name the model calls.
        fn: The implementation; its first parameter is what the call acts on (the SQLAlchemy
            session of a database server, the workspace of the folder server).
        write: True when the tool may change state (a WRITE tool), False for READ tools.
        intent: How a user would ask for this call, for task synthesis, e.g.
            ``"Deposit ${amount} into account {account_id}[ with the note '{description}']"``:
            ``{param}`` is the argument's value and a ``[...]`` part is kept only when all of
            its parameters are given.
        samples: Plausible literal values per parameter (amounts, titles, dates) for synthesis;
            ids are drawn from the live state instead.
        confirm: When the user must confirm a call first (it cannot be undone): ``"always"``, or
            a threshold on a number argument such as ``"amount >= 100"``; None when never.
        pools: For synthesis, the entity pool a parameter's values come from when it is not the
            parameter's own name, e.g. ``{"path": "text_file"}`` (a folder server's ``read_file``
            reads text files, its ``list_directory`` folders).
    """

    name: str
    fn: ToolFn
    write: bool
    intent: str | None = None
    samples: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    confirm: str | None = None
    pools: Mapping[str, str] = field(default_factory=dict)


_CONFIRM_RULE = re.compile(r"^(always|(\w+) >= (\d+(?:\.\d+)?))$")


class ToolRegistry:
    """The tools of one server, in the order they were declared (the order the model sees them).

    Args:
        name: Server name, for error messages.
        samples: Literal values per parameter name for every tool that has a parameter of that
            name and gives no samples of its own for it (see `ToolInfo.samples`).
    """

    def __init__(self, name: str, *, samples: Mapping[str, Sequence[Any]] | None = None) -> None:
        self.name = name
        self.samples = {k: tuple(v) for k, v in (samples or {}).items()}
        self._tools: dict[str, ToolInfo] = {}

    def tool(
        self,
        *,
        write: bool,
        name: str | None = None,
        intent: str | None = None,
        samples: Mapping[str, Sequence[Any]] | None = None,
        confirm: str | None = None,
        pools: Mapping[str, str] | None = None,
    ) -> Callable[[ToolFn], ToolFn]:
        """Register a tool. The decorated function's first parameter receives what the call acts on.

        Args:
            write: True when the tool may change state.
            name: Tool name; defaults to the function name.
            intent: A user-request template for task synthesis (see `ToolInfo.intent`).
            samples: Literal values per parameter for task synthesis (see `ToolInfo.samples`); for
                a parameter they name they replace the registry's own samples.
            confirm: When a user must confirm the call first (see `ToolInfo.confirm`).
            pools: The entity pool per parameter, for synthesis (see `ToolInfo.pools`).

        Returns:
            A decorator that registers the function and returns it unchanged.

        Raises:
            ValueError: The declaration is inconsistent (a second tool of that name, no
                docstring, samples, pools or an intent naming a parameter the function lacks, a
                malformed confirmation rule).
        """

        def decorator(fn: ToolFn) -> ToolFn:
            tool_name = name or fn.__name__
            if tool_name in self._tools:
                raise ValueError(f"{self.name}: tool {tool_name!r} is declared twice")
            if not fn.__doc__:
                raise ValueError(f"{self.name}.{tool_name}: a tool needs a docstring (the model reads it)")
            params = list(inspect.signature(fn).parameters)[1:]
            unknown = sorted((set(samples or {}) | set(pools or {})) - set(params))
            if unknown:
                raise ValueError(f"{self.name}.{tool_name}: samples or pools for unknown parameter(s) {unknown}")
            if intent is not None:
                missing = sorted(set(re.findall(r"\{(\w+)\}", intent)) - set(params))
                if missing:
                    raise ValueError(f"{self.name}.{tool_name}: intent names unknown parameter(s) {missing}")
            given = {**self.samples, **{k: tuple(v) for k, v in (samples or {}).items()}}
            frozen = {p: given[p] for p in params if p in given}  # in parameter order
            if confirm is not None:
                rule = _CONFIRM_RULE.match(confirm)
                if rule is None or (rule.group(2) and rule.group(2) not in params):
                    raise ValueError(f"{self.name}.{tool_name}: confirm must be 'always' or '<number parameter> >= N'")
            self._tools[tool_name] = ToolInfo(tool_name, fn, write, intent, frozen, confirm, dict(pools or {}))
            return fn

        return decorator

    @property
    def tools(self) -> dict[str, ToolInfo]:
        """The declared tools by name."""
        return dict(self._tools)


def to_jsonable(value: Any) -> Any:
    """Convert ORM-friendly values (dates, decimals, tuples) into JSON-ready ones."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in value]
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    return value


_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$")
_SECTION_HEADER = re.compile(r"^\s*(Returns|Raises|Yields|Examples?|Notes?):\s*$")
_ARG_LINE = re.compile(r"^(\s*)(\w+)(?:\s*\([^)]*\))?:\s*(.*)$")


def split_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {param: description})."""
    lines = inspect.cleandoc(doc).splitlines()
    description: list[str] = []
    params: dict[str, str] = {}
    section = "text"
    current: str | None = None
    arg_indent: int | None = None
    for line in lines:
        if _ARGS_HEADER.match(line):
            section, current, arg_indent = "args", None, None
            continue
        if _SECTION_HEADER.match(line):
            section = "other"
            description.append(line)
            continue
        if section == "args":
            m = _ARG_LINE.match(line)
            indent = len(line) - len(line.lstrip())
            if m and (arg_indent is None or indent <= arg_indent):
                arg_indent = indent
                current = m.group(2)
                params[current] = m.group(3).strip()
            elif current and line.strip():
                params[current] = (params[current] + " " + line.strip()).strip()
            elif not line.strip():
                continue
            else:
                section = "text"
                description.append(line)
            continue
        description.append(line)
    return "\n".join(description).strip(), params


def tool_meta(info: ToolInfo) -> dict[str, Any]:
    """Tool metadata served to clients: READ/WRITE, the synthesis hints and the confirmation rule when declared."""
    meta: dict[str, Any] = {"gym_mcp/kind": "write" if info.write else "read"}
    if info.intent:
        meta["gym_mcp/intent"] = info.intent
    if info.samples:
        meta["gym_mcp/samples"] = to_jsonable(dict(info.samples))
    if info.confirm:
        meta["gym_mcp/confirm"] = info.confirm
    if info.pools:
        meta["gym_mcp/pools"] = dict(info.pools)
    return meta


def tool_result(value: Any) -> CallToolResult:
    """A tool's JSON-ready return value as the client gets it: JSON text, and structured content for data.

    The text is compact JSON, byte for byte what the gym and the synthesizer read. An object
    is also sent as ``structuredContent``; a list as ``{"result": [...]}``, because MCP
    requires structured content to be an object and that is the wrapping the SDK's
    `MCPServer` gives a tool whose output is not one. A string, number, boolean or null is
    no structured data: it goes as text only. The structured content is read back from the
    text, so that it equals ``json.loads(text)`` exactly (keys as JSON writes them, a lone
    surrogate replaced the same way).

    Args:
        value: What the tool returned, made JSON-ready (see `to_jsonable`).

    Returns:
        The ``tools/call`` result.
    """
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    # A lone surrogate cannot be written as UTF-8 (over stdio it would kill the server).
    text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    content: list[ContentBlock] = [TextContent(type="text", text=text)]
    if isinstance(value, dict):
        return CallToolResult(content=content, structured_content=json.loads(text))
    if isinstance(value, list | tuple):
        return CallToolResult(content=content, structured_content={"result": json.loads(text)})
    return CallToolResult(content=content)


def bind_tool(info: ToolInfo, call: CallFn, *, inline: bool = False) -> tuple[Callable[..., Any], str]:
    """Wrap a tool function as an MCP handler: its schema, a worker thread per call, the result out.

    Args:
        info: The tool.
        call: Runs the body with its first argument (see `CallFn`).
        inline: Run the body on the event loop serving the call, not in a worker thread (see
            `build_server`).

    Returns:
        ``(handler, description)``: an async handler whose signature is the tool's arguments
        (the first parameter dropped, each annotated with its ``Args:`` text), and the
        description the model reads.
    """
    fn = info.fn
    description, param_docs = split_docstring(fn.__doc__ or "")
    hints = typing.get_type_hints(fn, include_extras=True)
    sig = inspect.signature(fn)
    params = []
    for p in list(sig.parameters.values())[1:]:  # drop what the call acts on
        annotation = hints.get(p.name, Any)
        doc = param_docs.get(p.name)
        if doc:
            annotation = Annotated[annotation, Field(description=doc)]
        params.append(p.replace(annotation=annotation))

    def run(kwargs: dict[str, Any]) -> CallToolResult:
        return tool_result(call(fn, kwargs))

    if inline:

        @functools.wraps(fn)
        async def handler(**kwargs: Any) -> CallToolResult:
            return run(kwargs)

    else:

        @functools.wraps(fn)
        async def handler(**kwargs: Any) -> CallToolResult:
            # A cancelled call (timeout) returns at once; a hung body is left to finish in its thread.
            return await anyio.to_thread.run_sync(run, kwargs, abandon_on_cancel=True)

    del handler.__wrapped__  # the schema comes from the signature below, not from fn
    # The return annotation stays `str`: with `structured_output=False` the SDK publishes no
    # output schema whatever it says, and a `CallToolResult` returned is sent as it is.
    handler.__signature__ = sig.replace(parameters=params, return_annotation=str)  # type: ignore[attr-defined]
    return handler, description


@functools.cache
def server_version() -> str:
    """The version the bundled servers give in their ``serverInfo``: the installed gym-mcp's.

    Read from the package metadata, not from ``gym_mcp.__version__``: importing the ``gym_mcp``
    package from here would tie the servers to the whole gym in the import graph (its
    ``register_envs`` imports Gymnasium), which the servers' walls forbid.
    """
    try:
        return importlib.metadata.version("gym-mcp")
    except importlib.metadata.PackageNotFoundError:  # a source tree on sys.path, not installed
        return "0+unknown"


def build_server(
    name: str,
    *,
    tools: Iterable[ToolInfo],
    call: CallFn,
    instructions: str | None = None,
    auth: Mapping[str, Any] | None = None,
    inline: bool = False,
) -> MCPServer:
    """Build a live MCP server over some tools.

    Args:
        name: The server name clients see (``serverInfo.name``).
        tools: The tools, in the order the model sees them.
        call: Runs one call's body (see `CallFn`).
        instructions: Text sent to clients at initialization; None for none.
        auth: The SDK's auth options (see `gym_mcp.servers.kit.http.bearer_auth`); None for none.
        inline: Run each body on the event loop that serves the call instead of in a worker
            thread. Only for a ``call`` that bounds its own time (the kit's in-process SQL, which
            SQLite's progress handler stops): a timeout cannot stop a body that holds the loop,
            and every session on that loop waits for it. It saves the thread hop, a fifth of
            an in-process step's CPU when many sessions share one loop.

    Returns:
        An `MCPServer` exposing the tools, ready for any transport.
    """
    server: MCPServer = MCPServer(
        name, instructions=instructions, version=server_version(), log_level="WARNING", **(auth or {})
    )
    for info in tools:
        handler, description = bind_tool(info, call, inline=inline)
        server.add_tool(
            handler,
            name=info.name,
            description=description,
            annotations=ToolAnnotations(
                read_only_hint=not info.write, destructive_hint=info.write, idempotent_hint=not info.write
            ),
            meta=tool_meta(info),
            # No output schema: tools/list stays as it was (the structured content is sent all
            # the same, by `tool_result`), and the SDK does not validate results against one.
            structured_output=False,
        )
    return server
