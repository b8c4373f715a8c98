"""The server kit: schemas from docstrings, READ/WRITE tags, volatile columns, DB from env var."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from sqlalchemy.orm import Session

from gym_mcp.servers import BUNDLED, get_kit
from gym_mcp.servers.kit import DB_URL_ENV, ServerKit
from tests.conftest import ROOT
from tests.helpers import LiveServer
from tests.servers.counter import kit as counter_kit


def test_docstring_args_become_parameter_descriptions_and_tags() -> None:
    async def go() -> dict:
        async with Client(counter_kit.create_server(_memory_db())) as client:
            return {t.name: t for t in (await client.list_tools()).tools}

    tools = asyncio.run(go())
    add = tools["add_note"]
    assert add.description == "Add a note."
    assert add.input_schema["properties"]["text"]["description"] == "The note text, 1 to 200 characters."
    assert add.annotations is not None
    assert add.annotations.read_only_hint is False
    assert tools["list_notes"].annotations.read_only_hint is True  # type: ignore[union-attr]
    assert add.meta == {"gym_mcp/kind": "write"}
    # the session parameter is injected, never shown to the model
    assert "db" not in add.input_schema["properties"]


def _memory_db() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    counter_kit.init_database(conn)
    return conn


def test_kit_samples_fill_in_for_tools_in_parameter_order() -> None:
    kit = ServerKit("demo", base=counter_kit.base, seed=counter_kit.seed_fn, samples={"limit": (3, 5), "amount": (1,)})

    @kit.tool(write=False, samples={"query": ("a",)})
    def find(db: Session, limit: int, query: str) -> list[str]:
        """Find.

        Args:
            db: Session.
            limit: Most rows.
            query: Text.
        """
        return []

    @kit.tool(write=False, samples={"limit": (7,)})
    def top(db: Session, limit: int) -> list[str]:
        """Top.

        Args:
            db: Session.
            limit: Most rows.
        """
        return []

    assert list(kit.tools["find"].samples.items()) == [("limit", (3, 5)), ("query", ("a",))]
    assert dict(kit.tools["top"].samples) == {"limit": (7,)}


def test_volatile_columns_come_from_column_info() -> None:
    assert counter_kit.volatile_columns == {"notes": frozenset({"created_at"})}
    wall_clock = 0
    for name in BUNDLED:
        kit = get_kit(name)
        if not isinstance(kit, ServerKit):  # a folder server (filesystem) has no columns
            continue
        for table in kit.base.metadata.sorted_tables:
            for column in table.columns:  # a column the wall clock fills must be left out of fingerprints
                default = getattr(column.default, "arg", None)
                if callable(default) and getattr(default, "__name__", "") in ("now", "utcnow", "today"):
                    wall_clock += 1
                    assert column.name in kit.volatile_columns.get(table.name, ()), f"{name}.{table.name}.{column.name}"
    assert wall_clock >= 10  # the check above is not vacuous


def test_failed_write_rolls_back() -> None:
    server = LiveServer(counter_kit)
    before = server.query("SELECT * FROM notes ORDER BY id")
    assert "no note with id 42" in server.error("delete_note", note_id=42)
    assert server.query("SELECT * FROM notes ORDER BY id") == before


def test_no_tool_can_reach_snapshots() -> None:
    for name in BUNDLED:
        names = set(get_kit(name).tools) - {"restore_from_trash"}  # the filesystem's trash, not a state
        assert not {n for n in names if any(w in n for w in ("snapshot", "restore", "fingerprint", "sql"))}, name


def test_database_url_from_environment_variable(tmp_path: Path) -> None:
    db = tmp_path / "from_env.db"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "tests.servers.counter", "--seed", "5"],
        env={**os.environ, DB_URL_ENV: f"sqlite:///{db}", "PYTHONPATH": str(ROOT)},
        cwd=str(tmp_path),
    )

    async def go() -> None:
        async with Client(stdio_client(params)) as client:
            await client.call_tool("add_note", {"text": "via env"})

    asyncio.run(go())
    rows = sqlite3.connect(db).execute("SELECT text FROM notes ORDER BY id").fetchall()
    assert rows[-1] == ("via env",)
    assert len(rows) == 6
    # same seed -> same data; a different seed -> different data
    other = tmp_path / "seed5.db"
    counter_kit.init_database(f"sqlite:///{other}", seed=5)
    assert sqlite3.connect(other).execute("SELECT text FROM notes ORDER BY id").fetchall() == rows[:-1]


def test_a_database_holding_some_of_the_tables_gets_the_rest_and_the_seed(tmp_path: Path) -> None:
    kit = get_kit("banking")
    conn = sqlite3.connect(tmp_path / "part.db")
    conn.execute(
        "CREATE TABLE customers (id VARCHAR PRIMARY KEY, first_name VARCHAR, last_name VARCHAR, "
        "email VARCHAR, phone VARCHAR, city VARCHAR, customer_since DATE)"
    )
    conn.commit()
    assert kit.init_database(conn, seed=0)  # the table there stays, the others are made, the seed goes in
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == set(kit.base.metadata.tables)
    assert conn.execute("SELECT count(*) FROM customers").fetchone()[0] > 0
    assert not kit.init_database(conn, seed=0)  # all there: nothing is written again
