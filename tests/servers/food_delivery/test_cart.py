"""The food delivery server, driven through a real MCP client on an in-memory database: the cart."""

from __future__ import annotations

from tests.servers.food_delivery.common import FoodServer, cartless, seeded_cart, simple_items
from tests.servers.helpers import assert_error, dump, one, scalar


def _required_item(food: FoodServer) -> tuple[str, str, str, str]:
    """(item, its required group's first option, an option of another item, restaurant) of an available item."""
    item, option, restaurant = one(
        food,
        "SELECT i.id, o.id, i.restaurant_id FROM items i JOIN option_groups g ON g.item_id = i.id "
        "JOIN options o ON o.group_id = g.id WHERE g.required = 1 AND i.available = 1 "
        "AND (SELECT count(*) FROM option_groups WHERE item_id = i.id AND required = 1) = 1 ORDER BY i.id, o.id",
    )
    foreign = scalar(
        food, "SELECT o.id FROM options o JOIN option_groups g ON g.id = o.group_id WHERE g.item_id != ?", item
    )
    return item, option, foreign, restaurant


def test_get_cart(food: FoodServer) -> None:
    customer = cartless(food)
    assert food.ok("get_cart", customer_id=customer) == {
        "customer_id": customer,
        "restaurant_id": None,
        "items": [],
        "subtotal": 0.0,
        "promo_code": None,
        "discount": 0.0,
        "delivery_fee": 0.0,
        "total": 0.0,
    }
    owner, cart = seeded_cart(food, None)
    lines = food.query("SELECT id, quantity FROM cart_items WHERE customer_id = ? ORDER BY id", owner)
    assert [(x["cart_item_id"], x["quantity"]) for x in cart["items"]] == lines
    assert cart["subtotal"] == round(sum(x["line_total"] for x in cart["items"]), 2)
    assert cart["total"] == round(cart["subtotal"] - cart["discount"] + cart["delivery_fee"], 2)
    _, closed = seeded_cart(food, "restaurant_closed_warning")
    assert "next opens" in closed["restaurant_closed_warning"]
    _, small = seeded_cart(food, "minimum_order_warning")
    assert "minimum order" in small["minimum_order_warning"]
    assert_error(food, "get_cart", "find_customer", customer_id="CUS-0")


def test_add_to_cart(food: FoodServer) -> None:
    customer = cartless(food)
    item, option, _, restaurant = _required_item(food)
    top = scalar(food, "SELECT max(id) FROM cart_items")
    out = food.ok("add_to_cart", customer_id=customer, item_id=item, quantity=2, option_ids=[option.lower()])
    new_id = f"CRT-{int(top[4:]) + 1}"
    price, delta = one(
        food,
        "SELECT i.price_cents, o.price_delta_cents FROM items i, options o WHERE i.id = ? AND o.id = ?",
        item,
        option,
    )
    assert out["restaurant_id"] == restaurant
    assert out["items"][0]["cart_item_id"] == new_id
    assert out["items"][0]["unit_price"] == (price + delta) / 100
    assert out["subtotal"] == 2 * (price + delta) / 100
    assert food.query("SELECT customer_id, item_id, option_ids, quantity FROM cart_items WHERE id = ?", new_id) == [
        (customer, item, option, 2)
    ]
    assert food.query("SELECT restaurant_id FROM carts WHERE customer_id = ?", customer) == [(restaurant,)]
    again = food.ok("add_to_cart", customer_id=customer, item_id=item, option_ids=[option])
    assert [(x["cart_item_id"], x["quantity"]) for x in again["items"]] == [(new_id, 3)]
    plain = simple_items(food, restaurant)[0][0]
    more = food.ok("add_to_cart", customer_id=customer, item_id=plain)
    assert len(more["items"]) == 2


def test_add_to_cart_errors_change_nothing(food: FoodServer) -> None:
    customer = cartless(food)
    item, option, foreign, restaurant = _required_item(food)
    group = scalar(food, "SELECT name FROM option_groups WHERE item_id = ? AND required = 1", item)
    state = dump(food)
    assert_error(food, "add_to_cart", f"'{group}' (required)", option, "option_ids", customer_id=customer, item_id=item)
    assert_error(
        food, "add_to_cart", f"Option '{foreign}' does not belong to {item}", option, "get_item",
        customer_id=customer, item_id=item, option_ids=[option, foreign],
    )  # fmt: skip
    assert_error(food, "add_to_cart", "listed twice", customer_id=customer, item_id=item, option_ids=[option, option])
    single = scalar(
        food,
        "SELECT g.id FROM option_groups g WHERE g.max_choices = 1 AND (SELECT count(*) FROM options WHERE group_id = g.id) >= 2",
    )
    two = [r[0] for r in food.query("SELECT id FROM options WHERE group_id = ? ORDER BY id LIMIT 2", single)]
    single_item = scalar(food, "SELECT item_id FROM option_groups WHERE id = ?", single)
    assert_error(food, "add_to_cart", "at most 1 choice", customer_id=customer, item_id=single_item, option_ids=two)
    unavailable, owner = one(food, "SELECT id, restaurant_id FROM items WHERE available = 0 ORDER BY id")
    assert_error(food, "add_to_cart", "unavailable", owner, customer_id=customer, item_id=unavailable)
    assert_error(
        food, "add_to_cart", "quantity must be between 1 and 20", customer_id=customer, item_id=item, quantity=0
    )
    assert_error(food, "add_to_cart", "get_menu", customer_id=customer, item_id="ITM-1")
    assert dump(food) == state
    # one restaurant at a time
    plain = simple_items(food, restaurant)[0][0]
    food.ok("add_to_cart", customer_id=customer, item_id=plain)
    other = scalar(
        food,
        "SELECT id FROM items WHERE restaurant_id != ? AND available = 1 AND id NOT IN "
        "(SELECT item_id FROM option_groups WHERE required = 1) ORDER BY id",
        restaurant,
    )
    state = dump(food)
    err = assert_error(
        food, "add_to_cart", "one restaurant at a time", "clear_cart", restaurant, customer_id=customer, item_id=other
    )
    assert "Clear the cart first" in err
    assert dump(food) == state
    food.ok("clear_cart", customer_id=customer)
    assert food.ok("add_to_cart", customer_id=customer, item_id=other)["items"][0]["item_id"] == other


def test_update_cart_item(food: FoodServer) -> None:
    line, customer, quantity = one(food, "SELECT id, customer_id, quantity FROM cart_items ORDER BY id")
    out = food.ok("update_cart_item", cart_item_id=line, quantity=quantity + 2)
    assert next(x for x in out["items"] if x["cart_item_id"] == line)["quantity"] == quantity + 2
    assert out["customer_id"] == customer
    assert food.query("SELECT quantity FROM cart_items WHERE id = ?", line) == [(quantity + 2,)]
    assert_error(food, "update_cart_item", "already has quantity", cart_item_id=line, quantity=quantity + 2)
    assert_error(food, "update_cart_item", "between 1 and 20", "remove_from_cart", cart_item_id=line, quantity=0)
    assert_error(food, "update_cart_item", "get_cart", cart_item_id="CRT-9", quantity=1)
    assert food.query("SELECT quantity FROM cart_items WHERE id = ?", line) == [(quantity + 2,)]


def test_remove_from_cart(food: FoodServer) -> None:
    customer = scalar(
        food, "SELECT customer_id FROM cart_items GROUP BY customer_id HAVING count(*) >= 2 ORDER BY customer_id"
    )
    lines = [r[0] for r in food.query("SELECT id FROM cart_items WHERE customer_id = ? ORDER BY id", customer)]
    out = food.ok("remove_from_cart", cart_item_id=lines[0])
    assert out["removed"]["cart_item_id"] == lines[0]
    assert [x["cart_item_id"] for x in out["items"]] == lines[1:]
    assert food.query("SELECT count(*) FROM cart_items WHERE id = ?", lines[0]) == [(0,)]
    assert_error(food, "remove_from_cart", "get_cart", cart_item_id=lines[0])
    for line in lines[1:]:
        out = food.ok("remove_from_cart", cart_item_id=line)
    assert out["items"] == [] and out["restaurant_id"] is None
    assert food.query("SELECT restaurant_id, promo_code FROM carts WHERE customer_id = ?", customer) == [(None, None)]


def test_clear_cart(food: FoodServer) -> None:
    customer = scalar(food, "SELECT customer_id FROM carts WHERE promo_code IS NOT NULL ORDER BY customer_id")
    lines = food.query("SELECT count(*), sum(quantity) FROM cart_items WHERE customer_id = ?", customer)[0]
    out = food.ok("clear_cart", customer_id=customer)
    assert (out["lines_removed"], out["units_removed"]) == lines
    assert out["cart"]["items"] == []
    assert food.query("SELECT count(*) FROM cart_items WHERE customer_id = ?", customer) == [(0,)]
    assert food.query("SELECT restaurant_id, promo_code FROM carts WHERE customer_id = ?", customer) == [(None, None)]
    assert_error(food, "clear_cart", "already empty", customer_id=customer)
    assert_error(food, "clear_cart", "already empty", customer_id=cartless(food))
