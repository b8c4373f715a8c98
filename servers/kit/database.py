"""`ServerKit`: a bundled server whose state is a database (SQLAlchemy models, seed data, tools).

A tool is a plain function whose first parameter is the SQLAlchemy session of that call; the
kit opens a session per call, commits on success and rolls back on any error, and serves the
tools through `build_server`. It also makes and seeds the database and runs the server on its
own (`ServerKit.main`). See `gym_mcp.servers.kit` for how to write a whole server.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import date
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from sqlalchemy import Engine, create_engine, event, make_url
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import DeclarativeBase, Session
from sqlalchemy.pool import NullPool, StaticPool
from sqlalchemy.schema import CreateTable

from gym_mcp.servers.kit.http import (
    PortUnavailableError,
    add_token_arguments,
    bearer_auth,
    http_token,
    is_loopback,
    listen_socket,
    serve_http,
    serving_folder,
    url_host,
)
from gym_mcp.servers.kit.registry import CallFn, ToolFn, ToolInfo, ToolRegistry, build_server, to_jsonable

__all__ = ["CALL_LIMIT_S", "DB_URL_ENV", "SeedFn", "ServerKit", "add_serve_arguments", "make_engine"]

CALL_LIMIT_S = 30.0
"""Seconds an in-process tool call's SQL may run before SQLite stops it, unless told otherwise."""

DB_URL_ENV = "GYM_MCP_DB_URL"
"""Environment variable a bundled server reads its database URL from when ``--db`` is absent."""

SeedFn = Callable[[Session, random.Random], None]
"""Fills an empty database: ``seed(session, rng)``, deterministic given the `random.Random`."""


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
        inline: In-process, run the tools on the event loop that serves the call, not in a
            worker thread (a fifth less CPU a step when many sessions share the loop). Only for
            tools whose time is their SQL, which SQLite stops at the call's limit: no sleeps,
            no network, no Python loops longer than their arguments allow. A body that blocks
            here cannot be timed out, and every session on the loop waits for it. The bundled
            servers set it; a server whose tools wait on anything else must not.
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
        inline: bool = False,
    ) -> None:
        self.name = name
        self.inline = inline
        self.base = base
        self.seed_fn = seed
        self.instructions = instructions
        self.today = today
        self._registry = ToolRegistry(name, samples=samples)
        self.samples = self._registry.samples

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
        return self._registry.tool(write=write, name=name, intent=intent, samples=samples, confirm=confirm)

    @property
    def tools(self) -> dict[str, ToolInfo]:
        """The declared tools by name."""
        return self._registry.tools

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
            self._create_schema(engine, existing)
            with Session(engine) as db:
                self.seed_fn(db, random.Random(seed))
                db.commit()
            return True
        finally:
            if not isinstance(database, sqlite3.Connection):  # disposing would close a shared connection
                engine.dispose()

    def _create_schema(self, engine: Engine, existing: set[str]) -> None:
        """Create the tables not in ``existing``, each with its indexes by name: the same pages in every process.

        ``metadata.create_all`` creates a table's indexes in the order of a set of objects,
        which differs from process to process, so the same seed gave databases whose indexes
        sat at swapped pages. Content and fingerprints were equal, but a connection that had
        read one layout could read the other through its cached schema (see
        `SQLiteState.restore`).
        """
        with engine.begin() as conn:
            for table in self.base.metadata.sorted_tables:
                if table.name in existing:  # as create_all does: what is there stays
                    continue
                conn.execute(CreateTable(table))
                for index in sorted(table.indexes, key=lambda i: str(i.name)):
                    index.create(conn)

    def check_database(self, url: str) -> None:
        """Refuse, in one line and before anything is written, a database this server cannot serve.

        The URL must parse; an SQLite file must be an SQLite database (or empty, or not there yet
        in a folder that takes new files); and a database that holds tables must hold exactly this
        server's (another server's database is never added to nor served as this one's).

        Raises:
            ValueError: What is wrong, naming the URL or the file.
        """
        from sqlalchemy.exc import ArgumentError, SQLAlchemyError

        try:
            parsed = make_url(url)
        except ArgumentError:
            raise ValueError(f"--db {url!r} is not a database URL (e.g. sqlite:///{self.name}.db)") from None
        path = parsed.database if parsed.get_backend_name() == "sqlite" else None
        if path and path != ":memory:" and not path.startswith("file:"):
            _check_sqlite_file(path)
            if not os.path.exists(path) or os.path.getsize(path) == 0:
                return  # a new database: nothing in it to be another server's (and nothing made yet)
        try:
            engine = create_engine(parsed, poolclass=NullPool)
            try:
                existing = {t for t in sa_inspect(engine).get_table_names() if not t.startswith("sqlite_")}
            finally:
                engine.dispose()
        except SQLAlchemyError as exc:
            reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
            raise ValueError(f"--db {parsed.render_as_string(hide_password=True)}: cannot read it ({reason})") from None
        wanted = set(self.base.metadata.tables)
        if existing and existing != wanted:
            theirs = sorted(existing - wanted) or sorted(wanted - existing)
            what = "tables this server does not have" if existing - wanted else "only some of this server's tables"
            raise ValueError(
                f"--db {parsed.render_as_string(hide_password=True)} is not a {self.name} database: it holds "
                f"{what} ({', '.join(theirs[:6])}{', ...' if len(theirs) > 6 else ''}); nothing was written"
            )

    def create_server(
        self,
        database: str | sqlite3.Connection | Engine,
        *,
        token: str | None = None,
        call_limit: Callable[[], float] | None = None,
    ) -> MCPServer:
        """Build a live MCP server bound to one database.

        Each call runs in a worker thread, as the SDK runs any blocking tool, except on an open
        `sqlite3.Connection` (in-process use) of a kit made with ``inline=True``: there it runs
        on the event loop serving the call. On a `sqlite3.Connection`, SQLite stops a call's SQL
        once its time limit passes (see `_connection_call`).

        Args:
            database: A SQLAlchemy URL, an open `sqlite3.Connection` (in-process use) or an
                `Engine` (see `make_engine`).
            token: A bearer token every HTTP request must carry (see `bearer_auth`); None for
                none. Only the HTTP transport checks it.
            call_limit: For a `sqlite3.Connection`: gives the seconds a call may take, read at
                each call (the gym passes its current call timeout); None: `CALL_LIMIT_S`.

        Returns:
            An `MCPServer` exposing the declared tools, ready for any transport.
        """
        tools = self._registry.tools.values()
        inline = self.inline and isinstance(database, sqlite3.Connection)
        if isinstance(database, sqlite3.Connection):
            reads = frozenset(info.fn for info in tools if not info.write)
            call = _connection_call(database, reads, call_limit or (lambda: CALL_LIMIT_S))
        else:
            call = _session_call(make_engine(database))
        return build_server(
            self.name,
            tools=tools,
            call=call,
            instructions=self.instructions or None,
            auth=bearer_auth(token) if token is not None else None,
            inline=inline,
        )

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
                if token is None and not is_loopback(host):
                    print(
                        f"{self.name}: warning: anyone who can reach {host}:{port} can call every tool", file=sys.stderr
                    )
                print(
                    f"{self.name}: serving MCP at http://{url_host(host)}:{port}/mcp ({guard}; db {shown})",
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
            self.check_database(url)
            self.init_database(url, seed=seed)
            yield url, ""
            return
        with serving_folder(self.name) as folder:
            url = f"sqlite:///{folder / f'{self.name}.db'}"
            self.init_database(url, seed=seed)
            yield url, f"fresh from seed {seed}, removed on exit; --db URL keeps one"


def _check_sqlite_file(path: str) -> None:
    """An SQLite database file, an empty one, or a new one in a folder that takes new files."""
    import tempfile

    if os.path.isdir(path):
        raise ValueError(f"--db: {path} is a folder, not an SQLite database file")
    if os.path.exists(path):
        try:
            with open(path, "rb") as f:
                head = f.read(16)
        except OSError as exc:
            raise ValueError(f"--db: cannot read {path} ({exc.strerror or exc})") from None
        if head and head != b"SQLite format 3\x00":
            raise ValueError(f"--db: {path} is not an SQLite database (a file of another kind is there)")
        if not os.access(path, os.W_OK):
            raise ValueError(f"--db: {path} is not writable")
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"--db: the folder {folder} of {path} does not exist")
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".gym-mcp-write-check-")
    except OSError as exc:
        raise ValueError(f"--db: cannot make {path} ({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(probe)


def _sqlite_path(url: str) -> str:
    """The file of a ``sqlite:///`` URL (the URL itself for anything else)."""
    database = make_url(url).database
    return database if make_url(url).get_backend_name() == "sqlite" and database else url


def _session_call(engine: Engine) -> CallFn:
    """How a database tool runs: in a session of its own, committed on success, rolled back on any error."""

    def call(fn: ToolFn, kwargs: dict[str, Any]) -> Any:
        with Session(engine) as db:
            try:
                result = fn(db, **kwargs)
                db.commit()
            except BaseException:
                db.rollback()
                raise
        return to_jsonable(result)

    return call


def _connection_call(conn: sqlite3.Connection, reads: frozenset[ToolFn], limit: Callable[[], float]) -> CallFn:
    """How a tool runs on an in-process database: in one transaction, its SQL bounded by SQLite.

    Each call runs in a transaction begun on the raw connection (it is in autocommit mode): a
    write's is committed on success, and anything else is rolled back (an error; a read, which
    keeps nothing). Begun there rather than through SQLAlchemy's ``begin`` event (as
    `make_engine` does for other callers), a read costs a quarter less. A tool declared
    ``write=False`` that wrote fails, its writes undone (``PRAGMA query_only`` would refuse
    them before they happen, but changing it makes SQLite prepare every statement again: +50 us
    a call).

    SQLite's progress handler stops a call's SQL once ``limit()`` seconds have passed, and the
    call fails with a `ToolError` that says so, having changed nothing: a kit made with
    ``inline=True`` runs its bodies on the event loop, where no timeout can stop them. A
    bundled tool's Python is bounded by its arguments (`check_limit`); its SQL is what an
    argument can make long.
    """
    engine = create_engine("sqlite://", creator=lambda: conn, poolclass=StaticPool)

    def call(fn: ToolFn, kwargs: dict[str, Any]) -> Any:
        seconds = limit()
        deadline = time.monotonic() + seconds
        conn.set_progress_handler(lambda: time.monotonic() > deadline, 1000)
        changes = conn.total_changes
        try:
            with Session(engine) as db:
                db.connection()  # checked out before BEGIN: the first checkout ends with a rollback
                conn.execute("BEGIN")
                try:
                    result = fn(db, **kwargs)
                    if fn not in reads:
                        db.commit()
                finally:
                    conn.set_progress_handler(None, 0)  # or it would stop the rollback too
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
        except (sqlite3.OperationalError, OperationalError):
            if time.monotonic() > deadline:
                raise ToolError(
                    f"the call ran past its {seconds:g}s limit and was stopped; it changed nothing"
                ) from None
            raise
        finally:
            conn.set_progress_handler(None, 0)
        if fn in reads and conn.total_changes != changes:
            raise ToolError(f"{fn.__name__} is declared read-only but wrote; its writes were undone")
        return to_jsonable(result)

    return call


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options every bundled server accepts (`--transport`, `--db`, `--seed`, ...)."""
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio", help="MCP transport")
    parser.add_argument("--db", default=None, help=f"SQLAlchemy database URL (default: ${DB_URL_ENV})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated data for a new database")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    add_token_arguments(parser)
