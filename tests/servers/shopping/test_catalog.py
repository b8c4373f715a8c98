"""The shopping server, driven through a real MCP client on a fresh seeded database per test: catalog."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import scalar


def test_list_categories(srv: LiveServer) -> None:
    cats = srv.ok("list_categories")
    assert len(cats) == 8
    assert sum(c["product_count"] for c in cats) == scalar(srv, "SELECT COUNT(*) FROM products")
    assert {"Electronics", "Books", "Grocery"} <= {c["category"] for c in cats}


def test_search_products_filters(srv: LiveServer) -> None:
    everything = srv.ok("search_products", limit=50)
    assert everything["total"] == 120
    assert len(everything["products"]) == 50
    prices = [p["price"] for p in everything["products"]]
    assert prices == sorted(prices)

    books = srv.ok("search_products", category="books", max_price=20, limit=50)
    assert books["total"] == scalar(
        srv,
        "SELECT COUNT(*) FROM products p JOIN categories c ON c.id = p.category_id "
        "WHERE c.name = 'Books' AND p.price_cents <= 2000",
    )
    assert all(p["category"] == "Books" and p["price"] <= 20 for p in books["products"])

    name = scalar(srv, "SELECT name FROM products WHERE stock = 0 ORDER BY id")
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
    pid = scalar(srv, "SELECT id FROM products ORDER BY id")
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
