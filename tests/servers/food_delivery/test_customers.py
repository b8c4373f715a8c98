"""The food delivery server, driven through a real MCP client on an in-memory database: customers and addresses."""

from __future__ import annotations

from tests.servers.food_delivery.common import FoodServer
from tests.servers.helpers import assert_error, dump, one, scalar


def test_find_customer(food: FoodServer) -> None:
    customer, name, email = one(food, "SELECT id, name, email FROM customers ORDER BY id")
    found = food.ok("find_customer", query=name.upper())
    assert {"customer_id": customer, "name": name, "email": email} in [
        {k: c[k] for k in ("customer_id", "name", "email")} for c in found
    ]
    assert food.ok("find_customer", query=email)[0]["customer_id"] == customer
    assert food.ok("find_customer", query="zzzz-nobody") == []
    assert_error(food, "find_customer", "2 to 100", query=" x ")


def test_list_addresses(food: FoodServer) -> None:
    customer = scalar(food, "SELECT customer_id FROM addresses GROUP BY customer_id HAVING count(*) >= 2")
    out = food.ok("list_addresses", customer_id=customer)
    assert [a["address_id"] for a in out] == [
        r[0] for r in food.query("SELECT id FROM addresses WHERE customer_id = ? ORDER BY id", customer)
    ]
    assert sum(a["is_default"] for a in out) == 1
    assert {"label", "street", "latitude", "longitude"} <= set(out[0])
    assert_error(food, "list_addresses", "CUS-1001", "find_customer", customer_id="CUS-9")


def test_add_address(food: FoodServer) -> None:
    customer = scalar(food, "SELECT id FROM customers ORDER BY id")
    top = scalar(food, "SELECT max(id) FROM addresses")
    out = food.ok(
        "add_address",
        customer_id=customer,
        label="Office",
        street="815  Alder St, Portland, OR 97205",
        latitude=45.5152,
        longitude=-122.6784,
    )
    new_id = f"ADR-{int(top[4:]) + 1}"
    assert out == {
        "customer_id": customer,
        "address_id": new_id,
        "label": "Office",
        "street": "815 Alder St, Portland, OR 97205",
        "latitude": 45.5152,
        "longitude": -122.6784,
        "is_default": False,
    }
    assert food.query("SELECT customer_id, label, is_default FROM addresses WHERE id = ?", new_id) == [
        (customer, "Office", 0)
    ]
    made = food.ok(
        "add_address",
        customer_id=customer,
        label="Studio 2",
        street="2231 Hawthorne Blvd, Portland",
        latitude=45.5,
        longitude=-122.64,
        make_default=True,
    )
    assert food.query("SELECT id FROM addresses WHERE customer_id = ? AND is_default = 1", customer) == [
        (made["address_id"],)
    ]


def test_add_address_errors_change_nothing(food: FoodServer) -> None:
    customer = scalar(food, "SELECT id FROM customers ORDER BY id")
    label = scalar(food, "SELECT label FROM addresses WHERE customer_id = ?", customer)
    state = dump(food)
    args = {"customer_id": customer, "street": "815 Alder St, Portland", "latitude": 45.5, "longitude": -122.6}
    assert_error(
        food, "add_address", "already has an address labelled", "choose another label", label=label.lower(), **args
    )
    assert_error(food, "add_address", "outside the service area", "latitude", label="Far", **{**args, "latitude": 47.6})
    assert_error(food, "add_address", "longitude", **{**args, "longitude": -120.0}, label="Far")
    assert_error(food, "add_address", "label must be 1 to 40", label="  ", **args)
    assert_error(food, "add_address", "street must be 5 to 120", label="Ok", **{**args, "street": "x"})
    assert_error(food, "add_address", "find_customer", label="Ok", **{**args, "customer_id": "CUS-1"})
    assert dump(food) == state
    for n in range(8 - len(food.ok("list_addresses", customer_id=customer))):
        food.ok("add_address", label=f"Spot {n}", **args)
    assert_error(food, "add_address", "maximum is 8", label="One more", **args)
