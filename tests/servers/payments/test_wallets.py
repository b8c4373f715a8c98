"""The payments server, driven through a real MCP client on an in-memory database: wallets and conversions."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import dump, one, scalar
from tests.servers.payments.common import balance, wallet_pair


def test_list_wallets(pay: LiveServer) -> None:
    customer = scalar(pay, "SELECT customer_id FROM wallets GROUP BY customer_id HAVING count(*) >= 2 ORDER BY 1")
    wallets = pay.ok("list_wallets", customer_id=customer)
    rows = pay.query("SELECT id, currency, balance_minor FROM wallets WHERE customer_id = ? ORDER BY id", customer)
    assert [w["wallet_id"] for w in wallets] == [r[0] for r in rows]
    for wallet, (_, currency, minor) in zip(wallets, rows, strict=True):
        assert wallet["currency"] == currency
        assert wallet["balance"] == (minor if currency == "JPY" else minor / 100)
    assert "find_customer" in pay.error("list_wallets", customer_id="CUS-0001")


def test_convert_currency(pay: LiveServer) -> None:
    out = pay.ok("convert_currency", amount=100, from_currency="usd", to_currency="JPY")
    assert out == {
        "from_currency": "USD",
        "to_currency": "JPY",
        "amount": 100,
        "rate": 148.5,
        "converted_amount": 14850,
    }
    eur = pay.ok("convert_currency", amount=10, from_currency="EUR", to_currency="GBP")
    assert eur["rate"] == 0.858696
    assert eur["converted_amount"] == 8.59  # 8.58696 rounded half up to cents
    yen = pay.ok("convert_currency", amount=1000, from_currency="JPY", to_currency="USD")
    assert yen["converted_amount"] == 6.73
    assert "not a whole number" in pay.error("convert_currency", amount=12.5, from_currency="JPY", to_currency="USD")
    assert "more than 2 decimals" in pay.error("convert_currency", amount=1.234, from_currency="EUR", to_currency="USD")
    err = pay.error("convert_currency", amount=10, from_currency="XYZ", to_currency="USD")
    assert "not supported" in err
    assert "JPY" in err
    assert "both EUR" in pay.error("convert_currency", amount=10, from_currency="EUR", to_currency="eur")
    assert "greater than 0" in pay.error("convert_currency", amount=0, from_currency="EUR", to_currency="USD")
    assert "maximum" in pay.error("convert_currency", amount=10_000_000, from_currency="USD", to_currency="EUR")


def test_transfer_between_wallets_converts(pay: LiveServer) -> None:
    customer, usd, jpy = wallet_pair(pay, "USD", "JPY")
    a, b = balance(pay, usd), balance(pay, jpy)
    out = pay.ok("transfer_between_wallets", from_wallet_id=usd, to_wallet_id=jpy, amount=20.5)
    assert out["debited"] == 20.5
    assert out["credited"] == 3044  # 20.50 x 148.5 = 3044.25, rounded to whole yen
    assert balance(pay, usd) == a - 2050
    assert balance(pay, jpy) == b + 3044
    assert out["from_new_balance"] == (a - 2050) / 100
    row = pay.query(
        "SELECT customer_id, from_wallet_id, to_wallet_id, debited_minor, credited_minor, rate, transferred_on "
        "FROM transfers WHERE id = ?",
        out["transfer_id"],
    )
    assert row == [(customer, usd, jpy, 2050, 3044, "148.500000", "2026-01-15")]
    back = pay.ok("transfer_between_wallets", from_wallet_id=jpy, to_wallet_id=usd, amount=1000)
    assert back["credited"] == 6.73
    assert back["transfer_id"] == f"TRF-{int(out['transfer_id'][4:]) + 1}"


def test_transfer_errors_change_nothing(pay: LiveServer) -> None:
    customer, usd, eur = wallet_pair(pay, "USD", "EUR")
    state = dump(pay)
    assert "two different wallets" in pay.error(
        "transfer_between_wallets", from_wallet_id=usd, to_wallet_id=usd, amount=5
    )
    cents = balance(pay, usd)
    err = pay.error("transfer_between_wallets", from_wallet_id=usd, to_wallet_id=eur, amount=(cents + 100) / 100)
    assert "Insufficient funds" in err
    assert f"USD {cents / 100:,.2f}" in err
    stranger = scalar(pay, "SELECT id FROM wallets WHERE customer_id != ? ORDER BY id", customer)
    err = pay.error("transfer_between_wallets", from_wallet_id=usd, to_wallet_id=stranger, amount=5)
    assert "own wallets" in err
    assert "create_payment_request" in err
    assert eur in err  # names the customer's own wallets
    jpy_customer, jpy, other = one(
        pay,
        "SELECT a.customer_id, a.id, b.id FROM wallets a JOIN wallets b ON b.customer_id = a.customer_id "
        "AND b.currency != 'JPY' WHERE a.currency = 'JPY' ORDER BY a.id",
    )
    assert "whole number" in pay.error("transfer_between_wallets", from_wallet_id=jpy, to_wallet_id=other, amount=10.5)
    assert "greater than 0" in pay.error("transfer_between_wallets", from_wallet_id=jpy, to_wallet_id=other, amount=0)
    assert "WAL-0042" in pay.error("transfer_between_wallets", from_wallet_id="WAL-0042", to_wallet_id=eur, amount=5)
    assert dump(pay) == state
    assert jpy_customer
