"""Deterministic seed data of the food delivery server.

`seed` fills an empty database from a `random.Random` alone: the same seed always gives the
same customers, addresses, restaurants, menus, carts, orders, couriers, promotions and ratings,
and a different seed gives different ones. Every seed has restaurants closed at the fixed clock
(dinner-only places, a weekly closing day), addresses beyond delivery radii, unavailable items,
items with required option groups, expired and conditional promotions, carts that break a rule,
orders in every status and delivered orders both rated and not, so every error path is reachable.
"""

from __future__ import annotations

import random
from datetime import date, datetime, time, timedelta

from sqlalchemy.orm import Session

from gym_mcp.servers.food_delivery.hours import distance_km, is_open
from gym_mcp.servers.food_delivery.models import (
    NOW,
    TODAY,
    Address,
    Cart,
    CartItem,
    Courier,
    Customer,
    MenuItem,
    OpeningHours,
    Option,
    OptionGroup,
    Order,
    OrderItem,
    Promotion,
    Rating,
    Restaurant,
)
from gym_mcp.servers.kit import NamePool, unique_email

__all__ = ["CENTER", "seed"]

CENTER = (45.52, -122.675)
"""Centre of the service area (latitude, longitude)."""

FIRST_NAMES = (
    "Olivia", "Liam", "Emma", "Noah", "Ava", "Elijah", "Sophia", "James", "Isabella", "Lucas", "Mia", "Mateo",
    "Amelia", "Ethan", "Harper", "Benjamin", "Evelyn", "Daniel", "Abigail", "Henry", "Emily", "Jackson", "Ella",
    "Samuel", "Grace", "David", "Chloe", "Priya", "Arjun", "Mei", "Wei", "Fatima", "Omar", "Sofia", "Diego",
    "Aisha", "Kwame", "Hana", "Kenji", "Ingrid", "Lars", "Camila", "Rafael", "Zoe", "Nora", "Leo",
)  # fmt: skip
LAST_NAMES = (
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
    "Lopez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Martin", "Lee", "Perez", "Thompson", "White",
    "Harris", "Clark", "Lewis", "Walker", "Young", "Allen", "King", "Wright", "Scott", "Nguyen", "Patel", "Kim",
    "Chen", "Okafor", "Mensah", "Nakamura", "Larsen", "Novak", "Rossi", "Schmidt", "Dubois",
)  # fmt: skip
PEOPLE = NamePool(FIRST_NAMES, LAST_NAMES)
"""The names people of the seed data are drawn from."""
EMAIL_DOMAINS = ("gmail.com", "outlook.com", "yahoo.com", "icloud.com", "proton.me")
STREETS = (
    "Alder St", "Belmont St", "Burnside St", "Clinton St", "Division St", "Everett St", "Flanders St",
    "Glisan St", "Hawthorne Blvd", "Irving St", "Johnson St", "Killingsworth St", "Lovejoy St", "Mississippi Ave",
    "Northrup St", "Oak St", "Pine St", "Quimby St", "Raleigh St", "Salmon St", "Taylor St", "Umatilla St",
    "Vaughn St", "Williams Ave", "Yamhill St", "Alberta St", "Fremont St", "Woodstock Blvd",
)  # fmt: skip
COURIER_VEHICLES = ("bicycle", "e-bike", "scooter", "car")

# Option groups: name -> (required, max_choices, ((option, price delta in cents), ...)).
GROUPS: dict[str, tuple[bool, int, tuple[tuple[str, int], ...]]] = {
    "Size": (True, 1, (("Small", 0), ("Regular", 200), ("Large", 400))),
    "Spice level": (True, 1, (("Mild", 0), ("Medium", 0), ("Hot", 0), ("Extra hot", 0))),
    "Protein": (True, 1, (("Chicken", 0), ("Tofu", 0), ("Beef", 200), ("Shrimp", 300))),
    "Rice": (True, 1, (("White rice", 0), ("Brown rice", 50), ("Fried rice", 150))),
    "Extra toppings": (False, 3, (("Extra cheese", 150), ("Mushrooms", 100), ("Olives", 100), ("Jalapenos", 75))),
    "Add-ons": (False, 2, (("Avocado", 150), ("Fried egg", 125), ("Bacon", 200))),
    "Side": (False, 1, (("Fries", 250), ("Side salad", 300))),
    "Milk": (False, 1, (("Oat milk", 70), ("Almond milk", 70))),
    "Dressing": (False, 1, (("Ranch", 0), ("Vinaigrette", 0), ("Tahini", 50))),
}

# Cuisine -> (restaurant names, menu: (category, name, price cents, description, option groups)).
MenuEntry = tuple[str, str, int, str, tuple[str, ...]]
CUISINES: dict[str, tuple[tuple[str, ...], tuple[MenuEntry, ...]]] = {
    "Italian": (
        ("Luigi's Trattoria", "Nonna's Kitchen", "Forno Rosso"),
        (
            ("Pizza", "Margherita Pizza", 1400, "Tomato, mozzarella, basil", ("Size", "Extra toppings")),
            ("Pizza", "Pepperoni Pizza", 1600, "Tomato, mozzarella, pepperoni", ("Size", "Extra toppings")),
            ("Pasta", "Spaghetti Carbonara", 1550, "Guanciale, egg, pecorino", ()),
            ("Pasta", "Penne Arrabbiata", 1350, "Spicy tomato sauce", ("Spice level",)),
            ("Pasta", "Lasagna", 1650, "Beef ragu, bechamel", ()),
            ("Starters", "Garlic Bread", 650, "With herb butter", ()),
            ("Starters", "Caprese Salad", 950, "Tomato, mozzarella, basil", ("Dressing",)),
            ("Desserts", "Tiramisu", 800, "Mascarpone, espresso", ()),
            ("Drinks", "San Pellegrino", 350, "Sparkling water", ()),
        ),
    ),
    "Japanese": (
        ("Sakura Sushi", "Umami Ramen Bar", "Koi Izakaya"),
        (
            ("Sushi", "Salmon Nigiri (6)", 1200, "Fresh salmon over rice", ()),
            ("Sushi", "California Roll", 1000, "Crab, avocado, cucumber", ()),
            ("Sushi", "Spicy Tuna Roll", 1150, "Tuna, chili mayo", ("Spice level",)),
            ("Ramen", "Tonkotsu Ramen", 1500, "Pork broth, chashu, egg", ("Size", "Add-ons")),
            ("Ramen", "Miso Ramen", 1450, "Miso broth, corn, scallion", ("Size", "Protein")),
            ("Sides", "Edamame", 550, "Sea salt", ()),
            ("Sides", "Gyoza (5)", 750, "Pan-fried dumplings", ("Protein",)),
            ("Drinks", "Green Tea", 300, "Hot or iced", ()),
        ),
    ),
    "Mexican": (
        ("Casa Verde", "Taqueria El Sol", "Burrito Bros"),
        (
            ("Tacos", "Carne Asada Tacos", 1300, "Three tacos, salsa verde", ("Spice level",)),
            ("Tacos", "Fish Tacos", 1350, "Beer-battered cod, slaw", ()),
            ("Burritos", "Build-your-own Burrito", 1250, "Rice, beans, salsa", ("Protein", "Add-ons")),
            ("Burritos", "Veggie Burrito", 1100, "Grilled vegetables, beans", ("Add-ons",)),
            ("Bowls", "Burrito Bowl", 1300, "No tortilla, all the rest", ("Protein", "Rice")),
            ("Sides", "Chips & Guacamole", 700, "Made fresh daily", ()),
            ("Sides", "Elote", 550, "Street corn, cotija", ()),
            ("Drinks", "Horchata", 400, "Rice and cinnamon", ("Size",)),
        ),
    ),
    "Indian": (
        ("Taj Spice", "Bombay Express", "Masala House"),
        (
            ("Curries", "Chicken Tikka Masala", 1650, "Creamy tomato sauce", ("Spice level", "Rice")),
            ("Curries", "Palak Paneer", 1450, "Spinach and paneer", ("Spice level", "Rice")),
            ("Curries", "Lamb Vindaloo", 1800, "Fiery Goan curry", ("Rice",)),
            ("Curries", "Chana Masala", 1300, "Chickpeas, tomato, spices", ("Spice level",)),
            ("Breads", "Garlic Naan", 400, "Baked in the tandoor", ()),
            ("Starters", "Samosas (2)", 600, "Potato and pea", ()),
            ("Desserts", "Gulab Jamun", 550, "In rose syrup", ()),
            ("Drinks", "Mango Lassi", 500, "Yogurt and mango", ("Size",)),
        ),
    ),
    "Thai": (
        ("Bangkok Garden", "Thai Orchid", "Lemongrass Kitchen"),
        (
            ("Noodles", "Pad Thai", 1400, "Rice noodles, peanuts, lime", ("Protein", "Spice level")),
            ("Noodles", "Pad See Ew", 1400, "Wide noodles, broccoli", ("Protein",)),
            ("Curries", "Green Curry", 1500, "Coconut, Thai basil", ("Protein", "Spice level", "Rice")),
            ("Curries", "Massaman Curry", 1550, "Potato, peanuts", ("Protein", "Rice")),
            ("Starters", "Spring Rolls (4)", 700, "Crispy, sweet chili dip", ()),
            ("Soups", "Tom Yum Soup", 900, "Hot and sour", ("Spice level",)),
            ("Desserts", "Mango Sticky Rice", 750, "Seasonal mango", ()),
            ("Drinks", "Thai Iced Tea", 450, "Sweet and creamy", ()),
        ),
    ),
    "American": (
        ("Liberty Burger", "Smokestack BBQ", "The Diner on Oak"),
        (
            ("Burgers", "Classic Cheeseburger", 1300, "Cheddar, pickles, special sauce", ("Side", "Add-ons")),
            ("Burgers", "Veggie Burger", 1250, "Black bean patty", ("Side",)),
            ("Mains", "BBQ Pulled Pork", 1500, "Slow smoked, coleslaw", ("Side",)),
            ("Mains", "Chicken Tenders", 1150, "Honey mustard dip", ("Side",)),
            ("Salads", "Cobb Salad", 1350, "Chicken, bacon, egg, blue cheese", ("Dressing",)),
            ("Sides", "Onion Rings", 550, "Beer battered", ()),
            ("Desserts", "Apple Pie", 650, "With vanilla ice cream", ()),
            ("Drinks", "Milkshake", 600, "Vanilla, chocolate or strawberry", ("Size",)),
        ),
    ),
    "Chinese": (
        ("Golden Dragon", "Dumpling House", "Szechuan Garden"),
        (
            ("Mains", "Kung Pao Chicken", 1400, "Peanuts, chili, Sichuan pepper", ("Spice level", "Rice")),
            ("Mains", "Mapo Tofu", 1250, "Silken tofu, chili bean sauce", ("Spice level", "Rice")),
            ("Mains", "Beef & Broccoli", 1500, "Oyster sauce", ("Rice",)),
            ("Dumplings", "Pork Soup Dumplings (6)", 1100, "Xiao long bao", ()),
            ("Dumplings", "Veggie Potstickers (6)", 900, "Pan-fried", ()),
            ("Noodles", "Dan Dan Noodles", 1200, "Spicy sesame sauce", ("Spice level",)),
            ("Sides", "Scallion Pancake", 600, "Crispy and flaky", ()),
            ("Drinks", "Jasmine Tea", 300, "Pot for one", ()),
        ),
    ),
    "Mediterranean": (
        ("Olive & Fig", "Pita Palace", "Aegean Grill"),
        (
            ("Plates", "Chicken Shawarma Plate", 1500, "Rice, salad, garlic sauce", ("Side",)),
            ("Plates", "Falafel Plate", 1300, "Hummus, salad, pita", ("Dressing",)),
            ("Wraps", "Lamb Gyro", 1250, "Tzatziki, tomato, onion", ("Add-ons",)),
            ("Bowls", "Build-your-own Bowl", 1350, "Grains, greens, toppings", ("Protein", "Dressing")),
            ("Mezze", "Hummus & Pita", 700, "Olive oil, paprika", ()),
            ("Mezze", "Baba Ganoush", 750, "Smoky eggplant", ()),
            ("Desserts", "Baklava", 550, "Pistachio and honey", ()),
            ("Drinks", "Mint Lemonade", 450, "Fresh mint", ("Size",)),
        ),
    ),
    "Vietnamese": (
        ("Pho Saigon", "Banh Mi Corner", "Little Hanoi"),
        (
            ("Pho", "Beef Pho", 1400, "Rare steak, brisket", ("Size",)),
            ("Pho", "Chicken Pho", 1300, "Poached chicken", ("Size",)),
            ("Sandwiches", "Banh Mi", 1000, "Pickled carrot, cilantro", ("Protein", "Spice level")),
            ("Bowls", "Lemongrass Vermicelli Bowl", 1350, "Rice noodles, herbs", ("Protein",)),
            ("Starters", "Fresh Spring Rolls (2)", 650, "Peanut sauce", ()),
            ("Drinks", "Vietnamese Iced Coffee", 500, "Condensed milk", ()),
            ("Drinks", "Bubble Tea", 550, "Taro, mango or classic", ("Milk",)),
        ),
    ),
    "Cafe": (
        ("Morning Glory Cafe", "Rise & Grind", "The Breakfast Club"),
        (
            ("Breakfast", "Avocado Toast", 1100, "Sourdough, chili flakes", ("Add-ons",)),
            ("Breakfast", "Buttermilk Pancakes", 1200, "Maple syrup, berries", ("Add-ons",)),
            ("Breakfast", "Breakfast Burrito", 1150, "Egg, potato, cheese", ("Protein", "Spice level")),
            ("Lunch", "Turkey Club", 1250, "Bacon, lettuce, tomato", ("Side",)),
            ("Lunch", "Quinoa Salad", 1150, "Roasted vegetables", ("Dressing",)),
            ("Bakery", "Croissant", 450, "Butter croissant", ()),
            ("Drinks", "Latte", 500, "Double shot", ("Size", "Milk")),
            ("Drinks", "Fresh Orange Juice", 550, "Squeezed to order", ("Size",)),
        ),
    ),
}

# Opening-hour patterns: name -> {weekday: ((opens, closes), ...)}; a missing weekday is closed.
_EVERY = range(7)
HOURS: dict[str, dict[int, tuple[tuple[str, str], ...]]] = {
    "all_day": {d: (("11:00", "22:00"),) for d in _EVERY},
    "lunch_dinner": {d: (("11:30", "14:30"), ("17:00", "21:30")) for d in range(6)},  # closed Sunday
    "dinner": {d: (("17:00", "23:00"),) for d in range(1, 7)},  # closed Monday, closed at lunch
    "late_night": {d: (("11:30", "02:00") if d in (4, 5) else ("11:30", "23:00"),) for d in _EVERY},
    "breakfast": {d: (("07:00", "15:00"),) for d in _EVERY},
    "closed_thursday": {d: (("11:00", "21:00"),) for d in _EVERY if d != 3},
    "weekend_brunch": {d: (("08:00", "14:00"),) if d in (5, 6) else (("10:00", "20:00"),) for d in _EVERY},
}

PROMOTIONS = (
    # code, description, percent, amount off, cap, min subtotal, first order only, cuisine, expires
    ("WELCOME15", "15% off your first order (up to $10)", 15, None, 1000, 0, True, None, date(2026, 12, 31)),
    ("SAVE5", "$5 off orders of $25 or more", None, 500, None, 2500, False, None, date(2026, 3, 31)),
    ("BIGEATS", "20% off orders of $50 or more (up to $15)", 20, None, 1500, 5000, False, None, date(2026, 2, 28)),
    ("LUNCH3", "$3 off any lunch of $15 or more", None, 300, None, 1500, False, None, date(2026, 1, 31)),
    ("WINTER10", "10% off any order this winter", 10, None, None, 0, False, None, date(2026, 2, 28)),
    ("HOLIDAY20", "20% off holiday feasts", 20, None, None, 0, False, None, date(2025, 12, 31)),
    ("NEWYEAR8", "$8 off orders of $30 or more", None, 800, None, 3000, False, None, date(2026, 1, 10)),
    ("PIZZA25", "25% off at one Italian restaurant", 25, None, None, 0, False, "Italian", date(2026, 6, 30)),
    ("SUSHI20", "20% off at one Japanese restaurant", 20, None, None, 1500, False, "Japanese", date(2026, 6, 30)),
    ("TACO4", "$4 off at one Mexican restaurant", None, 400, None, 1200, False, "Mexican", date(2026, 4, 30)),
    ("CURRY15", "15% off at one Indian restaurant", 15, None, None, 0, False, "Indian", date(2026, 5, 31)),
)

RATING_COMMENTS = (
    "Arrived hot and on time.",
    "Great food, a little late.",
    "Portions were generous.",
    "Courier was very friendly.",
    "Missing the sauce I asked for.",
    "Cold by the time it arrived.",
    "",
)


def _clock(text: str) -> time:
    """``"17:30"`` as a time."""
    hours, minutes = text.split(":")
    return time(int(hours), int(minutes))


def _customers(rng: random.Random) -> list[Customer]:
    """Sixty customers with unique emails."""
    out: list[Customer] = []
    emails: set[str] = set()
    for i in range(60):
        first, last = PEOPLE.draw(rng)
        domain = rng.choice(EMAIL_DOMAINS)
        email = unique_email(first, last, domain, emails)
        out.append(
            Customer(
                id=f"CUS-{1001 + i}",
                name=f"{first} {last}",
                email=email,
                phone=f"+1-503-555-{rng.randint(0, 9999):04d}",
                joined_on=TODAY - timedelta(days=rng.randint(10, 1500)),
            )
        )
    return out


def _point(rng: random.Random, spread: float) -> tuple[float, float]:
    """A point around the centre (about ``spread`` x 8 km each way)."""
    return (
        round(CENTER[0] + rng.uniform(-0.07, 0.07) * spread, 5),
        round(CENTER[1] + rng.uniform(-0.1, 0.1) * spread, 5),
    )


def _addresses(rng: random.Random, customers: list[Customer]) -> list[Address]:
    """One to three addresses per customer; the first is the default "Home"."""
    out: list[Address] = []
    for customer in customers:
        labels = ["Home", *rng.sample(("Work", "Gym", "Parents", "Studio"), rng.choices((0, 1, 2), (5, 4, 1))[0])]
        for label in labels:
            lat, lon = _point(rng, 1.0)
            out.append(
                Address(
                    id=f"ADR-{1001 + len(out)}",
                    customer_id=customer.id,
                    label=label,
                    street=f"{rng.randint(100, 9899)} {rng.choice(STREETS)}, Portland, OR 972{rng.randint(1, 39):02d}",
                    latitude=lat,
                    longitude=lon,
                    is_default=label == "Home",
                )
            )
    return out


def _restaurants(
    rng: random.Random,
) -> tuple[list[Restaurant], list[OpeningHours], list[MenuItem], list[OptionGroup], list[Option]]:
    """Thirty restaurants (three per cuisine) with their hours and menus."""
    restaurants: list[Restaurant] = []
    hours: list[OpeningHours] = []
    items: list[MenuItem] = []
    groups: list[OptionGroup] = []
    options: list[Option] = []
    patterns = ["all_day"] * 10 + ["late_night"] * 5 + ["lunch_dinner"] * 4 + ["weekend_brunch"] * 3
    patterns += ["dinner"] * 4 + ["closed_thursday"] * 3 + ["breakfast"]
    rng.shuffle(patterns)
    entries = [(cuisine, name) for cuisine, (names, _) in CUISINES.items() for name in names]
    for cuisine, name in entries:
        pattern = "breakfast" if cuisine == "Cafe" and rng.random() < 0.5 else patterns.pop()
        lat, lon = _point(rng, 0.7)
        restaurant = Restaurant(
            id=f"RST-{1001 + len(restaurants)}",
            name=name,
            cuisine=cuisine,
            street=f"{rng.randint(100, 4999)} {rng.choice(STREETS)}, Portland, OR",
            latitude=lat,
            longitude=lon,
            delivery_radius_km=rng.choice((4.0, 5.0, 6.0, 6.0, 8.0)),
            min_order_cents=rng.choice((1000, 1200, 1500, 1500, 2000, 2500)),
            delivery_fee_cents=rng.choice((0, 199, 299, 299, 399)),
            prep_minutes=rng.choice((15, 20, 20, 25, 30)),
            price_level=rng.choice((1, 2, 2, 3)),
        )
        restaurants.append(restaurant)
        for weekday, intervals in sorted(HOURS[pattern].items()):
            for opens, closes in intervals:
                hours.append(
                    OpeningHours(
                        id=len(hours) + 1, restaurant_id=restaurant.id, weekday=weekday, opens=opens, closes=closes
                    )
                )
        menu = list(CUISINES[cuisine][1])
        for category, dish, price, description, group_names in rng.sample(menu, rng.randint(len(menu) - 2, len(menu))):
            item = MenuItem(
                id=f"ITM-{1001 + len(items)}",
                restaurant_id=restaurant.id,
                name=dish,
                category=category,
                description=description,
                price_cents=price + rng.choice((-100, -50, 0, 0, 50, 100)),
                available=rng.random() > 0.06,
            )
            items.append(item)
            for group_name in group_names:
                required, max_choices, choices = GROUPS[group_name]
                group = OptionGroup(
                    id=f"OPG-{1001 + len(groups)}",
                    item_id=item.id,
                    name=group_name,
                    required=required,
                    max_choices=max_choices,
                )
                groups.append(group)
                for option_name, delta in choices:
                    options.append(
                        Option(
                            id=f"OPT-{1001 + len(options)}",
                            group_id=group.id,
                            name=option_name,
                            price_delta_cents=delta,
                        )
                    )
    return restaurants, hours, items, groups, options


class _Menus:
    """Seed-time lookups of menus, hours and distances."""

    def __init__(
        self,
        restaurants: list[Restaurant],
        hours: list[OpeningHours],
        items: list[MenuItem],
        groups: list[OptionGroup],
        options: list[Option],
    ) -> None:
        self.restaurants = restaurants
        self.hours = {r.id: [h for h in hours if h.restaurant_id == r.id] for r in restaurants}
        self.items = {r.id: [i for i in items if i.restaurant_id == r.id and i.available] for r in restaurants}
        self.groups = {i.id: [g for g in groups if g.item_id == i.id] for i in items}
        self.options = {g.id: [o for o in options if o.group_id == g.id] for g in groups}

    def open_at(self, restaurant: Restaurant, at: datetime) -> bool:
        """Whether the restaurant is open at a moment."""
        return is_open([(h.weekday, _clock(h.opens), _clock(h.closes)) for h in self.hours[restaurant.id]], at)

    def near(self, address: Address) -> list[Restaurant]:
        """Restaurants that deliver to an address."""
        return [r for r in self.restaurants if self.distance(r, address) <= r.delivery_radius_km]

    @staticmethod
    def distance(restaurant: Restaurant, address: Address) -> float:
        """Kilometres from a restaurant to an address (rounded to 0.1, as the tools do)."""
        return distance_km(restaurant.latitude, restaurant.longitude, address.latitude, address.longitude)

    def line(self, rng: random.Random, restaurant: Restaurant) -> tuple[MenuItem, list[Option], int]:
        """A random available item with a valid choice of options, and its unit price."""
        item = rng.choice(self.items[restaurant.id])
        chosen: list[Option] = []
        for group in self.groups[item.id]:
            if group.required or rng.random() < 0.3:
                chosen.extend(rng.sample(self.options[group.id], 1))
        return item, chosen, item.price_cents + sum(o.price_delta_cents for o in chosen)


def _moment(rng: random.Random, menus: _Menus, restaurant: Restaurant, day: date) -> datetime | None:
    """A time on ``day`` at which the restaurant is open (None if none was found)."""
    for _ in range(20):
        at = datetime.combine(day, time(rng.randint(7, 21), rng.choice((0, 10, 15, 20, 30, 40, 45, 50))))
        if menus.open_at(restaurant, at):
            return at
    return None


def _orders(
    rng: random.Random,
    customers: list[Customer],
    addresses: list[Address],
    menus: _Menus,
    couriers: list[Courier],
    promotions: list[Promotion],
) -> tuple[list[Order], list[Rating]]:
    """Past orders (delivered or cancelled) and today's orders in every active status; ratings of some."""
    orders: list[Order] = []
    ratings: list[Rating] = []
    by_customer = {c.id: [a for a in addresses if a.customer_id == c.id] for c in customers}
    general = [p for p in promotions if p.restaurant_id is None and not p.first_order_only]
    plans: list[tuple[Customer, str]] = []
    for customer in customers:
        past = rng.choices((0, 1, 2, 3, 4, 5), weights=(3, 3, 3, 2, 2, 1))[0]
        plans.extend((customer, "past") for _ in range(past))
        if rng.random() < 0.6:
            kinds = ("placed", "placed", "accepted", "accepted", "preparing", "preparing", "picked_up", "delivered")
            plans.append((customer, rng.choice(kinds)))
    for customer, kind in plans:
        address = rng.choice(by_customer[customer.id])
        near = menus.near(address)
        if kind == "past":
            day = TODAY - timedelta(days=rng.randint(1, 90))
            candidates = [(r, at) for r in near if (at := _moment(rng, menus, r, day)) is not None]
        else:
            minutes = {"placed": 4, "accepted": 10, "preparing": 25, "picked_up": 40, "delivered": 75}[kind]
            at = NOW - timedelta(minutes=minutes + rng.randint(0, 8))
            candidates = [(r, at) for r in near if menus.open_at(r, at) and menus.items[r.id]]
        candidates = [(r, at) for r, at in candidates if menus.items[r.id]]
        if not candidates:
            continue
        restaurant, placed_at = rng.choice(candidates)
        lines: list[tuple[MenuItem, list[Option], int, int]] = []
        subtotal = 0
        while subtotal < restaurant.min_order_cents or (len(lines) < 3 and rng.random() < 0.4):
            item, chosen, unit = menus.line(rng, restaurant)
            quantity = rng.choice((1, 1, 1, 2))
            lines.append((item, chosen, unit, quantity))
            subtotal += unit * quantity
        promo = None
        discount = 0
        if rng.random() < 0.2:
            valid = [p for p in general if p.expires_on >= placed_at.date() and subtotal >= p.min_subtotal_cents]
            if valid:
                promo = rng.choice(valid)
                discount = _discount(promo, subtotal)
        distance = menus.distance(restaurant, address)
        travel = 5 + round(distance * 3)
        status = "delivered" if kind == "past" else kind
        if kind == "past" and rng.random() < 0.12:
            status = "cancelled"
        order = Order(
            id=f"ORD-{1001 + len(orders)}",
            customer_id=customer.id,
            restaurant_id=restaurant.id,
            address_id=address.id,
            status=status,
            promo_code=promo.code if promo else None,
            subtotal_cents=subtotal,
            discount_cents=discount,
            delivery_fee_cents=restaurant.delivery_fee_cents,
            total_cents=subtotal - discount + restaurant.delivery_fee_cents,
            distance_km=distance,
            placed_at=placed_at,
            estimated_delivery_at=placed_at + timedelta(minutes=restaurant.prep_minutes + 5 + travel),
        )
        steps = ("accepted", "preparing", "picked_up", "delivered")
        reached = 4 if status == "delivered" else steps.index(status) + 1 if status in steps else 0
        if status == "cancelled":
            reached = rng.choice((0, 1, 2))
            order.cancelled_at = placed_at + timedelta(minutes=rng.randint(2, 9))
            order.cancel_reason = rng.choice(("Ordered by mistake", "Taking too long", "Changed plans"))
        stamps = [
            placed_at + timedelta(minutes=2),
            placed_at + timedelta(minutes=5),
            placed_at + timedelta(minutes=restaurant.prep_minutes + 5),
            placed_at + timedelta(minutes=restaurant.prep_minutes + 5 + travel + rng.randint(-3, 6)),
        ]
        if kind == "delivered":  # delivered a few minutes ago
            stamps = [min(s, NOW - timedelta(minutes=3 - i)) for i, s in enumerate(stamps)]
        if kind == "picked_up":
            stamps[2] = min(stamps[2], NOW - timedelta(minutes=2))
        order.accepted_at = stamps[0] if reached >= 1 else None
        order.preparing_at = stamps[1] if reached >= 2 else None
        order.picked_up_at = stamps[2] if reached >= 3 else None
        order.delivered_at = stamps[3] if reached >= 4 else None
        if reached >= 3:
            order.courier_id = rng.choice(couriers).id
        for item, chosen, unit, quantity in lines:
            order.items.append(
                OrderItem(
                    item_id=item.id,
                    name=item.name,
                    options=", ".join(o.name for o in chosen),
                    quantity=quantity,
                    unit_price_cents=unit,
                )
            )
        orders.append(order)
    orders.sort(key=lambda o: (o.placed_at, o.id))
    for i, order in enumerate(orders):
        order.id = f"ORD-{1001 + i}"
    for order in orders:
        done = order.delivered_at if order.status == "delivered" else None
        if done is not None and done.date() < TODAY and rng.random() < 0.5:
            ratings.append(
                Rating(
                    id=f"RAT-{1001 + len(ratings)}",
                    order_id=order.id,
                    customer_id=order.customer_id,
                    restaurant_id=order.restaurant_id,
                    stars=rng.choices((1, 2, 3, 4, 5), weights=(1, 1, 2, 4, 5))[0],
                    comment=rng.choice(RATING_COMMENTS),
                    rated_on=min(TODAY, done.date() + timedelta(days=rng.randint(0, 2))),
                )
            )
    return orders, ratings


def _discount(promo: Promotion, subtotal: int) -> int:
    """The discount of a promotion on a subtotal, in cents (see the tools' rule)."""
    if promo.percent_off is not None:
        cents = subtotal * promo.percent_off // 100
        return min(cents, promo.max_discount_cents) if promo.max_discount_cents is not None else cents
    return min(promo.amount_off_cents or 0, subtotal)


def _promotions(rng: random.Random, restaurants: list[Restaurant]) -> list[Promotion]:
    """The promotion codes; restaurant-specific ones go to one restaurant of their cuisine."""
    out = []
    for code, text, percent, amount, cap, minimum, first, cuisine, expires in PROMOTIONS:
        restaurant = rng.choice([r for r in restaurants if r.cuisine == cuisine]) if cuisine else None
        out.append(
            Promotion(
                code=code,
                description=f"{text} ({restaurant.name} only)" if restaurant else text,
                percent_off=percent,
                amount_off_cents=amount,
                max_discount_cents=cap,
                min_subtotal_cents=minimum,
                first_order_only=first,
                restaurant_id=restaurant.id if restaurant else None,
                expires_on=expires,
            )
        )
    return out


def _carts(
    rng: random.Random,
    customers: list[Customer],
    addresses: list[Address],
    menus: _Menus,
    promotions: list[Promotion],
) -> tuple[list[Cart], list[CartItem]]:
    """Carts of about a third of the customers: most ready to check out, a few breaking one rule."""
    carts: list[Cart] = []
    lines: list[CartItem] = []
    homes = {a.customer_id: a for a in addresses if a.is_default}
    general = [p for p in promotions if p.restaurant_id is None and not p.first_order_only and p.expires_on >= TODAY]
    chosen = rng.sample(customers, 22)
    for n, customer in enumerate(chosen):
        home = homes[customer.id]
        near = [r for r in menus.near(home) if menus.items[r.id]]
        flaw = "closed" if n < 2 else "small" if n < 4 else "far" if n < 5 else None
        if flaw == "far":
            pool = [r for r in menus.restaurants if r not in near and menus.items[r.id] and menus.open_at(r, NOW)]
        elif flaw == "closed":
            pool = [r for r in near if not menus.open_at(r, NOW)]
        else:
            pool = [r for r in near if menus.open_at(r, NOW)]
        if flaw == "small":
            pool = [r for r in pool if min(i.price_cents for i in menus.items[r.id]) < r.min_order_cents]
        if not pool:
            continue
        restaurant = rng.choice(pool)
        cart = Cart(customer_id=customer.id, restaurant_id=restaurant.id)
        subtotal = 0
        seen: set[tuple[str, str]] = set()
        for _ in range(12):
            item, options, unit = menus.line(rng, restaurant)
            key = (item.id, ",".join(o.id for o in options))
            if flaw == "small" and unit >= restaurant.min_order_cents:
                continue
            if key in seen:
                continue
            seen.add(key)
            quantity = 1 if flaw == "small" else rng.choice((1, 1, 2))
            lines.append(
                CartItem(
                    id=f"CRT-{1001 + len(lines)}",
                    customer_id=customer.id,
                    item_id=item.id,
                    option_ids=key[1],
                    quantity=quantity,
                )
            )
            subtotal += unit * quantity
            if flaw == "small" or (subtotal >= restaurant.min_order_cents and rng.random() < 0.6):
                break
        if subtotal == 0:
            continue
        if flaw is None and rng.random() < 0.3:
            valid = [p for p in general if subtotal >= p.min_subtotal_cents]
            cart.promo_code = rng.choice(valid).code if valid else None
        carts.append(cart)
    return carts, lines


def seed(db: Session, rng: random.Random) -> None:
    """Fill an empty food delivery database deterministically.

    Args:
        db: Session on the freshly created schema.
        rng: The only source of randomness.
    """
    customers = _customers(rng)
    addresses = _addresses(rng, customers)
    restaurants, hours, items, groups, options = _restaurants(rng)
    menus = _Menus(restaurants, hours, items, groups, options)
    couriers = [
        Courier(
            id=f"COU-{1001 + i}",
            name=" ".join(PEOPLE.draw(rng)),
            phone=f"+1-503-555-{rng.randint(0, 9999):04d}",
            vehicle=rng.choice(COURIER_VEHICLES),
        )
        for i in range(15)
    ]
    promotions = _promotions(rng, restaurants)
    orders, ratings = _orders(rng, customers, addresses, menus, couriers, promotions)
    carts, lines = _carts(rng, customers, addresses, menus, promotions)
    for batch in (
        customers,
        addresses,
        restaurants,
        hours,
        items,
        groups,
        options,
        couriers,
        promotions,
        orders,
        ratings,
        carts,
        lines,
    ):
        db.add_all(batch)
        db.flush()
