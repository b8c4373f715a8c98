"""The food delivery server, driven through a real MCP client on an in-memory database: promotion codes."""

from __future__ import annotations

from tests.servers.food_delivery.common import FoodServer, cartless, deliverable, fill_cart, newcomer
from tests.servers.helpers import assert_error, dump, one, scalar


def test_list_promotions(food: FoodServer) -> None:
    valid = food.ok("list_promotions")
    assert [p["code"] for p in valid] == [
        r[0] for r in food.query("SELECT code FROM promotions WHERE expires_on >= '2026-01-15' ORDER BY code")
    ]
    assert not any(p["expired"] for p in valid)
    every = food.ok("list_promotions", include_expired=True)
    assert len(every) == scalar(food, "SELECT count(*) FROM promotions")
    code, restaurant = one(
        food, "SELECT code, restaurant_id FROM promotions WHERE restaurant_id IS NOT NULL ORDER BY code"
    )
    there = food.ok("list_promotions", restaurant_id=restaurant)
    assert code in [p["code"] for p in there]
    assert all(p["restaurant_id"] in (None, restaurant) for p in there)
    welcome = next(p for p in valid if p["code"] == "WELCOME15")
    assert welcome["first_order_only"] is True and welcome["percent_off"] == 15 and welcome["max_discount"] == 10
    assert_error(food, "list_promotions", "search_restaurants", restaurant_id="RST-1")


def test_apply_and_remove_promotion(food: FoodServer) -> None:
    customer = cartless(food)
    restaurant = deliverable(food, customer)
    cart = fill_cart(food, customer, restaurant, 3000)
    out = food.ok("apply_promotion", customer_id=customer, code=" save5 ")
    assert out["promo_code"] == "SAVE5"
    assert out["discount"] == 5.0
    assert out["total"] == round(cart["subtotal"] - 5 + cart["delivery_fee"], 2)
    assert food.query("SELECT promo_code FROM carts WHERE customer_id = ?", customer) == [("SAVE5",)]
    assert_error(food, "apply_promotion", "already applied", customer_id=customer, code="SAVE5")
    pct = food.ok("apply_promotion", customer_id=customer, code="WINTER10")
    assert pct["discount"] == round(int(cart["subtotal"] * 100) * 10 // 100 / 100, 2)
    removed = food.ok("remove_promotion", customer_id=customer)
    assert removed["promo_code"] is None and removed["discount"] == 0
    assert food.query("SELECT promo_code FROM carts WHERE customer_id = ?", customer) == [(None,)]
    assert_error(food, "remove_promotion", "no promotion code applied", customer_id=customer)
    assert_error(food, "remove_promotion", "no promotion code applied", customer_id=cartless(food))
    assert_error(food, "remove_promotion", "find_customer", customer_id="CUS-3")


def test_apply_promotion_conditions(food: FoodServer) -> None:
    customer = cartless(food)
    assert_error(food, "apply_promotion", "cart is empty", customer_id=customer, code="SAVE5")
    restaurant = deliverable(food, customer)
    fill_cart(food, customer, restaurant)
    subtotal = food.ok("get_cart", customer_id=customer)["subtotal"]
    state = dump(food)
    assert_error(food, "apply_promotion", "does not exist", "list_promotions", customer_id=customer, code="FREEFOOD")
    assert_error(food, "apply_promotion", "expired on 2025-12-31", customer_id=customer, code="HOLIDAY20")
    err = assert_error(
        food, "apply_promotion", "at least $50.00", f"${subtotal:,.2f}", customer_id=customer, code="BIGEATS"
    )
    assert "more" in err
    placed = scalar(food, "SELECT count(*) FROM orders WHERE customer_id = ? AND status != 'cancelled'", customer)
    assert_error(
        food, "apply_promotion", "first order only", f"{placed} order(s)", customer_id=customer, code="WELCOME15"
    )
    code, elsewhere = one(
        food,
        "SELECT code, restaurant_id FROM promotions WHERE restaurant_id IS NOT NULL AND restaurant_id != ?",
        restaurant,
    )
    assert_error(food, "apply_promotion", "only valid at", elsewhere, restaurant, customer_id=customer, code=code)
    assert dump(food) == state
    # a customer who never ordered gets the first-order code
    first, near = newcomer(food)
    fill_cart(food, first, near)
    assert food.ok("apply_promotion", customer_id=first, code="welcome15")["promo_code"] == "WELCOME15"
