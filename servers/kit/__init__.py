"""A small kit for writing the bundled, stateful MCP servers.

A server is a package that defines only its domain: SQLAlchemy models, a ``seed(db, rng)``
function that fills an empty database deterministically from a `random.Random`, and the tools
with their business rules. The kit does the rest: a session per call (commit on success, roll
back on any error), results as JSON text and structured content, the tool list with schemas,
the database and the command line.

``models.py``: the tables. `string_id` and `volatile_timestamp` declare the common columns;
columns marked volatile (wall-clock times, random tokens) are left out of state fingerprints::

    class Account(Base):
        __tablename__ = "accounts"
        id: Mapped[str] = string_id()
        balance_cents: Mapped[int] = mapped_column(Integer, default=0)
        created_at: Mapped[datetime] = volatile_timestamp()

``tools/``: a `ServerKit` and the tools, one module per area once they outgrow one file. A
tool is a function whose first parameter is the session; its docstring is what the model reads
(the text becomes the description, each ``Args:`` entry that parameter's description). Raise
`ToolError` for an expected failure: the agent gets the message and the episode goes on. The
rules helpers keep the bodies short: `Finder` (load by id, or say which tool lists valid ids),
`next_id`, `check_status` (refuse a status change, with a message per status), `check_limit`,
`check_between`, `check_length`, `parse_date`, `parse_datetime`, `to_cents`, `dollars`,
`format_dollars` and `pick` (some attributes of a row as a result dict). Samples that every tool
with a parameter of that name shares (``limit``, ``amount``) go to the `ServerKit` once, and so
does ``inline=True`` when every tool's time is its SQL (no sleeps, no network): in-process, the
calls then run on the gym's loop without a worker thread, and SQLite stops their SQL at the call
timeout::

    kit = ServerKit("bank", base=Base, seed=seed, instructions="...", samples={"limit": (3, 5, 10)}, inline=True)
    account = Finder(Account, "account", "ACC-1001", "use list_accounts to see valid ones")

    @kit.tool(write=True, intent="Deposit ${amount} into account {account_id}", samples={"amount": (5, 20, 75)})
    def deposit(db: Session, account_id: str, amount: float) -> dict[str, Any]:
        '''Deposit money into an account.

Args:
            account_id: The account to credit, e.g. "ACC-1001".
            amount: Dollars, greater than 0 with at most 2 decimals.
        '''
        acc = account(db, account_id)
        acc.balance_cents += to_cents(amount)
        return {"account_id": acc.id, "balance": dollars(acc.balance_cents)}

``__init__.py`` exposes ``kit``, and ``__main__.py`` runs ``kit.main()``; add the package to
`gym_mcp.servers.BUNDLED`. Every "today" rule uses ``kit.today``, a fixed date, so episodes
replay identically. Snapshots and restores never go through a tool: they act on the database
from outside, so nothing the agent can call reaches them.

The kit's rooms: ``database.py`` (`ServerKit`, a server over a database), ``directory.py``
(`DirectoryKit`, a server over a folder), ``registry.py`` (`ToolRegistry` and `build_server`:
tools declared, then served by any MCP transport), ``http.py`` (serving over HTTP, bearer
tokens), ``rules.py`` (the tool helpers), ``columns.py`` (the column helpers) and
``people.py`` (names and unique addresses for seed data). Outside the servers, import the names
from this package, not from its modules.
"""

from __future__ import annotations

from mcp.server.mcpserver.exceptions import ToolError

from gym_mcp.servers.kit import rules
from gym_mcp.servers.kit.columns import string_id, volatile_timestamp
from gym_mcp.servers.kit.database import DB_URL_ENV, ServerKit, add_serve_arguments, make_engine
from gym_mcp.servers.kit.http import (
    SCRATCH_MARKER,
    TOKEN_ENV,
    PortUnavailableError,
    StaticTokenVerifier,
    add_token_arguments,
    auth_headers,
    bearer_auth,
    bearer_token,
    http_token,
    listen_socket,
    marked_folder,
    serve_http,
    serving_folder,
)
from gym_mcp.servers.kit.people import NamePool, unique_email, unique_name
from gym_mcp.servers.kit.registry import ToolInfo, ToolRegistry, build_server, to_jsonable
from gym_mcp.servers.kit.rules import *  # noqa: F403 (the helpers named in rules.__all__)

__all__ = [
    "DB_URL_ENV",
    "SCRATCH_MARKER",
    "TOKEN_ENV",
    "NamePool",
    "PortUnavailableError",
    "ServerKit",
    "StaticTokenVerifier",
    "ToolError",
    "ToolInfo",
    "ToolRegistry",
    "add_serve_arguments",
    "add_token_arguments",
    "auth_headers",
    "bearer_auth",
    "bearer_token",
    "build_server",
    "http_token",
    "listen_socket",
    "make_engine",
    "marked_folder",
    "serve_http",
    "serving_folder",
    "string_id",
    "to_jsonable",
    "unique_email",
    "unique_name",
    "volatile_timestamp",
]
__all__ += rules.__all__
