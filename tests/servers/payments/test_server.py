"""The payments server, driven through a real MCP client on an in-memory database: the server as a whole."""

from __future__ import annotations

from gym_mcp.servers.payments import kit
from tests.helpers import LiveServer
from tests.servers.helpers import (
    assert_listed_with_kinds,
    dump,
    listed_tools,
)
from tests.servers.payments.common import EXPIRED_METHOD, TABLES, wallet_pair

WRITES = {
    "transfer_between_wallets",
    "create_payment",
    "capture_payment",
    "refund_payment",
    "open_dispute",
    "create_payment_request",
    "pay_payment_request",
    "decline_payment_request",
}
READS = {
    "find_customer",
    "list_payment_methods",
    "list_wallets",
    "convert_currency",
    "list_payments",
    "get_payment",
    "list_payment_requests",
}


def test_tools_are_listed_with_kinds(pay: LiveServer) -> None:
    assert_listed_with_kinds(pay, kit, writes=WRITES, reads=READS)
    assert set(kit.tools) == WRITES | READS
    assert {n for n, info in kit.tools.items() if info.write} == WRITES
    metas = {t.name: t.meta for t in listed_tools(pay)}
    assert metas["refund_payment"]["gym_mcp/confirm"] == "always"
    assert metas["open_dispute"]["gym_mcp/confirm"] == "always"
    assert metas["get_payment"]["gym_mcp/kind"] == "read"


def test_seed_has_enough_entities(pay: LiveServer) -> None:
    counts = {t: pay.query(f"SELECT count(*) FROM {t}")[0][0] for t in TABLES}
    assert sum(counts.values()) >= 200
    assert counts["customers"] >= 50
    assert counts["wallets"] >= 80
    assert counts["payment_methods"] >= 80
    assert counts["payments"] >= 150
    assert counts["payment_requests"] >= 60
    assert counts["currencies"] == 7
    # the error paths are reachable
    assert pay.query(f"SELECT count(*) FROM payment_methods WHERE {EXPIRED_METHOD}")[0][0] >= 5
    for status in ("authorized", "captured", "partially_refunded", "refunded", "disputed"):
        assert pay.query("SELECT count(*) FROM payments WHERE status = ?", status)[0][0] >= 5, status
    for status in ("pending", "paid", "declined", "expired"):
        assert pay.query("SELECT count(*) FROM payment_requests WHERE status = ?", status)[0][0] >= 5, status
    assert pay.query("SELECT count(*) FROM payments WHERE status = 'captured' AND captured_on < '2025-11-16'")[0][0]
    assert pay.query("SELECT count(*) FROM payments WHERE status = 'captured' AND captured_on >= '2025-11-16'")[0][0]


def test_seed_is_internally_consistent(pay: LiveServer) -> None:
    # refunds add up to what each payment says was refunded, never more than was captured
    assert (
        pay.query(
            """SELECT p.id FROM payments p LEFT JOIN refunds r ON r.payment_id = p.id GROUP BY p.id
           HAVING coalesce(sum(r.amount_minor), 0) != p.refunded_minor OR p.refunded_minor > p.captured_minor"""
        )
        == []
    )
    assert pay.query("SELECT id FROM payments WHERE captured_minor > authorized_minor") == []
    assert pay.query("SELECT id FROM payments WHERE status = 'refunded' AND refunded_minor != captured_minor") == []
    assert pay.query("SELECT id FROM payments WHERE status = 'authorized' AND captured_minor != 0") == []
    # every disputed payment has a dispute, opened within 60 days of its capture
    assert (
        pay.query(
            """SELECT p.id FROM payments p LEFT JOIN disputes d ON d.payment_id = p.id WHERE p.status = 'disputed'
           AND (d.id IS NULL OR julianday(d.opened_on) - julianday(p.captured_on) > 60)"""
        )
        == []
    )
    # a payment is charged to the customer's own method, never after the card expired
    assert (
        pay.query(
            """SELECT p.id FROM payments p JOIN payment_methods m ON m.id = p.payment_method_id
           WHERE m.customer_id != p.customer_id
              OR (m.exp_year IS NOT NULL AND strftime('%Y%m', p.authorized_on) > printf('%d%02d', m.exp_year, m.exp_month))"""
        )
        == []
    )
    # one wallet per currency per customer; yen amounts are whole yen by construction; paid requests name a payer wallet
    assert pay.query("SELECT customer_id, currency FROM wallets GROUP BY 1, 2 HAVING count(*) > 1") == []
    assert (
        pay.query(
            """SELECT r.id FROM payment_requests r LEFT JOIN wallets w ON w.id = r.paid_from_wallet_id
           WHERE r.status = 'paid' AND (w.customer_id IS NULL OR w.customer_id != r.payer_id)"""
        )
        == []
    )
    assert pay.query("SELECT id FROM payment_requests WHERE status = 'pending' AND expires_on < '2026-01-15'") == []


def test_same_seed_same_data_other_seed_other_data(pay: LiveServer) -> None:
    assert dump(pay) == dump(LiveServer(kit, seed=0))
    other = dump(LiveServer(kit, seed=1))
    assert other != dump(pay)
    assert other["customers"] != dump(pay)["customers"]
    assert other["currencies"] == dump(pay)["currencies"]  # the rates are fixed


def test_replaying_calls_gives_identical_state() -> None:
    servers = [LiveServer(kit, seed=0), LiveServer(kit, seed=0)]
    results = []
    for server in servers:
        customer, usd, eur = wallet_pair(server, "USD", "EUR")
        method = server.query(
            f"SELECT id FROM payment_methods WHERE NOT ({EXPIRED_METHOD}) OR exp_year IS NULL ORDER BY id"
        )[0][0]
        payment = server.ok("create_payment", payment_method_id=method, amount=20, currency="GBP", merchant="Bookbarn")
        results.append(
            [
                server.ok("transfer_between_wallets", from_wallet_id=usd, to_wallet_id=eur, amount=12.34),
                payment,
                server.ok("capture_payment", payment_id=payment["payment_id"]),
                server.ok("refund_payment", payment_id=payment["payment_id"], amount=5, reason="Item returned"),
            ]
        )
    assert results[0] == results[1]
    assert dump(servers[0]) == dump(servers[1])
