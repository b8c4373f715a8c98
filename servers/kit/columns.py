"""Column helpers for the SQLAlchemy models of a bundled server."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, String
from sqlalchemy.orm import Mapped, mapped_column

__all__ = ["string_id", "volatile_timestamp"]


def string_id(length: int = 16, *, sort_order: int = 0) -> Mapped[str]:
    """A human-readable string primary key, e.g. ``"ACC-1001"`` (see `next_id` for new ones).

    Args:
        length: Most characters an id has.
        sort_order: Where the column goes in the table; -1 keeps it first when a mixin declares
            it (mixin columns otherwise follow the class's own).

    Returns:
        The mapped column, to assign in a model's body: ``id: Mapped[str] = string_id()``.
    """
    return mapped_column(String(length), primary_key=True, sort_order=sort_order)


def volatile_timestamp() -> Mapped[datetime]:
    """A wall-clock creation time, left out of state fingerprints (``info={"volatile": True}``).

    Returns:
        The mapped column: ``created_at: Mapped[datetime] = volatile_timestamp()``.
    """
    return mapped_column(DateTime, default=datetime.now, info={"volatile": True})
