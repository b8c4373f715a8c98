"""The core of the kit: `ServerKit`, which turns decorated tool functions into a live MCP server.

A tool is a plain function whose first parameter is the SQLAlchemy session of that call; the
kit opens a session per call, commits on success and rolls back on any error. Its docstring is
what the model reads: the text becomes the tool description and each ``Args:`` entry becomes
that parameter's description in the JSON schema. See `gym_mcp.servers.kit` for how to write a
whole server.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import functools
import hmac
import inspect
import ipaddress
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import sys
import tempfile
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from types import FrameType
from typing import Annotated, Any, Literal

import anyio.to_thread
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import AnyHttpUrl, Field
from sqlalchemy import Engine, create_engine, event, make_url
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.orm import DeclarativeBase, Session
from sqlalchemy.pool import NullPool, StaticPool

__all__ = [
    "DB_URL_ENV",
    "TOKEN_ENV",
    "PortUnavailableError",
    "ServerKit",
    "StaticTokenVerifier",
    "ToolError",
    "ToolInfo",
    "add_serve_arguments",
    "add_token_arguments",
    "auth_headers",
    "bearer_auth",
    "http_token",
    "listen_socket",
    "make_engine",
    "serve_http",
    "serving_folder",
    "split_docstring",
    "to_jsonable",
    "tool_meta",
]

DB_URL_ENV = "GYM_MCP_DB_URL"
"""Environment variable a bundled server reads its database URL from when ``--db`` is absent."""

TOKEN_ENV = "GYM_MCP_TOKEN"
"""Environment variable holding the bearer token an HTTP server requires when ``--token`` is absent."""

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


def make_engine(database: str | sqlite3.Connection | Engine) -> Engine:
    """Build the engine a server uses for its database.

    Args:
        database: A SQLAlchemy URL, an open `sqlite3.Connection` (an in-memory database
            shared with the caller, used by in-process servers), or an `Engine`, used as it is
            (e.g. one whose connections go to the database of the MCP session calling).

    Returns:
        An engine that opens a fresh connection per session for URLs (so a restore done from
        outside is seen by the next call), or always hands out the given connection.
    """
    if isinstance(database, Engine):
        return database
    if isinstance(database, sqlite3.Connection):
        conn = database
        engine = create_engine("sqlite://", creator=lambda: conn, poolclass=StaticPool)
        # A connection in autocommit mode (isolation_level=None, as gym-mcp's states open them)
        # would commit each statement at once, and a rollback would undo nothing: begin each
        # session's transaction explicitly, so a tool that fails leaves no write behind.
        event.listen(engine, "begin", lambda c: c.exec_driver_sql("BEGIN"))
        return engine
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

    def create_server(self, database: str | sqlite3.Connection | Engine, *, token: str | None = None) -> MCPServer:
        """Build a live MCP server bound to one database.

        Args:
            database: A SQLAlchemy URL, an open `sqlite3.Connection` (in-process use) or an
                `Engine` (see `make_engine`).
            token: A bearer token every HTTP request must carry (see `bearer_auth`); None for
                none. Only the HTTP transport checks it.

        Returns:
            An `MCPServer` exposing the declared tools, ready for any transport.
        """
        engine = make_engine(database)
        auth = bearer_auth(token) if token is not None else {}
        server: MCPServer = MCPServer(self.name, instructions=self.instructions or None, log_level="WARNING", **auth)
        for info in self._tools.values():
            handler, description = self._bind(info, engine)
            server.add_tool(
                handler,
                name=info.name,
                description=description,
                annotations=ToolAnnotations(
                    read_only_hint=not info.write, destructive_hint=info.write, idempotent_hint=not info.write
                ),
                meta=tool_meta(info),
                structured_output=False,
            )
        return server

    def _bind(self, info: ToolInfo, engine: Engine) -> tuple[Callable[..., Any], str]:
        """Wrap a tool function: session per call, commit or roll back, JSON text out."""
        fn = info.fn
        description, param_docs = split_docstring(fn.__doc__ or "")
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
            text = json.dumps(to_jsonable(result), separators=(",", ":"), ensure_ascii=False)
            # A lone surrogate cannot be written as UTF-8 (over stdio it would kill the server).
            return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")

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
        try:
            return self.serve_args(args)
        except ValueError as exc:
            parser.error(str(exc))
        except PortUnavailableError as exc:  # one line, before anything said it was serving
            print(f"{parser.prog}: error: {exc}", file=sys.stderr)
            return 1

    def serve_args(self, args: argparse.Namespace) -> int:
        """Serve as the arguments of `add_serve_arguments` say (the token checked first).

        Returns:
            The process exit status.

        Raises:
            ValueError: The token is malformed, or missing for a non-loopback host.
            PortUnavailableError: HTTP only: the port is in use or the address cannot be bound.
        """
        token = None
        if args.transport == "http":
            token = http_token(args.token, host=args.host, allow_no_token=args.allow_no_token)
        return self.serve(
            transport=args.transport,
            db=args.db,
            seed=args.seed,
            host=args.host,
            port=args.port,
            token=token,
            allow_no_token=args.allow_no_token,
        )

    def serve(
        self,
        *,
        transport: Literal["stdio", "http"] = "stdio",
        db: str | None = None,
        seed: int = 0,
        host: str = "127.0.0.1",
        port: int = 8000,
        token: str | None = None,
        allow_no_token: bool = False,
    ) -> int:
        """Initialise the database if needed and serve until the transport closes.

        Over HTTP the port is bound first: when it cannot be (another process holds it), the
        error comes before any database is made and before the line that says it is serving.

        Args:
            transport: ``"stdio"`` or ``"http"`` (streamable HTTP at ``/mcp``).
            db: SQLAlchemy URL; defaults to ``$GYM_MCP_DB_URL``, then a fresh database made from
                ``seed`` in a private temporary folder, removed when the server exits (its path
                is printed on stderr). The current folder is never written.
            seed: Seed of the generated data when the database is new.
            host: Interface to bind for HTTP (loopback unless told otherwise).
            port: Port for HTTP.
            token: Bearer token every HTTP request must carry (see `http_token`); defaults to
                ``$GYM_MCP_TOKEN``, and to none when that is unset or empty. stdio ignores it.
            allow_no_token: Serve HTTP on a non-loopback ``host`` without a token.

        Returns:
            The process exit status.

        Raises:
            ValueError: The token is malformed, or ``host`` is not loopback and there is no
                token nor ``allow_no_token``.
            PortUnavailableError: HTTP only: the port is in use or the address cannot be bound.
        """
        if transport == "stdio":
            with self._database(db, seed) as (url, fresh):
                if fresh:
                    print(f"{self.name}: database {_sqlite_path(url)} ({fresh})", file=sys.stderr, flush=True)
                self.create_server(url).run("stdio")
            return 0
        token = http_token(token, host=host, allow_no_token=allow_no_token)
        sock = listen_socket(host, port)
        try:
            with self._database(db, seed) as (url, fresh):
                server = self.create_server(url, token=token)
                app = server.streamable_http_app(json_response=True, stateless_http=False, host=host)
                shown = f"{_sqlite_path(url)}, {fresh}" if fresh else make_url(url).render_as_string(hide_password=True)
                guard = "bearer token required" if token is not None else "no token"
                if token is None and not _is_loopback(host):
                    print(
                        f"{self.name}: warning: anyone who can reach {host}:{port} can call every tool", file=sys.stderr
                    )
                print(
                    f"{self.name}: serving MCP at http://{_url_host(host)}:{port}/mcp ({guard}; db {shown})",
                    file=sys.stderr,
                    flush=True,
                )
                serve_http(app, sock)
        finally:
            sock.close()
        return 0

    @contextlib.contextmanager
    def _database(self, db: str | None, seed: int) -> Iterator[tuple[str, str]]:
        """The database URL to serve, created and seeded if new, and how it came to be.

        Yields ``(url, fresh)``: ``fresh`` is empty for ``db`` or ``$GYM_MCP_DB_URL``, else a few
        words about the private database made for this run (removed when the block ends).
        """
        url = db or os.environ.get(DB_URL_ENV)
        if url:
            self.init_database(url, seed=seed)
            yield url, ""
            return
        with serving_folder(self.name) as folder:
            url = f"sqlite:///{folder / f'{self.name}.db'}"
            self.init_database(url, seed=seed)
            yield url, f"fresh from seed {seed}, removed on exit; --db URL keeps one"


def _sqlite_path(url: str) -> str:
    """The file of a ``sqlite:///`` URL (the URL itself for anything else)."""
    database = make_url(url).database
    return database if make_url(url).get_backend_name() == "sqlite" and database else url


def _url_host(host: str) -> str:
    """``host`` as it goes in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


# -- serving over HTTP -----------------------------------------------------------------------


class PortUnavailableError(OSError):
    """The HTTP port cannot be listened on: another process holds it, or the address is not this host's."""


def listen_socket(host: str, port: int) -> socket.socket:
    """Bind ``host:port`` and listen, so that a server says it is serving only once it is.

    The socket is made as uvicorn makes its own (IPv6 when ``host`` holds a colon, and
    ``SO_REUSEADDR``, so a server restarted at once can bind while old connections linger);
    `serve_http` hands it to uvicorn.

    Args:
        host: The interface (``127.0.0.1``, ``::1``, ``0.0.0.0``, a name).
        port: The TCP port.

    Returns:
        The bound, listening socket; the caller closes it.

    Raises:
        PortUnavailableError: The port is in use, or the address cannot be bound (one line
            that says which and why).
    """
    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    # IPPROTO_TCP, not the default 0: asyncio sets TCP_NODELAY only on sockets whose proto says
    # TCP, and accepted connections inherit it. Without it every response waited ~40 ms for the
    # client's delayed ACK (Nagle), 48 ms a call instead of 4 (benchmarks/bench_step.py, http).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((bare, port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortUnavailableError(
                f"port {port} on {host} is already in use; stop what holds it or choose another with --port"
            ) from None
        reason = exc.strerror or str(exc)
        raise PortUnavailableError(f"cannot listen on {_url_host(host)}:{port}: {reason}") from None
    sock.set_inheritable(True)
    return sock


def serve_http(app: Any, sock: socket.socket, *, log_level: str = "warning") -> None:
    """Serve an ASGI app with uvicorn on a socket `listen_socket` bound, until interrupted.

    Args:
        app: The ASGI application (e.g. an MCP server's ``streamable_http_app()``).
        sock: The listening socket.
        log_level: uvicorn's log level.
    """
    import uvicorn

    uvicorn.Server(uvicorn.Config(app, log_level=log_level)).run(sockets=[sock])


_ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def serving_folder(name: str) -> Iterator[Path]:
    """A private temporary folder for one serving run, removed however the run ends.

    It is removed when the block ends (normally or by an exception) and on SIGTERM or SIGHUP:
    the folder goes, then the handler that was there before runs (the default one ends the
    process with the signal, so the exit status is what it would have been).

    Args:
        name: A short name for the folder (the server's), safe for a file name.

    Yields:
        The folder, ``gym-mcp-<pid>-<name>-<random>`` in the temporary directory: named as the
        gym's own scratch folders are, so one left by a killed process (SIGKILL, where nothing
        can run) is swept by the next gym-mcp process that makes one.
    """
    folder = Path(tempfile.mkdtemp(prefix=f"gym-mcp-{os.getpid()}-{name}-"))
    previous: dict[int, Any] = {}

    def remove_then_pass_on(signum: int, frame: FrameType | None) -> None:
        shutil.rmtree(folder, ignore_errors=True)
        before = previous.get(signum, signal.SIG_DFL)
        signal.signal(signum, before)
        if callable(before):
            before(signum, frame)
        elif before == signal.SIG_DFL:
            os.kill(os.getpid(), signum)

    with contextlib.suppress(ValueError):  # handlers can only be set from the main thread
        for sig in _ENDING_SIGNALS:
            previous[sig] = signal.signal(sig, remove_then_pass_on)
    try:
        yield folder
    finally:
        for sig, before in previous.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(sig, before if before is not None else signal.SIG_DFL)
        shutil.rmtree(folder, ignore_errors=True)


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


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options every bundled server accepts (`--transport`, `--db`, `--seed`, ...)."""
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio", help="MCP transport")
    parser.add_argument("--db", default=None, help=f"SQLAlchemy database URL (default: ${DB_URL_ENV})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated data for a new database")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    add_token_arguments(parser)


def add_token_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--token`` and ``--allow-no-token``, the bearer-token options of HTTP serving."""
    parser.add_argument(
        "--token",
        default=None,
        help=(
            "HTTP only: require 'Authorization: Bearer TOKEN' on every request, others get 401 "
            f"(default: ${TOKEN_ENV}, which unlike the flag stays out of the process list)"
        ),
    )
    parser.add_argument(
        "--allow-no-token",
        action="store_true",
        help="serve HTTP on a non-loopback --host without a token (refused otherwise)",
    )


# -- bearer-token authentication -------------------------------------------------------------

_TOKEN_CHARS = re.compile(r"[\x21-\x7e]+")
_CLIENT_ID = "gym-mcp"


def auth_headers(token: str) -> dict[str, str]:
    """The HTTP headers a client sends to a server that requires ``token``.

    Args:
        token: The server's bearer token.

    Returns:
        ``{"Authorization": "Bearer <token>"}``, e.g. for ``httpx.AsyncClient(headers=...)``.
    """
    return {"Authorization": f"Bearer {token}"}


class StaticTokenVerifier:
    """An MCP `TokenVerifier` that accepts exactly one static bearer token.

    The comparison takes constant time (`hmac.compare_digest`), so a wrong guess reveals
    nothing through timing about how much of it was right.

    Args:
        token: The one token to accept (visible ASCII, no spaces).
    """

    def __init__(self, token: str) -> None:
        self._token = _checked_token(token).encode()

    def __repr__(self) -> str:
        return "StaticTokenVerifier(token=***)"

    async def verify_token(self, token: str) -> AccessToken | None:
        """Accept ``token`` when it is the static token, else None (the request gets 401)."""
        if hmac.compare_digest(token.encode("utf-8", "surrogatepass"), self._token):
            return AccessToken(token=token, client_id=_CLIENT_ID, scopes=[])
        return None


def bearer_auth(token: str) -> dict[str, Any]:
    """The MCP SDK's auth options that make an HTTP server require one static bearer token.

    Pass them to `MCPServer(...)` or to a low-level `Server.streamable_http_app(...)`: the SDK's
    bearer middleware then answers a request to the MCP endpoint that lacks
    ``Authorization: Bearer <token>`` with 401 and a JSON error, before any MCP processing.

    Args:
        token: The token every request must carry.

    Returns:
        ``{"token_verifier": StaticTokenVerifier, "auth": AuthSettings}``.
    """
    # AuthSettings is OAuth-shaped: it requires the URL of an authorization server. Nothing here
    # serves or advertises it (no auth provider, no resource metadata), so a placeholder is inert.
    settings = AuthSettings(issuer_url=AnyHttpUrl("http://127.0.0.1"), resource_server_url=None)
    return {"token_verifier": StaticTokenVerifier(token), "auth": settings}


def http_token(token: str | None, *, host: str, allow_no_token: bool = False) -> str | None:
    """The bearer token an HTTP server on ``host`` requires: ``token``, else ``$GYM_MCP_TOKEN``.

    Args:
        token: The token given (``--token``); it wins over the environment variable.
        host: The interface the server binds.
        allow_no_token: Allow a non-loopback ``host`` without a token.

    Returns:
        The token, or None when neither is set (or the variable is empty).

    Raises:
        ValueError: The token is empty or not visible ASCII, or ``host`` is not loopback and
            there is no token nor ``allow_no_token``: the bundled servers hold write tools,
            which nobody else on the network should reach by accident.
    """
    if token is None:
        token = os.environ.get(TOKEN_ENV) or None
    if token is not None:
        return _checked_token(token)
    if not allow_no_token and not _is_loopback(host):
        raise ValueError(
            f"refusing to serve HTTP on non-loopback host {host!r} without a token: "
            f"set --token or ${TOKEN_ENV}, or pass --allow-no-token"
        )
    return None


def _checked_token(token: str) -> str:
    """``token`` when it can travel in an ``Authorization`` header, else ValueError (never echoing it)."""
    if not token:
        raise ValueError("the token is empty")
    if not _TOKEN_CHARS.fullmatch(token):
        raise ValueError("the token must be visible ASCII characters without spaces")
    return token


def _is_loopback(host: str) -> bool:
    """Whether ``host`` names a loopback interface (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
