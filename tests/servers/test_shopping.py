"""The shopping server, driven through a real MCP client on a fresh seeded database per test."""

from __future__ import annotations

from typing import Any

import pytest

from gym_mcp.servers.shopping import kit
from tests.helpers import LiveServer
from tests.servers.helpers import (
    assert_error,
    assert_every_tool_described,
    assert_listed_with_kinds,
    intent_placeholders,
)

TODAY = "2026-01-15"
WINDOW_START = "2025-12-16"  # deliveries on or after this day are inside the 30-day return window


@pytest.fixture
def srv() -> LiveServer:
    return LiveServer(kit, seed=0)


def one(s: LiveServer, sql: str, *params: Any) -> Any:
    """The single value of a query that must return at least one row."""
    rows = s.query(sql, *params)
    assert rows, f"no row for: {sql}"
    return rows[0][0]


def dump(s: LiveServer) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows without volatile columns, in a stable order."""
    volatile = kit.volatile_columns
    out = {}
    for table in kit.base.metadata.sorted_tables:
        cols = ", ".join(c.name for c in table.columns if c.name not in volatile.get(table.name, ()))
        out[table.name] = s.query(f"SELECT {cols} FROM {table.name} ORDER BY {cols}")
    return out


def stock(s: LiveServer, product_id: str) -> int:
    return one(s, "SELECT stock FROM products WHERE id = ?", product_id)


def cart_rows(s: LiveServer, customer_id: str) -> list[tuple[Any, ...]]:
    return s.query("SELECT product_id, quantity FROM cart_items WHERE customer_id = ? ORDER BY id", customer_id)


def empty_cart_customer(s: LiveServer) -> str:
    return one(s, "SELECT id FROM customers WHERE id NOT IN (SELECT customer_id FROM cart_items) ORDER BY id")


def in_stock_product(s: LiveServer, min_stock: int = 10, min_price_cents: int = 0) -> str:
    return one(
        s,
        "SELECT id FROM products WHERE stock >= ? AND price_cents >= ? ORDER BY id",
        min_stock,
        min_price_cents,
    )


# -- the server as a whole ---------------------------------------------------------------------


def test_tools_are_listed_with_kinds(srv: LiveServer) -> None:
    assert_listed_with_kinds(
        srv,
        kit,
        writes={"add_to_cart", "checkout", "cancel_order", "request_return", "apply_coupon"},
        reads={"search_products", "get_order", "view_cart", "get_return"},
    )


def test_every_tool_and_parameter_is_described(srv: LiveServer) -> None:
    assert_every_tool_described(srv, min_description=20)


def test_seed_has_enough_entities(srv: LiveServer) -> None:
    tables = [
        "categories",
        "products",
        "customers",
        "coupons",
        "orders",
        "order_items",
        "returns",
        "cart_items",
    ]
    counts = {t: one(srv, f"SELECT COUNT(*) FROM {t}") for t in tables}
    assert sum(counts.values()) >= 200
    assert counts["products"] >= 100
    assert counts["customers"] >= 50
    assert counts["orders"] >= 100


def test_seed_reaches_every_rule(srv: LiveServer) -> None:
    statuses = {row[0] for row in srv.query("SELECT DISTINCT status FROM orders")}
    assert statuses == {"placed", "paid", "shipped", "delivered", "cancelled"}
    assert one(srv, "SELECT COUNT(*) FROM products WHERE stock = 0") >= 3
    assert one(srv, "SELECT COUNT(*) FROM orders WHERE status='delivered' AND delivered_on >= ?", WINDOW_START) >= 5
    assert one(srv, "SELECT COUNT(*) FROM orders WHERE status='delivered' AND delivered_on < ?", WINDOW_START) >= 5
    assert one(srv, "SELECT COUNT(*) FROM cart_items") > 0
    assert one(srv, "SELECT COUNT(*) FROM order_items GROUP BY order_id ORDER BY 1 DESC") >= 2


def test_same_seed_same_data_other_seed_other_data() -> None:
    a, b, c = LiveServer(kit, seed=0), LiveServer(kit, seed=0), LiveServer(kit, seed=1)
    assert dump(a) == dump(b)
    assert dump(a)["products"] != dump(c)["products"]
    assert dump(a)["customers"] != dump(c)["customers"]
    assert dump(a)["orders"] != dump(c)["orders"]


def test_replaying_the_same_calls_gives_identical_state() -> None:
    def episode(s: LiveServer) -> Any:
        customer = empty_cart_customer(s)
        product = in_stock_product(s)
        s.ok("add_to_cart", customer_id=customer, product_id=product, quantity=2)
        s.error("add_to_cart", customer_id=customer, product_id=product, quantity=0)
        order = s.ok("checkout", customer_id=customer)
        s.ok("cancel_order", order_id=order["order_id"])
        return order

    a, b = LiveServer(kit), LiveServer(kit)
    assert episode(a) == episode(b)
    assert dump(a) == dump(b)


def test_bad_argument_types_are_rejected(srv: LiveServer) -> None:
    customer = empty_cart_customer(srv)
    product = in_stock_product(srv)
    srv.error("add_to_cart", customer_id=customer, product_id=product, quantity="lots")
    srv.error("add_to_cart", customer_id=customer, product_id=product, quantity=1.5)
    srv.error("get_product")
    assert cart_rows(srv, customer) == []


# -- catalog -----------------------------------------------------------------------------------


def test_list_categories(srv: LiveServer) -> None:
    cats = srv.ok("list_categories")
    assert len(cats) == 8
    assert sum(c["product_count"] for c in cats) == one(srv, "SELECT COUNT(*) FROM products")
    assert {"Electronics", "Books", "Grocery"} <= {c["category"] for c in cats}


def test_search_products_filters(srv: LiveServer) -> None:
    everything = srv.ok("search_products", limit=50)
    assert everything["total"] == 120
    assert len(everything["products"]) == 50
    prices = [p["price"] for p in everything["products"]]
    assert prices == sorted(prices)

    books = srv.ok("search_products", category="books", max_price=20, limit=50)
    assert books["total"] == one(
        srv,
        "SELECT COUNT(*) FROM products p JOIN categories c ON c.id = p.category_id "
        "WHERE c.name = 'Books' AND p.price_cents <= 2000",
    )
    assert all(p["category"] == "Books" and p["price"] <= 20 for p in books["products"])

    name = one(srv, "SELECT name FROM products WHERE stock = 0 ORDER BY id")
    word = name.split()[-1]
    hits = srv.ok("search_products", query=word.lower(), limit=50)
    assert name in {p["name"] for p in hits["products"]}
    in_stock = srv.ok("search_products", query=word, in_stock_only=True, limit=50)
    assert all(p["stock"] > 0 for p in in_stock["products"])
    assert name not in {p["name"] for p in in_stock["products"]}

    assert srv.ok("search_products", query="zzzz-no-such-thing")["total"] == 0


def test_search_products_errors(srv: LiveServer) -> None:
    msg = srv.error("search_products", category="Garden")
    assert "Unknown category" in msg
    assert "Electronics" in msg
    assert "max_price" in srv.error("search_products", max_price=0)
    assert "limit" in srv.error("search_products", limit=0)
    assert "limit" in srv.error("search_products", limit=500)


def test_get_product(srv: LiveServer) -> None:
    pid = one(srv, "SELECT id FROM products ORDER BY id")
    product = srv.ok("get_product", product_id=pid.lower())
    name, price, qty = srv.query("SELECT name, price_cents, stock FROM products WHERE id = ?", pid)[0]
    assert product["product_id"] == pid
    assert product["name"] == name
    assert product["price"] == round(price / 100, 2)
    assert product["stock"] == qty
    assert {"brand", "description", "rating", "category"} <= set(product)
    msg = srv.error("get_product", product_id="PRD-9999")
    assert "PRD-9999" in msg
    assert "search_products" in msg


# -- customers ---------------------------------------------------------------------------------


def test_find_and_get_customer(srv: LiveServer) -> None:
    cid, email = srv.query("SELECT id, email FROM customers ORDER BY id")[0]
    found = srv.ok("find_customer", query=email.upper())
    assert [c["customer_id"] for c in found] == [cid]
    last_name = one(srv, "SELECT name FROM customers WHERE id = ?", cid).split()[-1]
    assert cid in {c["customer_id"] for c in srv.ok("find_customer", query=last_name)}
    assert len(srv.ok("find_customer", query="an", limit=3)) == 3
    assert "at least 2" in srv.error("find_customer", query=" x ")

    profile = srv.ok("get_customer", customer_id=cid)
    assert profile["email"] == email
    assert profile["order_count"] == one(srv, "SELECT COUNT(*) FROM orders WHERE customer_id = ?", cid)
    msg = srv.error("get_customer", customer_id="CUS-0001")
    assert "CUS-0001" in msg
    assert "find_customer" in msg


# -- cart --------------------------------------------------------------------------------------


def test_view_cart_matches_the_database(srv: LiveServer) -> None:
    cid = one(srv, "SELECT customer_id FROM carts WHERE coupon_code IS NOT NULL")
    cart = srv.ok("view_cart", customer_id=cid)
    assert [(i["product_id"], i["quantity"]) for i in cart["items"]] == cart_rows(srv, cid)
    subtotal = sum(i["line_total"] for i in cart["items"])
    assert cart["subtotal"] == pytest.approx(subtotal)
    assert cart["coupon"] == "WELCOME10"
    assert cart["discount"] == pytest.approx(round(subtotal * 0.10, 2), abs=0.011)
    assert cart["total"] == pytest.approx(cart["subtotal"] - cart["discount"])
    assert srv.ok("view_cart", customer_id=empty_cart_customer(srv))["items"] == []
    assert "CUS-42" in srv.error("view_cart", customer_id="CUS-42")


def test_add_to_cart_adds_and_accumulates(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    pid = in_stock_product(srv)
    cart = srv.ok("add_to_cart", customer_id=cid, product_id=pid, quantity=2)
    assert [(i["product_id"], i["quantity"]) for i in cart["items"]] == [(pid, 2)]
    srv.ok("add_to_cart", customer_id=cid, product_id=pid)
    assert cart_rows(srv, cid) == [(pid, 3)]
    assert stock(srv, pid) >= 10  # adding to a cart reserves nothing


def test_add_to_cart_errors_change_nothing(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    before = dump(srv)
    out_of_stock = one(srv, "SELECT id FROM products WHERE stock = 0 ORDER BY id")
    msg = srv.error("add_to_cart", customer_id=cid, product_id=out_of_stock)
    assert "out of stock" in msg
    assert out_of_stock in msg

    low, available = srv.query("SELECT id, stock FROM products WHERE stock BETWEEN 1 AND 4 ORDER BY id")[0]
    msg = srv.error("add_to_cart", customer_id=cid, product_id=low, quantity=available + 1)
    assert "Not enough stock" in msg
    assert f"only {available} are available" in msg

    pid = in_stock_product(srv)
    assert "positive integer" in srv.error("add_to_cart", customer_id=cid, product_id=pid, quantity=0)
    assert "positive integer" in srv.error("add_to_cart", customer_id=cid, product_id=pid, quantity=-2)
    assert "PRD-0000" in srv.error("add_to_cart", customer_id=cid, product_id="PRD-0000")
    assert "CUS-0000" in srv.error("add_to_cart", customer_id="CUS-0000", product_id=pid)
    assert dump(srv) == before


def test_add_to_cart_counts_what_is_already_in_the_cart(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    pid, available = srv.query("SELECT id, stock FROM products WHERE stock BETWEEN 2 AND 4 ORDER BY id")[0]
    srv.ok("add_to_cart", customer_id=cid, product_id=pid, quantity=available)
    msg = srv.error("add_to_cart", customer_id=cid, product_id=pid, quantity=1)
    assert f"the cart would hold {available + 1}" in msg
    assert cart_rows(srv, cid) == [(pid, available)]


def test_update_cart_item(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    pid = in_stock_product(srv)
    srv.ok("add_to_cart", customer_id=cid, product_id=pid, quantity=1)
    cart = srv.ok("update_cart_item", customer_id=cid, product_id=pid, quantity=4)
    assert cart["items"][0]["quantity"] == 4
    assert cart_rows(srv, cid) == [(pid, 4)]

    too_many = stock(srv, pid) + 1
    assert "Not enough stock" in srv.error("update_cart_item", customer_id=cid, product_id=pid, quantity=too_many)
    assert "positive integer" in srv.error("update_cart_item", customer_id=cid, product_id=pid, quantity=0)
    other = one(srv, "SELECT id FROM products WHERE id != ? AND stock > 0 ORDER BY id", pid)
    msg = srv.error("update_cart_item", customer_id=cid, product_id=other, quantity=1)
    assert "not in" in msg
    assert "add_to_cart" in msg
    assert cart_rows(srv, cid) == [(pid, 4)]


def test_remove_from_cart(srv: LiveServer) -> None:
    cid = one(srv, "SELECT customer_id FROM cart_items GROUP BY customer_id HAVING COUNT(*) >= 2")
    first, second = cart_rows(srv, cid)[:2]
    cart = srv.ok("remove_from_cart", customer_id=cid, product_id=first[0])
    assert first[0] not in {i["product_id"] for i in cart["items"]}
    assert first not in cart_rows(srv, cid)
    assert second in cart_rows(srv, cid)
    assert "not in" in srv.error("remove_from_cart", customer_id=cid, product_id=first[0])


def test_apply_and_remove_coupon(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    assert "empty" in srv.error("apply_coupon", customer_id=cid, code="WELCOME10")
    pid = in_stock_product(srv, min_stock=5, min_price_cents=3000)
    price = one(srv, "SELECT price_cents FROM products WHERE id = ?", pid)
    srv.ok("add_to_cart", customer_id=cid, product_id=pid, quantity=1)

    cart = srv.ok("apply_coupon", customer_id=cid, code="fiveoff")
    assert cart["coupon"] == "FIVEOFF"
    assert cart["discount"] == 5.0
    assert cart["total"] == round((price - 500) / 100, 2)
    assert one(srv, "SELECT coupon_code FROM carts WHERE customer_id = ?", cid) == "FIVEOFF"

    assert "does not exist" in srv.error("apply_coupon", customer_id=cid, code="FREESTUFF")
    assert "expired on 2025-12-31" in srv.error("apply_coupon", customer_id=cid, code="HOLIDAY25")
    assert "no longer active" in srv.error("apply_coupon", customer_id=cid, code="VIP30")
    if price < 10000:
        msg = srv.error("apply_coupon", customer_id=cid, code="SAVE20")
        assert "at least $100.00" in msg
    assert one(srv, "SELECT coupon_code FROM carts WHERE customer_id = ?", cid) == "FIVEOFF"

    cart = srv.ok("remove_coupon", customer_id=cid)
    assert cart["coupon"] is None
    assert cart["discount"] == 0
    assert one(srv, "SELECT coupon_code FROM carts WHERE customer_id = ?", cid) is None
    assert "no coupon" in srv.error("remove_coupon", customer_id=cid)


# -- checkout ----------------------------------------------------------------------------------


def test_checkout_places_the_order(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    a, b = (r[0] for r in srv.query("SELECT id FROM products WHERE stock >= 10 ORDER BY id LIMIT 2"))
    stock_a, stock_b = stock(srv, a), stock(srv, b)
    srv.ok("add_to_cart", customer_id=cid, product_id=a, quantity=3)
    srv.ok("add_to_cart", customer_id=cid, product_id=b, quantity=1)
    srv.ok("apply_coupon", customer_id=cid, code="WELCOME10")
    expected_max = one(srv, "SELECT MAX(CAST(SUBSTR(id, 5) AS INTEGER)) FROM orders") + 1

    order = srv.ok("checkout", customer_id=cid)
    assert order["order_id"] == f"ORD-{expected_max}"
    assert order["status"] == "placed"
    assert order["placed_on"] == TODAY
    assert [(i["product_id"], i["quantity"]) for i in order["items"]] == [(a, 3), (b, 1)]
    assert order["coupon"] == "WELCOME10"
    assert order["total"] == pytest.approx(order["subtotal"] - order["discount"])
    assert order["discount"] == pytest.approx(round(order["subtotal"] * 0.1, 2), abs=0.011)
    assert order["shipping_address"] == one(srv, "SELECT address FROM customers WHERE id = ?", cid)

    assert stock(srv, a) == stock_a - 3
    assert stock(srv, b) == stock_b - 1
    assert cart_rows(srv, cid) == []
    assert one(srv, "SELECT coupon_code FROM carts WHERE customer_id = ?", cid) is None
    assert srv.query("SELECT status, customer_id, total_cents FROM orders WHERE id = ?", order["order_id"]) == [
        ("placed", cid, round(order["total"] * 100))
    ]
    assert srv.ok("get_order", order_id=order["order_id"]) == order
    assert srv.ok("list_orders", customer_id=cid)["orders"][0]["order_id"] == order["order_id"]


def test_checkout_with_address_and_consecutive_ids(srv: LiveServer) -> None:
    c1 = empty_cart_customer(srv)
    c2 = one(srv, "SELECT id FROM customers WHERE id > ? AND id NOT IN (SELECT customer_id FROM cart_items)", c1)
    pid = in_stock_product(srv)
    srv.ok("add_to_cart", customer_id=c1, product_id=pid)
    srv.ok("add_to_cart", customer_id=c2, product_id=pid)
    assert "10 to 200" in srv.error("checkout", customer_id=c1, shipping_address="here")
    first = srv.ok("checkout", customer_id=c1, shipping_address="  77 Birch Ln,   Boise, ID 83702 ")
    second = srv.ok("checkout", customer_id=c2)
    assert first["shipping_address"] == "77 Birch Ln, Boise, ID 83702"
    assert int(second["order_id"][4:]) == int(first["order_id"][4:]) + 1


def test_checkout_empty_cart(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    before = one(srv, "SELECT COUNT(*) FROM orders")
    assert_error(srv, "checkout", "empty", "add_to_cart", customer_id=cid)
    assert one(srv, "SELECT COUNT(*) FROM orders") == before
    assert "CUS-7777" in srv.error("checkout", customer_id="CUS-7777")


def test_failed_checkout_for_stock_changes_nothing(srv: LiveServer) -> None:
    c1 = empty_cart_customer(srv)
    c2 = one(srv, "SELECT id FROM customers WHERE id > ? AND id NOT IN (SELECT customer_id FROM cart_items)", c1)
    pid, available = srv.query("SELECT id, stock FROM products WHERE stock BETWEEN 1 AND 4 ORDER BY id")[0]
    filler = in_stock_product(srv)
    srv.ok("add_to_cart", customer_id=c1, product_id=pid, quantity=available)
    srv.ok("add_to_cart", customer_id=c2, product_id=filler, quantity=1)
    srv.ok("add_to_cart", customer_id=c2, product_id=pid, quantity=1)
    srv.ok("checkout", customer_id=c1)
    assert stock(srv, pid) == 0

    before = dump(srv)
    msg = srv.error("checkout", customer_id=c2)
    assert "Not enough stock" in msg
    assert pid in msg
    assert "available 0" in msg
    assert dump(srv) == before
    assert cart_rows(srv, c2) == [(filler, 1), (pid, 1)]


def test_checkout_rechecks_the_coupon(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    pid, price = srv.query(
        "SELECT id, price_cents FROM products WHERE stock >= 5 AND price_cents BETWEEN 6000 AND 9999 ORDER BY id"
    )[0]
    srv.ok("add_to_cart", customer_id=cid, product_id=pid, quantity=2)
    srv.ok("apply_coupon", customer_id=cid, code="SAVE20")
    cart = srv.ok("update_cart_item", customer_id=cid, product_id=pid, quantity=1)
    assert "coupon_warning" in cart
    assert cart["discount"] == 0
    before = dump(srv)
    msg = srv.error("checkout", customer_id=cid)
    assert "SAVE20" in msg
    assert "remove_coupon" in msg
    assert dump(srv) == before
    srv.ok("remove_coupon", customer_id=cid)
    assert srv.ok("checkout", customer_id=cid)["total"] == round(price / 100, 2)


# -- orders ------------------------------------------------------------------------------------


def test_list_orders(srv: LiveServer) -> None:
    cid = one(srv, "SELECT customer_id FROM orders GROUP BY customer_id HAVING COUNT(*) >= 3 ORDER BY 1")
    listed = srv.ok("list_orders", customer_id=cid)
    ids = [o["order_id"] for o in listed["orders"]]
    assert listed["total"] == len(ids) == one(srv, "SELECT COUNT(*) FROM orders WHERE customer_id = ?", cid)
    dates = [o["placed_on"] for o in listed["orders"]]
    assert dates == sorted(dates, reverse=True)
    assert len(srv.ok("list_orders", customer_id=cid, limit=1)["orders"]) == 1

    status = one(srv, "SELECT status FROM orders WHERE customer_id = ?", cid)
    filtered = srv.ok("list_orders", customer_id=cid, status=status.upper())
    assert filtered["orders"]
    assert all(o["status"] == status for o in filtered["orders"])
    assert "Unknown status" in srv.error("list_orders", customer_id=cid, status="lost")
    assert "CUS-0002" in srv.error("list_orders", customer_id="CUS-0002")


def test_get_order(srv: LiveServer) -> None:
    oid = one(srv, "SELECT id FROM orders WHERE status = 'delivered' ORDER BY id")
    order = srv.ok("get_order", order_id=oid)
    assert order["status"] == "delivered"
    assert {"delivered_on", "shipped_on", "return_by"} <= set(order)
    rows = srv.query("SELECT product_id, quantity FROM order_items WHERE order_id = ? ORDER BY id", oid)
    assert [(i["product_id"], i["quantity"]) for i in order["items"]] == rows
    assert order["total"] == round(one(srv, "SELECT total_cents FROM orders WHERE id = ?", oid) / 100, 2)
    msg = srv.error("get_order", order_id="ORD-1")
    assert "ORD-1" in msg
    assert "list_orders" in msg


def test_cancel_paid_order_refunds_and_restocks(srv: LiveServer) -> None:
    oid, total = srv.query("SELECT id, total_cents FROM orders WHERE status = 'paid' ORDER BY id")[0]
    items = srv.query("SELECT product_id, quantity FROM order_items WHERE order_id = ?", oid)
    before = {pid: stock(srv, pid) for pid, _ in items}
    result = srv.ok("cancel_order", order_id=oid)
    assert result == {"order_id": oid, "status": "cancelled", "refund": round(total / 100, 2)}
    assert srv.query("SELECT status, cancelled_on FROM orders WHERE id = ?", oid) == [("cancelled", TODAY)]
    for pid, qty in items:
        assert stock(srv, pid) == before[pid] + qty
    assert "already cancelled" in srv.error("cancel_order", order_id=oid)


def test_cancel_placed_order_has_no_refund(srv: LiveServer) -> None:
    oid = one(srv, "SELECT id FROM orders WHERE status = 'placed' ORDER BY id")
    assert srv.ok("cancel_order", order_id=oid)["refund"] == 0


def test_cancel_shipped_or_delivered_order_fails(srv: LiveServer) -> None:
    before = dump(srv)
    shipped = one(srv, "SELECT id FROM orders WHERE status = 'shipped' ORDER BY id")
    assert_error(srv, "cancel_order", "cannot be cancelled", "shipped", order_id=shipped)
    delivered = one(srv, "SELECT id FROM orders WHERE status = 'delivered' ORDER BY id")
    assert_error(srv, "cancel_order", "delivered", "request_return", order_id=delivered)
    assert "ORD-0" in srv.error("cancel_order", order_id="ORD-0")
    assert dump(srv) == before


def test_update_shipping_address(srv: LiveServer) -> None:
    oid = one(srv, "SELECT id FROM orders WHERE status = 'paid' ORDER BY id")
    result = srv.ok("update_shipping_address", order_id=oid, address="500 Harbor Way, Savannah, GA 31401")
    assert result["shipping_address"] == "500 Harbor Way, Savannah, GA 31401"
    assert one(srv, "SELECT shipping_address FROM orders WHERE id = ?", oid) == result["shipping_address"]
    assert "10 to 200" in srv.error("update_shipping_address", order_id=oid, address="x")

    for status in ("shipped", "delivered"):
        other = one(srv, "SELECT id FROM orders WHERE status = ? ORDER BY id", status)
        old = one(srv, "SELECT shipping_address FROM orders WHERE id = ?", other)
        msg = srv.error("update_shipping_address", order_id=other, address="500 Harbor Way, Savannah, GA 31401")
        assert "cannot be changed" in msg
        assert status in msg
        assert one(srv, "SELECT shipping_address FROM orders WHERE id = ?", other) == old
    cancelled = one(srv, "SELECT id FROM orders WHERE status = 'cancelled' ORDER BY id")
    assert "cancelled" in srv.error("update_shipping_address", order_id=cancelled, address="1 Elm St, Omaha, NE")


# -- returns -----------------------------------------------------------------------------------


def _returnable_item(s: LiveServer) -> tuple[str, str, int, int]:
    """(order id, product id, quantity, unit price cents) of a multi-unit line of a recent delivery."""
    return s.query(
        "SELECT o.id, i.product_id, i.quantity, i.unit_price_cents FROM orders o "
        "JOIN order_items i ON i.order_id = o.id "
        "WHERE o.status = 'delivered' AND o.delivered_on >= ? AND i.quantity >= 2 "
        "AND o.id NOT IN (SELECT order_id FROM returns) AND o.discount_cents = 0 ORDER BY o.id",
        WINDOW_START,
    )[0]


def test_request_return(srv: LiveServer) -> None:
    oid, pid, qty, unit = _returnable_item(srv)
    expected_id = f"RET-{one(srv, 'SELECT MAX(CAST(SUBSTR(id, 5) AS INTEGER)) FROM returns') + 1}"
    ret = srv.ok("request_return", order_id=oid, product_id=pid, quantity=1, reason="Arrived damaged")
    assert ret["return_id"] == expected_id
    assert ret["status"] == "requested"
    assert ret["requested_on"] == TODAY
    assert ret["refund"] == round(unit / 100, 2)
    assert srv.query("SELECT order_id, product_id, quantity, status FROM returns WHERE id = ?", expected_id) == [
        (oid, pid, 1, "requested")
    ]
    assert srv.ok("get_return", return_id=expected_id.lower()) == ret
    assert {"return_id": expected_id, "product_id": pid, "quantity": 1, "status": "requested"} in srv.ok(
        "get_order", order_id=oid
    )["returns"]

    before = dump(srv)
    msg = srv.error("request_return", order_id=oid, product_id=pid, quantity=qty, reason="Wrong size")
    assert f"at most {qty - 1}" in msg
    assert dump(srv) == before
    srv.ok("request_return", order_id=oid, product_id=pid, quantity=qty - 1, reason="Wrong size")
    assert "at most 0" in srv.error("request_return", order_id=oid, product_id=pid, quantity=1, reason="Wrong size")


def test_request_return_prorates_the_coupon_discount(srv: LiveServer) -> None:
    cid = empty_cart_customer(srv)
    pid = in_stock_product(srv, min_stock=5, min_price_cents=2000)
    srv.ok("add_to_cart", customer_id=cid, product_id=pid, quantity=2)
    srv.ok("apply_coupon", customer_id=cid, code="WELCOME10")
    order = srv.ok("checkout", customer_id=cid)
    msg = srv.error("request_return", order_id=order["order_id"], product_id=pid, quantity=1, reason="Too big")
    assert "only delivered orders" in msg
    assert "cancel_order" in msg
    # deliver it (there is no tool for the carrier), then return one of the two units
    srv.conn.execute(
        "UPDATE orders SET status = 'delivered', shipped_on = ?, delivered_on = ? WHERE id = ?",
        (TODAY, TODAY, order["order_id"]),
    )
    srv.conn.commit()
    ret = srv.ok("request_return", order_id=order["order_id"], product_id=pid, quantity=1, reason="Too big")
    assert ret["refund"] == pytest.approx(order["total"] / 2, abs=0.011)


def test_request_return_errors(srv: LiveServer) -> None:
    before = dump(srv)
    old = one(srv, "SELECT id FROM orders WHERE status = 'delivered' AND delivered_on < ? ORDER BY id", WINDOW_START)
    old_pid = one(srv, "SELECT product_id FROM order_items WHERE order_id = ?", old)
    msg = srv.error("request_return", order_id=old, product_id=old_pid, quantity=1, reason="Changed my mind")
    assert "within 30 days" in msg
    assert "window closed" in msg

    shipped = one(srv, "SELECT id FROM orders WHERE status = 'shipped' ORDER BY id")
    shipped_pid = one(srv, "SELECT product_id FROM order_items WHERE order_id = ?", shipped)
    msg = srv.error("request_return", order_id=shipped, product_id=shipped_pid, quantity=1, reason="Late")
    assert "only delivered orders" in msg

    oid, pid, qty, _ = _returnable_item(srv)
    stranger = one(
        srv,
        "SELECT id FROM products WHERE id NOT IN (SELECT product_id FROM order_items WHERE order_id = ?)",
        oid,
    )
    msg = srv.error("request_return", order_id=oid, product_id=stranger, quantity=1, reason="Wrong item")
    assert "not part of" in msg
    assert pid in msg
    assert f"at most {qty}" in srv.error(
        "request_return", order_id=oid, product_id=pid, quantity=qty + 1, reason="Wrong size"
    )
    assert "positive integer" in srv.error("request_return", order_id=oid, product_id=pid, quantity=0, reason="x y z")
    assert "reason" in srv.error("request_return", order_id=oid, product_id=pid, quantity=1, reason=" ")
    assert "ORD-5" in srv.error("request_return", order_id="ORD-5", product_id=pid, quantity=1, reason="Late")
    assert dump(srv) == before


def test_get_and_list_returns(srv: LiveServer) -> None:
    rid, oid, status = srv.query("SELECT id, order_id, status FROM returns ORDER BY id")[0]
    ret = srv.ok("get_return", return_id=rid)
    assert ret["order_id"] == oid
    assert ret["status"] == status
    msg = srv.error("get_return", return_id="RET-1")
    assert "RET-1" in msg
    assert "list_returns" in msg

    cid = one(srv, "SELECT customer_id FROM orders WHERE id = ?", oid)
    listed = srv.ok("list_returns", customer_id=cid)
    assert rid in {r["return_id"] for r in listed}
    assert len(listed) == one(
        srv, "SELECT COUNT(*) FROM returns r JOIN orders o ON o.id = r.order_id WHERE o.customer_id = ?", cid
    )
    no_returns = one(
        srv,
        "SELECT id FROM customers WHERE id NOT IN "
        "(SELECT o.customer_id FROM returns r JOIN orders o ON o.id = r.order_id)",
    )
    assert srv.ok("list_returns", customer_id=no_returns) == []
    assert "limit" in srv.error("list_returns", customer_id=cid, limit=0)


def test_every_tool_has_a_synthesis_intent() -> None:
    for name, info in kit.tools.items():
        intent_placeholders(name, info)
        for pname, values in info.samples.items():
            assert len(values) >= 3, f"{name}.{pname}"
