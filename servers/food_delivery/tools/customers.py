"""Food delivery tools for customers: find one, list their addresses, add an address."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.food_delivery.models import Address, Customer
from gym_mcp.servers.food_delivery.tools.common import kit, load_customer
from gym_mcp.servers.kit import ToolError, check_length, next_id, pick

SERVICE_AREA = {"latitude": (45.40, 45.65), "longitude": (-122.85, -122.50)}
"""The bounds of the area the app serves (degrees)."""

MAX_ADDRESSES = 8
"""Most addresses one customer may save."""


def _address_view(address: Address) -> dict[str, Any]:
    return {"address_id": address.id, **pick(address, "label", "street", "latitude", "longitude", "is_default")}


@kit.tool(
    write=False,
    intent="Find the customer {query}",
    samples={"query": ("Grace Allen", "fatima.young", "Hana Thomas", "Leo Novak", "isabella.miller@proton.me")},
)
def find_customer(db: Session, query: str) -> list[dict[str, Any]]:
    """Find customers by part of their name, email or phone number (case-insensitive), up to 10.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of a name, email or phone, at least 2 characters, e.g. "garcia" or "@gmail.com".
    """
    text = check_length(query.strip(), "query", 2, 100, ', e.g. "garcia"')
    wanted = text.lower()  # "%" and "_" are searched for as themselves (autoescape)
    rows = db.scalars(
        select(Customer)
        .where(
            or_(
                func.lower(Customer.name).contains(wanted, autoescape=True),
                func.lower(Customer.email).contains(wanted, autoescape=True),
                Customer.phone.contains(wanted, autoescape=True),
            )
        )
        .order_by(Customer.id)
        .limit(10)
    )
    return [{"customer_id": c.id, **pick(c, "name", "email", "phone")} for c in rows]


@kit.tool(write=False, intent="List the delivery addresses of customer {customer_id}")
def list_addresses(db: Session, customer_id: str) -> list[dict[str, Any]]:
    """List a customer's saved delivery addresses (id, label, street, coordinates, which one is the default).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
    """
    customer = load_customer(db, customer_id)
    rows = db.scalars(select(Address).where(Address.customer_id == customer.id).order_by(Address.id))
    return [_address_view(a) for a in rows]


@kit.tool(
    write=True,
    intent=(
        "Save the address {street} (latitude {latitude}, longitude {longitude}) as '{label}' for customer {customer_id}"
    ),
    samples={
        "label": ("Office", "Gym", "Partner", "Studio", "Grandma"),
        "street": (
            "815 Alder St, Portland, OR 97205",
            "2231 Hawthorne Blvd, Portland, OR 97214",
            "4410 Williams Ave, Portland, OR 97217",
            "1290 Division St, Portland, OR 97202",
            "618 Glisan St, Portland, OR 97209",
        ),
        "latitude": (45.52, 45.51, 45.5, 45.54, 45.49),  # 2 decimals: instructions show 2
        "longitude": (-122.68, -122.64, -122.66, -122.69, -122.7),
    },
)
def add_address(
    db: Session,
    customer_id: str,
    label: str,
    street: str,
    latitude: float,
    longitude: float,
    make_default: bool = False,
) -> dict[str, Any]:
    """Save a new delivery address for a customer; it can then be used with checkout.

    A customer's first address becomes the default; make_default=true makes a later one the
    default. Labels are unique per customer, at most 8 addresses, and the point must lie in the
    service area (latitude 45.40 to 45.65, longitude -122.85 to -122.50).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
        label: Short name, 1 to 40 characters, e.g. "Office".
        street: Street address, 5 to 120 characters, e.g. "815 Alder St, Portland, OR 97205".
        latitude: Degrees north, e.g. 45.5152.
        longitude: Degrees east (negative in Portland), e.g. -122.6784.
        make_default: True to make it the customer's default delivery address.
    """
    customer = load_customer(db, customer_id)
    name = check_length(label.strip(), "label", 1, 40, ', e.g. "Office"')
    place = check_length(" ".join(street.split()), "street", 5, 120, ', e.g. "815 Alder St, Portland, OR 97205"')
    for field, value in (("latitude", latitude), ("longitude", longitude)):
        low, high = SERVICE_AREA[field]
        if not low <= value <= high:
            raise ToolError(
                f"{field} {value} is outside the service area ({field} {low} to {high}); "
                "the app only delivers in the Portland area."
            )
    held = list(db.scalars(select(Address).where(Address.customer_id == customer.id).order_by(Address.id)))
    same = next((a for a in held if a.label.lower() == name.lower()), None)
    if same is not None:
        raise ToolError(
            f"{customer.id} already has an address labelled '{same.label}' ({same.id}, {same.street}); "
            "choose another label."
        )
    if len(held) >= MAX_ADDRESSES:
        raise ToolError(f"{customer.id} already has {len(held)} addresses, the maximum is {MAX_ADDRESSES}.")
    default = make_default or not held
    if default:
        for other in held:
            other.is_default = False
    address = Address(
        id=next_id(db, Address.id, "ADR"),
        customer_id=customer.id,
        label=name,
        street=place,
        latitude=round(latitude, 5),
        longitude=round(longitude, 5),
        is_default=default,
    )
    db.add(address)
    db.flush()
    return {"customer_id": customer.id, **_address_view(address)}
