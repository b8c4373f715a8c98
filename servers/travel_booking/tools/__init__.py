"""Tools of the travel booking server: travellers, flights and seats, hotels, cars, trips and loyalty.

Amounts are in dollars and always come back rounded to cents; loyalty points are worth 1 cent.
Every "today" rule (dates in the past, passport validity, late-cancellation fees) uses the kit's
fixed date, so episodes replay identically.

`common` holds the kit and what the areas share; each area module registers its tools on
import, and the order below is the order the model sees them in.
"""

from gym_mcp.servers.travel_booking.tools.common import kit

# isort: off
from gym_mcp.servers.travel_booking.tools import (  # noqa: F401
    travellers,
    flights,
    flight_bookings,
    hotels,
    cars,
    trips,
    loyalty,
)

# isort: on

__all__ = ["kit"]
