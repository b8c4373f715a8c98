"""The kit's shared tool helpers: lookups, ids, bounds, dates, money and column helpers."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime

import pytest
from sqlalchemy import String, create_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from gym_mcp.servers.kit import (
    Finder,
    ToolError,
    check_between,
    check_length,
    check_limit,
    check_status,
    dollars,
    format_dollars,
    next_id,
    next_number,
    norm_id,
    parse_date,
    parse_datetime,
    pick,
    string_id,
    to_cents,
    volatile_timestamp,
)


class Base(DeclarativeBase):
    pass


class _Stamped:
    id: Mapped[str] = string_id(12, sort_order=-1)
    created_at: Mapped[datetime] = volatile_timestamp()


class Widget(_Stamped, Base):
    __tablename__ = "widgets"
    name: Mapped[str] = mapped_column(String(20))


@pytest.fixture
def db() -> Iterator[Session]:
    engine = create_engine("sqlite://")
    Base.metadata.create_all(engine)
    with Session(engine) as session:
        yield session


widget = Finder(Widget, "widget", "WID-1001", "use list_widgets to see them")


# -- ids and lookups ---------------------------------------------------------------------------


def test_norm_id() -> None:
    assert norm_id("  wid-1001 ") == "WID-1001"


def test_finder_loads_by_normalised_id(db: Session) -> None:
    db.add(Widget(id="WID-1001", name="a"))
    assert widget(db, " wid-1001").name == "a"


def test_finder_error_names_example_and_listing_tool(db: Session) -> None:
    with pytest.raises(ToolError) as err:
        widget(db, "wid-9")
    assert str(err.value) == 'Unknown widget id "wid-9". Widget ids look like "WID-1001"; use list_widgets to see them.'


def test_finder_custom_message_field_and_no_normalising(db: Session) -> None:
    db.add(Widget(id="WID-1001", name="a"))
    strict = Finder(Widget, "widget", "WID-1001", "ask", message="No {field} {id!r} ({Noun}); {hint}.", normalize=False)
    assert strict(db, "WID-1001").name == "a"
    with pytest.raises(ToolError, match=r"^No widget_id 'wid-1001' \(Widget\); ask\.$"):
        strict(db, "wid-1001")
    with pytest.raises(ToolError, match=r"^No parent_id 'X' "):
        strict(db, "X", "parent_id")


def test_next_id_follows_the_largest_number(db: Session) -> None:
    assert next_number(db, Widget.id, "WID") == 1001
    assert next_id(db, Widget.id, "WID", first=10001) == "WID-10001"
    db.add_all([Widget(id="WID-999", name="a"), Widget(id="WID-1000", name="b")])
    assert next_id(db, Widget.id, "WID") == "WID-1001"  # numeric, not text, order


# -- bounds ------------------------------------------------------------------------------------


def test_check_between_and_limit() -> None:
    assert check_between(15, 15, 480, "duration_minutes") == 15
    assert check_limit(100) == 100
    with pytest.raises(ToolError, match=r"^duration_minutes must be between 15 and 480, got 481\.$"):
        check_between(481, 15, 480, "duration_minutes")
    with pytest.raises(ToolError, match=r"^limit must be between 1 and 50, got 0\.$"):
        check_limit(0, 50)
    with pytest.raises(ToolError, match=r"^limit must be between 1 and 100, got 101$"):
        check_limit(101, end="")


def test_check_length() -> None:
    assert check_length("Fraud", "reason", 3, 200) == "Fraud"
    with pytest.raises(ToolError, match=r"^reason must be 3 to 200 characters, e\.g\. 'Fraud'$"):
        check_length("ab", "reason", 3, 200, ", e.g. 'Fraud'")
    with pytest.raises(ToolError, match=r"^title must be 1 to 3 characters\.$"):
        check_length("abcd", "title", 1, 3, ".")


@dataclass
class _Card:
    status: str


def test_check_status_refuses_listed_statuses() -> None:
    card = _Card("locked")
    check_status(card, {"cancelled": "Card is cancelled."})
    with pytest.raises(ToolError, match=r"^Card is already locked\.$"):
        check_status(card, {"cancelled": "Card is cancelled.", "locked": "Card is already locked."})


# -- dates and times ---------------------------------------------------------------------------


def test_parse_date() -> None:
    assert parse_date(" 2026-01-20 ", "date") == date(2026, 1, 20)
    with pytest.raises(
        ToolError, match=r"""^date '01/20/2026' is not a valid date; use ISO 8601 such as "2026-01-20"\.$"""
    ):
        parse_date("01/20/2026", "date")
    with pytest.raises(ToolError, match=r"^start_date must be a date like 2026-01-15, got 'soon'$"):
        parse_date("soon", "start_date", "{field} must be a date like 2026-01-15, got {value!r}")


def test_parse_datetime() -> None:
    assert parse_datetime("2026-01-20T10:00", "start") == datetime(2026, 1, 20, 10, 0)
    assert parse_datetime("2026-01-20 10:30", "start") == datetime(2026, 1, 20, 10, 30)
    for value, problem in [
        ("2026-01-20", "is not a date-time"),
        ("2026-01-20T25:00", "is not a valid date-time"),
        ("2026-01-20T10:00+01:00", "has a timezone offset"),
        ("2026-01-20T10:00:30", "has seconds"),
    ]:
        with pytest.raises(ToolError, match="^" + re.escape(f"start '{value}' {problem}")):
            parse_datetime(value, "start")


# -- money -------------------------------------------------------------------------------------


def test_dollars_and_format_dollars() -> None:
    assert dollars(123450) == 1234.5
    assert dollars(-1) == -0.01
    assert format_dollars(123450) == "$1,234.50"
    assert format_dollars(-1200) == "-$12.00"


def test_to_cents() -> None:
    assert to_cents(25.5) == 2550
    assert to_cents(1_000_000) == 100_000_000
    with pytest.raises(ToolError, match=r"^amount must be a finite number of dollars"):
        to_cents(math.inf)
    with pytest.raises(ToolError, match=r"^amount must be greater than 0, got -5"):
        to_cents(-5)
    with pytest.raises(ToolError, match=r"^daily_limit 10\.005 has more than 2 decimals"):
        to_cents(10.005, "daily_limit")
    with pytest.raises(ToolError, match=r"^amount \$1,000,000\.01 is over the \$1,000,000\.00 maximum per operation$"):
        to_cents(1_000_000.01)
    with pytest.raises(ToolError, match=r"over the \$10\.00 maximum"):
        to_cents(10.01, maximum=1000)


# -- result shapes -----------------------------------------------------------------------------


def test_pick_keeps_the_given_order() -> None:
    row = Widget(id="WID-1001", name="a")
    assert list(pick(row, "name", "id").items()) == [("name", "a"), ("id", "WID-1001")]
    assert pick(row) == {}


# -- columns -----------------------------------------------------------------------------------


def test_string_id_and_volatile_timestamp_columns() -> None:
    table = Widget.__table__
    assert [c.name for c in table.columns] == ["id", "name", "created_at"]  # sort_order=-1 keeps the id first
    assert table.c.id.primary_key
    assert table.c.id.type.length == 12  # type: ignore[attr-defined]
    assert table.c.created_at.info == {"volatile": True}
    assert not table.c.name.info
