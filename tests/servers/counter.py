"""A tiny bundled-style server used by the core tests: a counter, notes, and a tool that hangs."""

from __future__ import annotations

import random
import time
from datetime import datetime
from typing import Any

from sqlalchemy import DateTime, Integer, String, select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from gym_mcp.servers.kit import ServerKit, ToolError


class Base(DeclarativeBase):
    pass


class Note(Base):
    __tablename__ = "notes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    text: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=datetime.now, info={"volatile": True})


def seed(db: Session, rng: random.Random) -> None:
    for i in range(1, 6):
        db.add(Note(id=i, text=f"note {i} ({rng.randint(0, 999)})"))


kit = ServerKit("counter", base=Base, seed=seed, instructions="Notes for tests.")


@kit.tool(write=False)
def list_notes(db: Session, limit: int = 10) -> list[dict[str, Any]]:
    """List notes, oldest first.

    Args:
        limit: Maximum number of notes to return.
    """
    rows = db.scalars(select(Note).order_by(Note.id).limit(limit))
    return [{"id": n.id, "text": n.text} for n in rows]


@kit.tool(write=True)
def add_note(db: Session, text: str) -> dict[str, Any]:
    """Add a note.

    Args:
        text: The note text, 1 to 200 characters.
    """
    if not text or len(text) > 200:
        raise ToolError("text must be 1 to 200 characters")
    note = Note(text=text)
    db.add(note)
    db.flush()
    return {"id": note.id, "text": note.text}


@kit.tool(write=True)
def delete_note(db: Session, note_id: int) -> dict[str, Any]:
    """Delete a note.

    Args:
        note_id: Id of the note to delete.
    """
    note = db.get(Note, note_id)
    if note is None:
        raise ToolError(f"no note with id {note_id}")
    db.delete(note)
    return {"deleted": note_id}


@kit.tool(write=False)
def sleep(db: Session, seconds: float) -> str:
    """Wait for a number of seconds, then answer "done" (used to test timeouts).

    Args:
        seconds: How long to wait.
    """
    time.sleep(seconds)
    return "done"


if __name__ == "__main__":
    raise SystemExit(kit.main())
