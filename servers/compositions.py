"""Named compositions: several bundled servers as one environment, with the same people in each.

A real request often spans services: pay an order's total from a bank account, announce an
issue in a team channel, email a traveller. A `Composition` names the servers (their tools are
namespaced ``part.tool``), aligns their seeded databases so the people are the same in every part
(`Composition.align`: the bank's customer CUS-1007 is the shop's CUS-1007, with the same name
and email), and declares its `Bridge`s: a value one part's tool returns that another part's tool
takes (an order's ``total`` as a payment's ``amount``). Synthesis follows the bridges to build
tasks whose calls cross servers, and the values flow at run time, from the live outputs.

Nothing here imports the gym: alignment works on the parts' SQLite connections.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from gym_mcp.errors import UnknownServerError

__all__ = ["COMPOSITIONS", "Bridge", "Composition", "get_composition"]


@dataclass(frozen=True)
class Bridge:
    """A value that flows from one part's tool output into another part's tool argument.

    Attributes:
        source: The namespaced tool that returns the value, e.g. ``"shop.get_order"``.
        field: Where the value sits in its JSON result, dot-separated, e.g. ``"total"``.
        target: The namespaced tool that takes it, e.g. ``"bank.pay_payee"``.
        param: The target's parameter, e.g. ``"amount"``.
        phrase: How the request names the value (default ``"that <last key of field>"``,
            e.g. ``"that total"``).
    """

    source: str
    field: str
    target: str
    param: str
    phrase: str = ""


Aligner = Callable[[Mapping[str, sqlite3.Connection]], None]


@dataclass(frozen=True)
class Composition:
    """Bundled servers composed into one environment.

    Attributes:
        name: The composition's name (its env id is built from it, e.g. ``ShopBank-v0``).
        parts: ``{prefix: bundled server}``; tools are exposed as ``prefix.tool``.
        description: What the composition is for, in one line.
        bridges: Values that flow between the parts (see `Bridge`).
        align: Makes the parts' seeded databases agree on the shared entities.
    """

    name: str
    parts: Mapping[str, str]
    description: str
    bridges: tuple[Bridge, ...] = ()
    align: Aligner | None = field(default=None, compare=False)


def _people(
    conns: Mapping[str, sqlite3.Connection],
    source: tuple[str, str, str],
    target: tuple[str, str, str],
    copy: Mapping[str, str],
    *,
    by_number: bool = True,
) -> None:
    """Copy person columns from one part's table onto another's, row by row.

    Args:
        conns: The parts' connections.
        source: (part, table, SQL expression per row order) of the people to copy from.
        target: (part, table, order) of the rows that become the same people.
        copy: ``{target column: source SQL expression}``.
        by_number: Match rows by their id's number (CUS-1007 to CUS-1007); else by position.
    """
    src_part, src_table, src_order = source
    dst_part, dst_table, dst_order = target
    exprs = ", ".join(copy.values())
    rows = conns[src_part].execute(f"SELECT id, {exprs} FROM {src_table} ORDER BY {src_order}").fetchall()
    targets = [r[0] for r in conns[dst_part].execute(f"SELECT id FROM {dst_table} ORDER BY {dst_order}")]
    if by_number:
        number = {str(t).rsplit("-", 1)[-1]: t for t in targets}
        pairs = [(number[str(r[0]).rsplit("-", 1)[-1]], r[1:]) for r in rows if str(r[0]).rsplit("-", 1)[-1] in number]
    else:
        pairs = [(t, r[1:]) for t, r in zip(targets, rows, strict=False)]
    sets = ", ".join(f"{column} = ?" for column in copy)
    conn = conns[dst_part]
    for target_id, values in pairs:
        try:
            conn.execute(f"UPDATE {dst_table} SET {sets} WHERE id = ?", (*values, target_id))
        except sqlite3.IntegrityError:
            continue  # a unique column (an email) already taken in that part: this one stays as seeded
    conn.commit()


_SPLIT_NAME = {
    "first_name": "substr(name, 1, instr(name, ' ') - 1)",
    "last_name": "substr(name, instr(name, ' ') + 1)",
    "email": "email",
}
"""A "First Last" name and an email, copied onto first_name, last_name and email columns."""


def _align_shop_bank(conns: Mapping[str, sqlite3.Connection]) -> None:
    _people(conns, ("shop", "customers", "id"), ("bank", "customers", "id"), _SPLIT_NAME)


def _align_food_payments(conns: Mapping[str, sqlite3.Connection]) -> None:
    _people(conns, ("food", "customers", "id"), ("pay", "customers", "id"), _SPLIT_NAME)


def _align_tracker_chat(conns: Mapping[str, sqlite3.Connection]) -> None:
    _people(
        conns,
        ("tracker", "users", "id"),
        ("chat", "users", "id"),
        {"full_name": "name", "display_name": "lower(replace(name, ' ', '.'))", "email": "email"},
    )


def _align_travel_calendar_email(conns: Mapping[str, sqlite3.Connection]) -> None:
    _people(
        conns,
        ("travel", "travellers", "id"),
        ("calendar", "people", "id"),
        {"name": "first_name || ' ' || last_name", "email": "email"},
        by_number=False,
    )
    _people(
        conns,
        ("calendar", "people", "id"),
        ("mail", "contacts", "id"),
        {"name": "name", "email": "email"},
        by_number=False,
    )


def _align_home_car_maps(conns: Mapping[str, sqlite3.Connection]) -> None:
    _people(
        conns,
        ("maps", "users", "id"),
        ("car", "drivers", "id"),
        _SPLIT_NAME,
        by_number=False,
    )
    _people(
        conns,
        ("car", "drivers", "id"),
        ("home", "homes", "id"),
        {"owner": "first_name || ' ' || last_name"},
        by_number=False,
    )


COMPOSITIONS: dict[str, Composition] = {
    c.name: c
    for c in (
        Composition(
            "shop_bank",
            {"shop": "shopping", "bank": "banking"},
            "A shop and a bank with the same customers: pay for orders from bank accounts.",
            (
                Bridge("shop.get_order", "total", "bank.pay_payee", "amount"),
                Bridge("shop.get_order", "total", "bank.transfer_funds", "amount"),
                Bridge("shop.checkout", "total", "bank.pay_payee", "amount"),
                Bridge("shop.get_order", "total", "bank.withdraw", "amount"),
            ),
            _align_shop_bank,
        ),
        Composition(
            "food_payments",
            {"food": "food_delivery", "pay": "payments"},
            "Food delivery and a payments service with the same customers: pay order totals by card.",
            (
                Bridge("food.get_order", "total", "pay.create_payment", "amount"),
                Bridge("food.checkout", "total", "pay.create_payment", "amount"),
                Bridge("food.get_order", "total", "pay.create_payment_request", "amount"),
            ),
            _align_food_payments,
        ),
        Composition(
            "tracker_chat",
            {"tracker": "issue_tracker", "chat": "team_chat"},
            "An issue tracker and a team chat with the same people: announce issues in channels.",
            (
                Bridge("tracker.get_issue", "title", "chat.post_message", "text"),
                Bridge("tracker.create_issue", "issue_id", "chat.post_message", "text"),
                Bridge("tracker.get_issue", "title", "chat.send_direct_message", "text"),
                Bridge("tracker.get_issue", "title", "chat.set_topic", "topic"),
            ),
            _align_tracker_chat,
        ),
        Composition(
            "travel_calendar_email",
            {"travel": "travel_booking", "calendar": "calendar", "mail": "email"},
            "Trips, a calendar and email with the same people: book travel, plan it, tell people.",
            (
                Bridge("travel.get_traveller", "email", "mail.send_message", "to"),
                Bridge("calendar.get_person", "email", "mail.send_message", "to"),
                Bridge("travel.get_traveller", "email", "mail.add_contact", "email"),
                Bridge("calendar.get_person", "email", "mail.create_draft", "to"),
            ),
            _align_travel_calendar_email,
        ),
        Composition(
            "home_car_maps",
            {"home": "iot_devices", "car": "vehicle", "maps": "maps"},
            "A smart home, a car and maps with the same people: plan a drive, log it, get the home ready.",
            (
                Bridge("maps.get_directions", "distance_km", "car.end_trip", "distance_km"),
                Bridge("maps.get_directions", "to_place", "car.start_trip", "destination"),
                Bridge("maps.get_place", "name", "car.start_trip", "destination"),
                Bridge(
                    "car.get_vehicle_status",
                    "climate.target_c",
                    "home.set_thermostat",
                    "target_temp_c",
                    "the temperature set in that car",
                ),
            ),
            _align_home_car_maps,
        ),
    )
}
"""The named compositions, registered as environments like the bundled servers."""


def get_composition(name: str) -> Composition:
    """Return a named composition.

    Raises:
        UnknownServerError: No composition has that name.
    """
    try:
        return COMPOSITIONS[name]
    except KeyError:
        known = ", ".join(sorted(COMPOSITIONS))
        raise UnknownServerError(f"unknown composition {name!r}; compositions: {known}") from None
