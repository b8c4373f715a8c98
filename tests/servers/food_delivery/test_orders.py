"""The food delivery server, driven through a real MCP client on an in-memory database: checkout and orders."""

from __future__ import annotations

from gym_mcp.servers.food_delivery.hours import distance_km
from tests.servers.food_delivery.common import (
    FoodServer,
    cartless,
    deliverable,
    fill_cart,
    home,
    seeded_cart,
    simple_items,
)
from tests.servers.helpers import assert_error, dump, one, scalar


def test_checkout(food: FoodServer) -> None:
    customer = cartless(food)
    restaurant = deliverable(food, customer)
    cart = fill_cart(food, customer, restaurant, 3000)
    food.ok("apply_promotion", customer_id=customer, code="SAVE5")
    top = scalar(food, "SELECT max(id) FROM orders")
    out = food.ok("checkout", customer_id=customer)
    new_id = f"ORD-{int(top[4:]) + 1}"
    fee = cart["delivery_fee"]
    assert out["order_id"] == new_id
    assert out["status"] == "placed"
    assert out["placed_at"] == "2026-01-15T12:30"
    assert out["address_id"] == home(food, customer)
    assert (out["subtotal"], out["discount"], out["total"]) == (
        cart["subtotal"],
        5.0,
        round(cart["subtotal"] - 5 + fee, 2),
    )
    assert out["estimated_delivery_at"] > "2026-01-15T12:30"
    assert food.query(
        "SELECT customer_id, restaurant_id, status, promo_code, subtotal_cents, discount_cents, total_cents "
        "FROM orders WHERE id = ?",
        new_id,
    ) == [
        (
            customer,
            restaurant,
            "placed",
            "SAVE5",
            round(cart["subtotal"] * 100),
            500,
            round(cart["subtotal"] * 100) - 500 + round(fee * 100),
        )
    ]
    assert food.query("SELECT item_id, quantity FROM order_items WHERE order_id = ?", new_id) == [
        (x["item_id"], x["quantity"]) for x in cart["items"]
    ]
    assert food.query("SELECT count(*) FROM cart_items WHERE customer_id = ?", customer) == [(0,)]
    assert food.query("SELECT restaurant_id, promo_code FROM carts WHERE customer_id = ?", customer) == [(None, None)]
    assert_error(food, "checkout", "cart is empty", "add_to_cart", customer_id=customer)
    # the order shows up in the customer's list and can be tracked
    assert food.ok("list_orders", customer_id=customer)[0]["order_id"] == new_id
    assert food.ok("track_order", order_id=new_id)["minutes_away"] > 0


def test_checkout_rules_change_nothing(food: FoodServer) -> None:
    _, closed = seeded_cart(food, "restaurant_closed_warning")
    state = dump(food)
    err = assert_error(
        food, "checkout", "is closed now (Thursday 2026-01-15 12:30)", "next opens", customer_id=closed["customer_id"]
    )
    assert closed["restaurant_id"] in err
    _, small = seeded_cart(food, "minimum_order_warning")
    minimum = scalar(food, "SELECT min_order_cents FROM restaurants WHERE id = ?", small["restaurant_id"])
    assert_error(
        food, "checkout", "below", f"minimum order of ${minimum / 100:,.2f}", f"${small['subtotal']:,.2f}",
        customer_id=small["customer_id"],
    )  # fmt: skip
    assert_error(food, "checkout", "cart is empty", customer_id=cartless(food))
    assert dump(food) == state


def test_checkout_refuses_an_address_beyond_the_radius(food: FoodServer) -> None:
    customer = cartless(food)
    restaurant = deliverable(food, customer)
    fill_cart(food, customer, restaurant)
    far = food.ok(
        "add_address",
        customer_id=customer,
        label="Cabin",
        street="1 Far Rd, Portland",
        latitude=45.41,
        longitude=-122.84,
    )["address_id"]
    lat, lon, radius = one(
        food, "SELECT latitude, longitude, delivery_radius_km FROM restaurants WHERE id = ?", restaurant
    )
    km = distance_km(lat, lon, 45.41, -122.84)
    state = dump(food)
    err = assert_error(
        food, "checkout", f"{km:.1f} km", f"{radius:.1f} km delivery radius", far, customer_id=customer, address_id=far
    )
    assert "search_restaurants" in err
    stranger = scalar(food, "SELECT id FROM addresses WHERE customer_id != ? ORDER BY id", customer)
    assert_error(
        food, "checkout", "belongs to another customer", home(food, customer), customer_id=customer, address_id=stranger
    )
    assert_error(food, "checkout", "list_addresses", customer_id=customer, address_id="ADR-5")
    assert dump(food) == state
    assert food.ok("checkout", customer_id=customer, address_id=home(food, customer))["status"] == "placed"


def test_checkout_rechecks_the_promotion_and_availability(food: FoodServer) -> None:
    customer = cartless(food)
    restaurant = deliverable(food, customer)
    cart = fill_cart(food, customer, restaurant, 5000)
    food.ok("apply_promotion", customer_id=customer, code="BIGEATS")
    item, price = simple_items(food, restaurant)[0]
    minimum = scalar(food, "SELECT min_order_cents FROM restaurants WHERE id = ?", restaurant)
    line = cart["items"][0]["cart_item_id"]
    shown = food.ok("update_cart_item", cart_item_id=line, quantity=max(1, -(-minimum // price)))
    assert "at least $50.00" in shown["promo_warning"]
    state = dump(food)
    assert_error(
        food, "checkout", "BIGEATS needs a subtotal of at least $50.00", "remove_promotion", customer_id=customer
    )
    assert dump(food) == state
    food.ok("remove_promotion", customer_id=customer)
    food.conn.execute("UPDATE items SET available = 0 WHERE id = ?", (item,))  # the restaurant sold out
    food.conn.commit()
    assert_error(food, "checkout", "Unavailable now", line, "remove_from_cart", customer_id=customer)


def test_get_order(food: FoodServer) -> None:
    order, rating, stars = one(food, "SELECT order_id, id, stars FROM ratings ORDER BY id")
    out = food.ok("get_order", order_id=order)
    lines = food.query(
        "SELECT item_id, quantity, unit_price_cents FROM order_items WHERE order_id = ? ORDER BY id", order
    )
    assert [(x["item_id"], x["quantity"], x["unit_price"]) for x in out["items"]] == [
        (a, b, c / 100) for a, b, c in lines
    ]
    assert out["status"] == "delivered"
    assert out["rating"]["rating_id"] == rating and out["rating"]["stars"] == stars
    total = scalar(food, "SELECT total_cents FROM orders WHERE id = ?", order)
    assert out["total"] == total / 100
    cancelled = scalar(food, "SELECT id FROM orders WHERE status = 'cancelled'")
    assert food.ok("get_order", order_id=cancelled)["cancel_reason"]
    assert_error(food, "get_order", "ORD-1001", "list_orders", order_id="ORD-1")


def test_list_orders(food: FoodServer) -> None:
    customer = scalar(food, "SELECT customer_id FROM orders GROUP BY customer_id ORDER BY count(*) DESC, customer_id")
    out = food.ok("list_orders", customer_id=customer)
    assert [o["order_id"] for o in out] == [
        r[0]
        for r in food.query("SELECT id FROM orders WHERE customer_id = ? ORDER BY placed_at DESC, id DESC", customer)
    ]
    assert "items" not in out[0]
    assert len(food.ok("list_orders", customer_id=customer, limit=2)) == 2
    delivered = food.ok("list_orders", customer_id=customer, status="Delivered")
    assert delivered and {o["status"] for o in delivered} == {"delivered"}
    assert_error(food, "list_orders", "status must be one of", "picked_up", customer_id=customer, status="lost")
    assert_error(food, "list_orders", "limit must be between 1 and 100", customer_id=customer, limit=500)


def test_track_order(food: FoodServer) -> None:
    order, courier, name = one(
        food,
        "SELECT o.id, c.id, c.name FROM orders o JOIN couriers c ON c.id = o.courier_id WHERE o.status = 'picked_up'",
    )
    out = food.ok("track_order", order_id=order)
    assert out["status"] == "picked_up"
    assert out["courier"]["courier_id"] == courier and out["courier"]["name"] == name
    assert [s["status"] for s in out["timeline"]] == ["placed", "accepted", "preparing", "picked_up"]
    assert "estimated_delivery_at" in out and out["minutes_away"] >= 0
    placed = food.ok("track_order", order_id=scalar(food, "SELECT id FROM orders WHERE status = 'placed'"))
    assert "courier" not in placed and [s["status"] for s in placed["timeline"]] == ["placed"]
    delivered = food.ok("track_order", order_id=scalar(food, "SELECT id FROM orders WHERE status = 'delivered'"))
    assert "estimated_delivery_at" not in delivered and delivered["timeline"][-1]["status"] == "delivered"
    assert_error(food, "track_order", "list_orders", order_id="ORD-0")


def test_cancel_order(food: FoodServer) -> None:
    order, total = one(food, "SELECT id, total_cents FROM orders WHERE status = 'preparing' ORDER BY id")
    out = food.ok("cancel_order", order_id=order, reason="Ordered by mistake")
    assert out == {
        "order_id": order,
        "status": "cancelled",
        "cancelled_at": "2026-01-15T12:30",
        "refund": total / 100,
        "cancel_reason": "Ordered by mistake",
    }
    assert food.query("SELECT status, cancel_reason FROM orders WHERE id = ?", order) == [
        ("cancelled", "Ordered by mistake")
    ]
    assert_error(food, "cancel_order", "already cancelled", order_id=order)
    state = dump(food)
    picked, courier = one(
        food, "SELECT o.id, c.name FROM orders o JOIN couriers c ON c.id = o.courier_id WHERE o.status = 'picked_up'"
    )
    assert_error(food, "cancel_order", "cannot be cancelled once picked up", courier, "track_order", order_id=picked)
    delivered = scalar(food, "SELECT id FROM orders WHERE status = 'delivered'")
    assert_error(food, "cancel_order", "already delivered", order_id=delivered)
    placed = scalar(food, "SELECT id FROM orders WHERE status = 'placed'")
    assert_error(food, "cancel_order", "reason must be 3 to 200", order_id=placed, reason="no")
    assert dump(food) == state
    assert food.ok("cancel_order", order_id=placed)["cancel_reason"] is None


def test_rate_order(food: FoodServer) -> None:
    order, customer, restaurant = one(
        food,
        "SELECT id, customer_id, restaurant_id FROM orders WHERE status = 'delivered' "
        "AND id NOT IN (SELECT order_id FROM ratings) ORDER BY id",
    )
    top = scalar(food, "SELECT max(id) FROM ratings")
    state = dump(food)
    assert_error(food, "rate_order", "stars must be between 1 and 5", order_id=order, stars=6)
    assert_error(food, "rate_order", "comment must be 0 to 300", order_id=order, stars=4, comment="x" * 301)
    active = scalar(food, "SELECT id FROM orders WHERE status = 'accepted'")
    assert_error(food, "rate_order", "is accepted; only delivered orders can be rated", order_id=active, stars=5)
    cancelled = scalar(food, "SELECT id FROM orders WHERE status = 'cancelled'")
    assert_error(food, "rate_order", "is cancelled", order_id=cancelled, stars=5)
    assert dump(food) == state
    out = food.ok("rate_order", order_id=order, stars=4, comment=" Arrived hot ")
    new_id = f"RAT-{int(top[4:]) + 1}"
    assert out == {
        "rating_id": new_id,
        "order_id": order,
        "restaurant_id": restaurant,
        "stars": 4,
        "comment": "Arrived hot",
    }
    assert food.query(
        "SELECT order_id, customer_id, restaurant_id, stars, comment, rated_on FROM ratings WHERE id = ?", new_id
    ) == [(order, customer, restaurant, 4, "Arrived hot", "2026-01-15")]
    err = assert_error(food, "rate_order", "already rated", new_id, "only once", order_id=order, stars=1)
    assert "4 stars" in err
