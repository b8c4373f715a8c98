"""In-process kit tools on the caller's loop: SQLite bounds their SQL, reads keep nothing.

A kit made with ``inline=True`` runs its tools on the event loop that serves the call (no
worker thread). What keeps that safe is checked here through the MCP SDK's own client and
through the gym: a runaway query is stopped at the call's limit (the gym's call timeout) and
leaves nothing behind, a tool declared read-only that writes fails and its write is undone,
and the server goes on answering.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from typing import Any

from mcp import Client
from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from gym_mcp import MCPEnv
from gym_mcp.live.sources import BundledSource
from gym_mcp.servers.kit import ServerKit
from tests.servers.counter import Base, Note, seed

RUNAWAY = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"


def _kit(inline: bool) -> ServerKit:
    kit = ServerKit("runaway", base=Base, seed=seed, inline=inline)

    def add_then_count_forever(db: Session) -> int:
        """Add a note, then count without end (the limit must stop it)."""
        db.add(Note(text="never kept"))
        db.flush()
        return int(db.execute(text(RUNAWAY)).scalar_one())

    def sneaky_read(db: Session) -> str:
        """Declared read-only, but adds a note."""
        db.add(Note(text="sneaky"))
        db.flush()
        return "wrote"

    def which_thread(db: Session) -> int:
        """The id of the thread running this body."""
        return threading.get_ident()

    def count_notes(db: Session) -> int:
        """How many notes there are."""
        return int(db.scalar(select(func.count()).select_from(Note)) or 0)

    def add_note(db: Session, words: str) -> int:
        """Add a note.

        Args:
            words: Its text.
        """
        note = Note(text=words)
        db.add(note)
        db.flush()
        return note.id

    kit.tool(write=True)(add_then_count_forever)
    kit.tool(write=False)(sneaky_read)
    kit.tool(write=False)(which_thread)
    kit.tool(write=False)(count_notes)
    kit.tool(write=True)(add_note)
    return kit


def _memory_db(kit: ServerKit) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    kit.init_database(conn)
    return conn


async def _calls(kit: ServerKit, calls: list[tuple[str, dict[str, Any]]], limit: float = 30.0) -> list[Any]:
    """Results of the calls in order, through the MCP SDK's client: (is_error, text, seconds)."""
    server = kit.create_server(_memory_db(kit), call_limit=lambda: limit)
    out = []
    async with Client(server) as client:
        for name, args in calls:
            start = time.monotonic()
            result = await client.call_tool(name, args)
            text_out = "".join(getattr(block, "text", "") for block in result.content)
            out.append((bool(result.is_error), text_out, time.monotonic() - start))
    return out


def test_an_inline_kit_runs_its_bodies_on_the_loop_and_a_threaded_one_off_it() -> None:
    async def thread_of_body(kit: ServerKit) -> tuple[int, int]:
        [(_, body, _)] = await _calls(kit, [("which_thread", {})])
        return int(body), threading.get_ident()

    body, loop = asyncio.run(thread_of_body(_kit(inline=True)))
    assert body == loop
    body, loop = asyncio.run(thread_of_body(_kit(inline=False)))
    assert body != loop


def test_a_runaway_query_is_stopped_at_the_limit_and_keeps_nothing() -> None:
    for inline in (True, False):
        results = asyncio.run(
            _calls(
                _kit(inline),
                [("add_then_count_forever", {}), ("count_notes", {}), ("add_note", {"words": "after"})],
                limit=0.3,
            )
        )
        (stopped, message, seconds), (_, count, _), (added_error, added, _) = results
        assert stopped and "ran past its 0.3s limit and was stopped; it changed nothing" in message
        assert seconds < 20  # stopped, not run forever (a bound on a hang, not on speed)
        assert count == "5"  # the note added before the query was rolled back
        assert not added_error and added == "6"  # the server goes on answering


def test_a_read_only_tool_that_writes_fails_and_its_write_is_undone() -> None:
    results = asyncio.run(_calls(_kit(inline=True), [("sneaky_read", {}), ("count_notes", {})]))
    (failed, message, _), (_, count, _) = results
    assert failed and "sneaky_read is declared read-only but wrote; its writes were undone" in message
    assert count == "5"


def test_the_gyms_call_timeout_is_the_limit_of_an_inline_call() -> None:
    env = MCPEnv(BundledSource("runaway", "inprocess", kit=_kit(inline=True)), call_timeout=0.4)
    try:
        env.reset(seed=0)
        initial = env.state.fingerprint()
        obs, *_, info = env.step({"name": "add_then_count_forever", "arguments": {}})
        assert "ran past its 0.4s limit" in obs and info["tool_errors"] == 1
        assert env.state.fingerprint() == initial
        obs, *_ = env.step({"name": "add_note", "arguments": {"words": "after"}})
        assert obs == "6"
        assert env.state.fingerprint() != initial
    finally:
        env.close()
