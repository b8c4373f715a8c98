"""Checks and conversions every bundled server's tools share: ids, lookups, statuses, bounds, dates, money.

`pick` builds result shapes.

Each helper raises `ToolError` with a message that says what was wrong and how to fix it, so
that a tool body reads as its business rules. Where the servers word a message differently,
the helper takes the wording as an argument (a `str.format` template or a suffix) and the
default is the most common one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, Generic, Protocol, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from sqlalchemy import Integer, cast, func, select
from sqlalchemy.orm import InstrumentedAttribute, Session

__all__ = [
    "MISSING_ROW",
    "Finder",
    "check_between",
    "check_length",
    "check_limit",
    "check_status",
    "dollars",
    "format_dollars",
    "next_id",
    "next_number",
    "norm_id",
    "parse_date",
    "parse_datetime",
    "pick",
    "to_cents",
]

RowT = TypeVar("RowT")

MISSING_ROW = 'Unknown {noun} id "{id}". {Noun} ids look like "{example}"; {hint}.'
"""Default `Finder` message: ``{noun}``, ``{Noun}``, ``{example}``, ``{hint}``, ``{field}`` and ``{id}``."""

# -- ids and lookups ---------------------------------------------------------------------------


def norm_id(value: str) -> str:
    """Normalise an id as a model typed it.

    Args:
        value: The id as given, e.g. ``" acc-1001"``.

    Returns:
        The id without surrounding spaces, in upper case, e.g. ``"ACC-1001"``.
    """
    return value.strip().upper()


@dataclass(frozen=True)
class Finder(Generic[RowT]):
    """Loads a row by id, or raises a `ToolError` that shows a valid id and the tool that lists them.

    Declare one per model, then call it in the tools::

        account = Finder(Account, "account", "ACC-1001", "use list_accounts to see valid ones")
        acc = account(db, account_id)

    Attributes:
        model: The mapped class to load.
        noun: What one row is, e.g. ``"account"``.
        example: A well-formed id, e.g. ``"ACC-1001"``.
        hint: How to find a valid id, naming the tool that lists them.
        message: Template of the error (see `MISSING_ROW`); ``{field}`` is the argument's name,
            ``{noun}_id`` unless the call names it, and ``{id}`` the value as given.
        normalize: Look the id up as `norm_id` returns it (trimmed, upper case).
    """

    model: type[RowT]
    noun: str
    example: str
    hint: str
    message: str = field(default=MISSING_ROW, kw_only=True)
    normalize: bool = field(default=True, kw_only=True)

    def __call__(self, db: Session, key: str, field: str | None = None) -> RowT:
        """Load the row with this id.

        Args:
            db: The session of the tool call.
            key: The id as the model gave it.
            field: Name of the argument it came from, for the message (default ``{noun}_id``).

        Returns:
            The row.

        Raises:
            ToolError: No row has that id.
        """
        row = db.get(self.model, norm_id(key) if self.normalize else key)
        if row is None:
            raise ToolError(
                self.message.format(
                    noun=self.noun,
                    Noun=self.noun.capitalize(),
                    example=self.example,
                    hint=self.hint,
                    field=field or f"{self.noun}_id",
                    id=key,
                )
            )
        return row


def next_number(db: Session, column: InstrumentedAttribute[str], prefix: str, first: int = 1001) -> int:
    """The number of the next id of a table: one more than the largest in use.

    Ids follow from the data alone, so replaying the same calls always yields the same ids.

    Args:
        db: The session of the tool call.
        column: The id column, holding ids like ``"ACC-1122"``.
        prefix: The ids' prefix before the dash, e.g. ``"ACC"``.
        first: The number of the first id when the table is empty.

    Returns:
        The next number, e.g. ``1123``.
    """
    top = db.scalar(select(func.max(cast(func.substr(column, len(prefix) + 2), Integer))))
    return (top or first - 1) + 1


def next_id(db: Session, column: InstrumentedAttribute[str], prefix: str, first: int = 1001) -> str:
    """The next id of a table, e.g. ``"ACC-1123"`` (see `next_number`).

    Args:
        db: The session of the tool call.
        column: The id column.
        prefix: The ids' prefix before the dash, e.g. ``"ACC"``.
        first: The number of the first id when the table is empty.

    Returns:
        The new id.
    """
    return f"{prefix}-{next_number(db, column, prefix, first)}"


# -- bounds ------------------------------------------------------------------------------------


def check_between(value: int, low: int, high: int, field: str, *, end: str = ".") -> int:
    """Reject an integer argument outside ``low..high``.

    Args:
        value: The argument.
        low: Smallest value allowed.
        high: Largest value allowed.
        field: The argument's name, for the message.
        end: What ends the message (``""`` for servers whose messages carry no full stop).

    Returns:
        The value, unchanged.

    Raises:
        ToolError: ``"{field} must be between {low} and {high}, got {value}."``
    """
    if not low <= value <= high:
        raise ToolError(f"{field} must be between {low} and {high}, got {value}{end}")
    return value


def check_limit(limit: int, maximum: int = 100, *, end: str = ".") -> int:
    """Reject a list tool's ``limit`` outside ``1..maximum`` (see `check_between`).

    Args:
        limit: The argument.
        maximum: Most rows a list tool returns.
        end: What ends the message.

    Returns:
        The limit, unchanged.
    """
    return check_between(limit, 1, maximum, "limit", end=end)


def check_length(text: str, field: str, low: int, high: int, detail: str = "") -> str:
    """Reject a text argument shorter than ``low`` or longer than ``high`` characters.

    Args:
        text: The argument, already trimmed as the server wants it.
        field: The argument's name, for the message.
        low: Fewest characters allowed.
        high: Most characters allowed.
        detail: The end of the message, e.g. ``", e.g. 'Suspected fraud'"``.

    Returns:
        The text, unchanged.

    Raises:
        ToolError: ``"{field} must be {low} to {high} characters{detail}"``.
    """
    if not low <= len(text) <= high:
        raise ToolError(f"{field} must be {low} to {high} characters{detail}")
    return text


# -- dates and times ---------------------------------------------------------------------------


def parse_date(
    value: str,
    field: str,
    message: str = '{field} {value!r} is not a valid date; use ISO 8601 such as "2026-01-20".',
) -> date:
    """Parse an ISO 8601 date argument (``YYYY-MM-DD``).

    Args:
        value: The argument.
        field: The argument's name, for the message.
        message: Template of the error, with ``{field}`` and ``{value}``.

    Returns:
        The date.

    Raises:
        ToolError: The value is not an ISO date.
    """
    try:
        return date.fromisoformat(value.strip())
    except (ValueError, AttributeError):
        raise ToolError(message.format(field=field, value=value)) from None


def parse_datetime(value: str, field: str) -> datetime:
    """Parse a timezone-free ISO 8601 local date-time to the minute, e.g. ``"2026-01-20T10:00"``.

    Args:
        value: The argument.
        field: The argument's name, for the message.

    Returns:
        The naive datetime.

    Raises:
        ToolError: The value lacks a time of day, is not ISO 8601, has a timezone offset or
            has seconds; the message says which.
    """
    text = value.strip() if isinstance(value, str) else ""
    example = 'ISO 8601 local time such as "2026-01-20T10:00"'
    if "T" not in text and " " not in text:
        raise ToolError(f"{field} {value!r} is not a date-time; use {example} (date and time of day).")
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise ToolError(f"{field} {value!r} is not a valid date-time; use {example}.") from None
    if parsed.tzinfo is not None:
        raise ToolError(f"{field} {value!r} has a timezone offset; times are timezone-free, use {example}.")
    if parsed.second or parsed.microsecond:
        raise ToolError(f"{field} {value!r} has seconds; times are to the minute, use {example}.")
    return parsed


# -- statuses ----------------------------------------------------------------------------------


class HasStatus(Protocol):
    """A row with a ``status`` column (an account, a card, an order)."""

    @property
    def status(self) -> str:
        """The row's current status, e.g. ``"active"``."""
        ...


def check_status(row: HasStatus, refused: Mapping[str, str]) -> None:
    """Refuse a status change from a status the tool does not allow it from.

    A tool that moves a row from one status to another (lock, unlock, freeze, close, cancel)
    lists the statuses it refuses with the message for each, then sets the new status itself.

    Args:
        row: The row the tool changes.
        refused: The message for each status the change is refused from, e.g.
            ``{"locked": "Card CRD-1001 is already locked; nothing changed."}``.

    Raises:
        ToolError: The row's status is one of ``refused``; the message is its entry.
    """
    message = refused.get(row.status)
    if message is not None:
        raise ToolError(message)


# -- money -------------------------------------------------------------------------------------


def dollars(cents: int) -> float:
    """Cents as a dollar number rounded to 2 decimals, for results.

    Args:
        cents: An amount in integer cents, e.g. ``123450``.

    Returns:
        The amount in dollars, e.g. ``1234.5``.
    """
    return round(cents / 100, 2)


def format_dollars(cents: int) -> str:
    """Cents as display text for messages.

    Args:
        cents: An amount in integer cents.

    Returns:
        The amount like ``"$1,234.50"`` or ``"-$12.00"``.
    """
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) / 100:,.2f}"


_HUGE = Decimal(10) ** 15  # dollars: over any maximum, and shown as given (1e+26), not as $1,000,...,000.00


def to_cents(amount: float, field: str = "amount", maximum: int = 100_000_000) -> int:
    """Validate a positive dollar amount with at most 2 decimals and convert it to cents.

    Args:
        amount: The argument, in dollars, e.g. ``25.5``.
        field: The argument's name, for the message.
        maximum: Largest amount allowed, in cents (default $1,000,000.00).

    Returns:
        The amount in integer cents, e.g. ``2550``.

    Raises:
        ToolError: The amount is not finite, not above 0, has more than 2 decimals or is over
            the maximum.
    """
    if not math.isfinite(amount):
        raise ToolError(f"{field} must be a finite number of dollars, e.g. 25.50")
    try:
        exact = Decimal(str(amount))
    except InvalidOperation:
        raise ToolError(f"{field} must be a number of dollars, e.g. 25.50") from None
    if exact <= 0:
        raise ToolError(f"{field} must be greater than 0, got {amount}; pass a positive dollar amount, e.g. 25.50")
    if exact >= _HUGE:  # before the cents check: its quantizing fails past 28 digits (1e26)
        raise ToolError(f"{field} {amount:g} is over the {format_dollars(maximum)} maximum per operation")
    if exact != exact.quantize(Decimal("0.01")):
        raise ToolError(f"{field} {amount} has more than 2 decimals; round it to cents, e.g. 25.50")
    cents = int(exact * 100)
    if cents > maximum:
        raise ToolError(f"{field} {format_dollars(cents)} is over the {format_dollars(maximum)} maximum per operation")
    return cents


# -- result shapes -----------------------------------------------------------------------------


def pick(row: object, *names: str) -> dict[str, Any]:
    """Some attributes of a row as a result dict, keyed by their names.

    Args:
        row: The row (or any object), e.g. a person.
        *names: The attributes, in the order the result lists them, e.g. ``"id", "name"``.

    Returns:
        ``{name: getattr(row, name)}`` for each name, in order.
    """
    return {name: getattr(row, name) for name in names}
