"""The core of the kit: `ServerKit`, which turns decorated tool functions into a live MCP server.

A tool is a plain function whose first parameter is the SQLAlchemy session of that call; the
kit opens a session per call, commits on success and rolls back on any error. Its docstring is
what the model reads: the text becomes the tool description and each ``Args:`` entry becomes
that parameter's description in the JSON schema. See `gym_mcp.servers.kit` for how to write a
whole server.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import json
import os
import random
import re
import sqlite3
import sys
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field
from sqlalchemy import Engine, create_engine
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.orm import DeclarativeBase, Session
from sqlalchemy.pool import NullPool, StaticPool

__all__ = [
    "DB_URL_ENV",
    "ServerKit",
    "ToolError",
    "ToolInfo",
    "make_engine",
    "to_jsonable",
]

DB_URL_ENV = "GYM_MCP_DB_URL"
"""Environment variable a bundled server reads its database URL from when ``--db`` is absent."""

ToolFn = Callable[..., Any]
SeedFn = Callable[[Session, random.Random], None]


@dataclass(frozen=True)
class ToolInfo:
    """What the kit knows about one tool.

    Attributes:
        name: The tool name the model calls.
        fn: The implementation; its first parameter is the SQLAlchemy session.
        write: True when the tool may change state (a WRITE tool), False for READ tools.
        intent: How a user would ask for this call, for task synthesis, e.g.
            ``"Deposit ${amount} into account {account_id}[ with the note '{description}']"``:
            ``{param}`` is the argument's value and a ``[...]`` part is kept only when all of
            its parameters are given.
        samples: Plausible literal values per parameter (amounts, titles, dates) for synthesis;
            ids are drawn from the live state instead.
        confirm: When the user must confirm a call first (it cannot be undone): ``"always"``, or
            a threshold on a number argument such as ``"amount >= 100"``; None when never.
    """

    name: str
    fn: ToolFn
    write: bool
    intent: str | None = None
    samples: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    confirm: str | None = None


_CONFIRM_RULE = re.compile(r"^(always|(\w+) >= (\d+(?:\.\d+)?))$")


def make_engine(database: str | sqlite3.Connection) -> Engine:
    """Build the engine a server uses for its database.

    Args:
        database: A SQLAlchemy URL, or an open `sqlite3.Connection` (an in-memory database
            shared with the caller, used by in-process servers).

    Returns:
        An engine that opens a fresh connection per session for URLs (so a restore done from
        outside is seen by the next call), or always hands out the given connection.
    """
    if isinstance(database, sqlite3.Connection):
        conn = database
        return create_engine("sqlite://", creator=lambda: conn, poolclass=StaticPool)
    return create_engine(database, poolclass=NullPool)


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


def _split_docstring(doc: str) -> tuple[str, dict[str, str]]:
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


class ServerKit:
    """One bundled server: its models, seed data and tools.

    Args:
        name: Server name, e.g. ``"banking"``.
        base: The declarative base whose metadata holds the server's tables.
        seed: Fills an empty database; must be deterministic given the `random.Random`.
        instructions: Text sent to clients at initialization (what the server is for).
        today: The server's fixed reference date. Business rules that need "today" use it,
            so that episodes replay identically whatever the wall clock says.
        samples: Literal values per parameter name for every tool that has a parameter of
            that name and gives no samples of its own for it (see `ToolInfo.samples`), e.g.
            ``{"limit": (3, 5, 10, 20)}``.
    """

    def __init__(
        self,
        name: str,
        *,
        base: type[DeclarativeBase],
        seed: SeedFn,
        instructions: str = "",
        today: date = date(2026, 1, 15),
        samples: Mapping[str, Sequence[Any]] | None = None,
    ) -> None:
        self.name = name
        self.base = base
        self.seed_fn = seed
        self.instructions = instructions
        self.today = today
        self.samples = {k: tuple(v) for k, v in (samples or {}).items()}
        self._tools: dict[str, ToolInfo] = {}

    # -- declaring tools -------------------------------------------------------------------

    def tool(
        self,
        *,
        write: bool,
        name: str | None = None,
        intent: str | None = None,
        samples: Mapping[str, Sequence[Any]] | None = None,
        confirm: str | None = None,
    ) -> Callable[[ToolFn], ToolFn]:
        """Register a tool. The decorated function's first parameter receives the session.

        Args:
            write: True when the tool may change state.
            name: Tool name; defaults to the function name.
            intent: A user-request template for task synthesis (see `ToolInfo.intent`).
            samples: Literal values per parameter for task synthesis (see `ToolInfo.samples`); for
                a parameter they name they replace the kit's own samples.
            confirm: When a user must confirm the call first (see `ToolInfo.confirm`).

        Returns:
            A decorator that registers the function and returns it unchanged.
        """

        def decorator(fn: ToolFn) -> ToolFn:
            tool_name = name or fn.__name__
            if tool_name in self._tools:
                raise ValueError(f"{self.name}: tool {tool_name!r} is declared twice")
            if not fn.__doc__:
                raise ValueError(f"{self.name}.{tool_name}: a tool needs a docstring (the model reads it)")
            params = list(inspect.signature(fn).parameters)[1:]
            unknown = sorted(set(samples or {}) - set(params))
            if unknown:
                raise ValueError(f"{self.name}.{tool_name}: samples for unknown parameter(s) {unknown}")
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
            self._tools[tool_name] = ToolInfo(tool_name, fn, write, intent, frozen, confirm)
            return fn

        return decorator

    @property
    def tools(self) -> dict[str, ToolInfo]:
        """The declared tools by name."""
        return dict(self._tools)

    @property
    def volatile_columns(self) -> dict[str, frozenset[str]]:
        """Columns left out of fingerprints, by table: those declared ``info={"volatile": True}``."""
        out: dict[str, frozenset[str]] = {}
        for table in self.base.metadata.sorted_tables:
            cols = frozenset(c.name for c in table.columns if c.info.get("volatile"))
            if cols:
                out[table.name] = cols
        return out

    # -- databases -------------------------------------------------------------------------

    def init_database(self, database: str | sqlite3.Connection, seed: int = 0) -> bool:
        """Create the schema and seed data, unless the database already holds the tables.

        Args:
            database: A SQLAlchemy URL or an open `sqlite3.Connection`.
            seed: Integer seed of the generated data.

        Returns:
            True when the database was created and seeded, False when it already existed.
        """
        engine = make_engine(database)
        try:
            existing = set(sa_inspect(engine).get_table_names())
            wanted = set(self.base.metadata.tables)
            if wanted <= existing:
                return False
            self.base.metadata.create_all(engine)
            with Session(engine) as db:
                self.seed_fn(db, random.Random(seed))
                db.commit()
            return True
        finally:
            if not isinstance(database, sqlite3.Connection):  # disposing would close a shared connection
                engine.dispose()

    def create_server(self, database: str | sqlite3.Connection) -> MCPServer:
        """Build a live MCP server bound to one database.

        Args:
            database: A SQLAlchemy URL or an open `sqlite3.Connection` (in-process use).

        Returns:
            An `MCPServer` exposing the declared tools, ready for any transport.
        """
        engine = make_engine(database)
        server: MCPServer = MCPServer(self.name, instructions=self.instructions or None, log_level="WARNING")
        for info in self._tools.values():
            handler, description = self._bind(info, engine)
            server.add_tool(
                handler,
                name=info.name,
                description=description,
                annotations=ToolAnnotations(
                    read_only_hint=not info.write, destructive_hint=info.write, idempotent_hint=not info.write
                ),
                meta=_tool_meta(info),
                structured_output=False,
            )
        return server

    def _bind(self, info: ToolInfo, engine: Engine) -> tuple[Callable[..., Any], str]:
        """Wrap a tool function: session per call, commit or roll back, JSON text out."""
        fn = info.fn
        description, param_docs = _split_docstring(fn.__doc__ or "")
        hints = typing.get_type_hints(fn, include_extras=True)
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())[1:]  # drop the session
        new_params = []
        for p in params:
            annotation = hints.get(p.name, Any)
            doc = param_docs.get(p.name)
            if doc:
                annotation = Annotated[annotation, Field(description=doc)]
            new_params.append(p.replace(annotation=annotation))

        def run(kwargs: dict[str, Any]) -> str:
            with Session(engine) as db:
                try:
                    result = fn(db, **kwargs)
                    db.commit()
                except BaseException:
                    db.rollback()
                    raise
            return json.dumps(to_jsonable(result), separators=(",", ":"), ensure_ascii=False)

        @functools.wraps(fn)
        async def handler(**kwargs: Any) -> str:
            # A cancelled call (timeout) returns at once; a hung body is left to finish in its thread.
            return await anyio.to_thread.run_sync(run, kwargs, abandon_on_cancel=True)

        del handler.__wrapped__  # the schema comes from the signature below, not from fn
        handler.__signature__ = sig.replace(parameters=new_params, return_annotation=str)  # type: ignore[attr-defined]
        return handler, description

    # -- command line ----------------------------------------------------------------------

    def main(self, argv: Sequence[str] | None = None) -> int:
        """Run this server on its own, for any MCP client.

        Args:
            argv: Command-line arguments (defaults to ``sys.argv[1:]``).

        Returns:
            The process exit status.
        """
        parser = argparse.ArgumentParser(prog=f"gym-mcp serve {self.name}", description=self.instructions)
        add_serve_arguments(parser)
        args = parser.parse_args(argv)
        return self.serve(transport=args.transport, db=args.db, seed=args.seed, host=args.host, port=args.port)

    def serve(
        self,
        *,
        transport: Literal["stdio", "http"] = "stdio",
        db: str | None = None,
        seed: int = 0,
        host: str = "127.0.0.1",
        port: int = 8000,
    ) -> int:
        """Initialise the database if needed and serve until the transport closes.

        Args:
            transport: ``"stdio"`` or ``"http"`` (streamable HTTP at ``/mcp``).
            db: SQLAlchemy URL; defaults to ``$GYM_MCP_DB_URL``, then ``sqlite:///<name>.db``.
            seed: Seed of the generated data when the database is new.
            host: Interface to bind for HTTP (loopback unless told otherwise).
            port: Port for HTTP.

        Returns:
            The process exit status.
        """
        url = db or os.environ.get(DB_URL_ENV) or f"sqlite:///{self.name}.db"
        self.init_database(url, seed=seed)
        server = self.create_server(url)
        if transport == "stdio":
            server.run("stdio")
        else:
            print(
                f"{self.name}: serving MCP at http://{host}:{port}/mcp (db {url})",
                file=sys.stderr,
                flush=True,
            )
            server.run("streamable-http", host=host, port=port, json_response=True, stateless_http=False)
        return 0


def _tool_meta(info: ToolInfo) -> dict[str, Any]:
    """Tool metadata served to clients: READ/WRITE, the synthesis hints and the confirmation rule when declared."""
    meta: dict[str, Any] = {"gym_mcp/kind": "write" if info.write else "read"}
    if info.intent:
        meta["gym_mcp/intent"] = info.intent
    if info.samples:
        meta["gym_mcp/samples"] = to_jsonable(dict(info.samples))
    if info.confirm:
        meta["gym_mcp/confirm"] = info.confirm
    return meta


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options every bundled server accepts (`--transport`, `--db`, `--seed`, ...)."""
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio", help="MCP transport")
    parser.add_argument("--db", default=None, help=f"SQLAlchemy database URL (default: ${DB_URL_ENV})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated data for a new database")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
