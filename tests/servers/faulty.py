"""A kit server whose tools misbehave on purpose: the fault tests' subject.

Its tools write and then fail, die after a write, hang before a write, answer with huge or
malformed output, or print garbage on the stdio channel. The process-only faults (dying,
garbage) act only when ``FAULTY_PROCESS=1`` is set (it is, for stdio and HTTP launches), so an
in-process run never kills the test process: there they raise a tool error instead.

``FAULTY_FAIL_STARTS`` names a file holding a number: while it is positive, each start of the
server decrements it and exits at once (a server that cannot come back after a crash).
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path
from typing import Any

from sqlalchemy import Integer, String, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from gym_mcp.servers.kit import ServerKit, ToolError


class Base(DeclarativeBase):
    pass


class Note(Base):
    __tablename__ = "notes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    text: Mapped[str] = mapped_column(String(200))


def seed(db: Session, rng: random.Random) -> None:
    for i in range(1, 4):
        db.add(Note(id=i, text=f"note {i} ({rng.randint(0, 999)})"))


kit = ServerKit("faulty", base=Base, seed=seed, instructions="Notes, with tools that fail on purpose.")


def _in_process_of_its_own() -> bool:
    return os.environ.get("FAULTY_PROCESS") == "1"


def _add(db: Session, text: str) -> Note:
    note = Note(text=text)
    db.add(note)
    db.flush()
    return note


@kit.tool(write=False)
def list_notes(db: Session) -> list[dict[str, Any]]:
    """List all notes, oldest first."""
    return [{"id": n.id, "text": n.text} for n in db.scalars(select(Note).order_by(Note.id))]


@kit.tool(write=True)
def add_note(db: Session, text: str) -> dict[str, Any]:
    """Add a note.

    Args:
        text: The note text.
    """
    note = _add(db, text)
    return {"id": note.id, "text": note.text}


@kit.tool(write=True)
def add_then_fail(db: Session, text: str) -> str:
    """Add a note, then fail (the write must not survive the error).

    Args:
        text: The note text.
    """
    _add(db, text)
    raise ToolError("failed after writing")


@kit.tool(write=True)
def add_then_die(db: Session, text: str) -> str:
    """Add a note, commit it, then kill the server process before answering.

    Args:
        text: The note text.
    """
    _add(db, text)
    db.commit()
    if not _in_process_of_its_own():
        raise ToolError("cannot die in-process")
    os._exit(3)


@kit.tool(write=False)
def die(db: Session) -> str:
    """Kill the server process without writing anything."""
    if not _in_process_of_its_own():
        raise ToolError("cannot die in-process")
    os._exit(4)


@kit.tool(write=True)
def slow_add(db: Session, text: str, seconds: float) -> dict[str, Any]:
    """Wait, then add a note (a call that times out must never write afterwards).

    Args:
        text: The note text.
        seconds: How long to wait before writing.
    """
    time.sleep(seconds)
    note = _add(db, text)
    return {"id": note.id}


@kit.tool(write=False)
def big_result(db: Session, size: int) -> str:
    """Answer with ``size`` characters.

    Args:
        size: Number of characters in the answer.
    """
    return "x" * size


@kit.tool(write=False)
def surrogate(db: Session) -> str:
    """Answer with a lone surrogate inside the text."""
    return "before \ud800 after"


@kit.tool(write=False)
def garbage(db: Session) -> str:
    """Print a line that is not JSON-RPC on the stdio channel, then answer "ok"."""
    if _in_process_of_its_own():
        os.write(sys.stdout.fileno(), b'this is not json-rpc\n{"jsonrpc": 7}\n')
    return "ok"


def _fail_start_if_asked() -> None:
    path = os.environ.get("FAULTY_FAIL_STARTS")
    if not path:
        return
    file = Path(path)
    try:
        left = int(file.read_text().strip() or 0)
    except (OSError, ValueError):
        return
    if left > 0:
        file.write_text(str(left - 1))
        raise SystemExit(5)


if __name__ == "__main__":
    _fail_start_if_asked()
    raise SystemExit(kit.main())
