"""Payments tools for wallets: list them, quote a currency conversion, move money between a customer's wallets."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, next_id
from gym_mcp.servers.payments.models import Currency, Transfer, Wallet, convert_minor, quoted_rate
from gym_mcp.servers.payments.tools.common import (
    CURRENCY_SAMPLES,
    fmt,
    kit,
    load_currency,
    load_customer,
    load_wallet,
    major,
    to_minor,
    wallet_view,
    wallets_hint,
)


def _usd(db: Session) -> Currency:
    """The US dollar row (the unit of the per-operation maximum)."""
    return load_currency(db, "USD")


@kit.tool(write=False, intent="List the wallets of customer {customer_id}")
def list_wallets(db: Session, customer_id: str) -> list[dict[str, Any]]:
    """List a customer's wallets: one balance per currency, with the wallet id to pay or transfer from.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
    """
    customer = load_customer(db, customer_id)
    rows = db.scalars(select(Wallet).where(Wallet.customer_id == customer.id).order_by(Wallet.id))
    return [wallet_view(db, w) for w in rows]


@kit.tool(
    write=False,
    intent="How much is {amount} {from_currency} in {to_currency}?",
    samples={
        "amount": (10, 25, 100, 250, 1000, 5000),
        "from_currency": CURRENCY_SAMPLES,
        "to_currency": CURRENCY_SAMPLES,
    },
)
def convert_currency(db: Session, amount: float, from_currency: str, to_currency: str) -> dict[str, Any]:
    """Quote a conversion at the service's fixed exchange rates; nothing is moved.

    The converted amount is amount x rate, rounded half up to the target currency's minor unit
    (cents; JPY has none). transfer_between_wallets and pay_payment_request convert the same way.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        amount: Amount in from_currency, e.g. 100 or 12.50.
        from_currency: Currency code to convert from, e.g. "EUR".
        to_currency: Currency code to convert to, e.g. "JPY".
    """
    source = load_currency(db, from_currency, "from_currency")
    target = load_currency(db, to_currency, "to_currency")
    if source.code == target.code:
        raise ToolError(f"from_currency and to_currency are both {source.code}; pick two different currencies.")
    minor = to_minor(amount, source, _usd(db))
    converted = convert_minor(minor, source, target)
    return {
        "from_currency": source.code,
        "to_currency": target.code,
        "amount": major(minor, source),
        "rate": float(quoted_rate(source, target)),
        "converted_amount": major(converted, target),
    }


@kit.tool(
    write=True,
    intent="Move {amount} (in its own currency) out of wallet {from_wallet_id} into wallet {to_wallet_id}",
    confirm="amount >= 1000",
)
def transfer_between_wallets(db: Session, from_wallet_id: str, to_wallet_id: str, amount: float) -> dict[str, Any]:
    """Move money between two wallets of the same customer, converting at the fixed rates.

    The amount is in the source wallet's currency; the destination is credited the converted
    amount, rounded half up to its minor unit (see convert_currency). The source must hold the
    whole amount. To get money from another customer, use create_payment_request instead.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        from_wallet_id: Wallet to debit, e.g. "WAL-1001".
        to_wallet_id: Wallet of the same customer to credit, e.g. "WAL-1002".
        amount: Amount in the source wallet's currency, e.g. 150 or 20.50 (whole numbers for JPY).
    """
    source = load_wallet(db, from_wallet_id, "from_wallet_id")
    target = load_wallet(db, to_wallet_id, "to_wallet_id")
    if source.id == target.id:
        raise ToolError(
            f"from_wallet_id and to_wallet_id are both {source.id}; a transfer needs two different wallets."
        )
    if source.customer_id != target.customer_id:
        raise ToolError(
            f"Wallet {target.id} belongs to {target.customer_id}, not to {source.customer_id} who owns {source.id}; "
            f"transfers are only between one customer's own wallets ({source.customer_id}'s: "
            f"{wallets_hint(db, source.customer_id)}). To collect money from another customer, use "
            "create_payment_request."
        )
    src = load_currency(db, source.currency)
    dst = load_currency(db, target.currency)
    debited = to_minor(amount, src, _usd(db))
    if debited > source.balance_minor:
        raise ToolError(
            f"Insufficient funds in wallet {source.id}: it holds {fmt(source.balance_minor, src)} but the transfer is "
            f"{fmt(debited, src)}. Transfer at most {fmt(source.balance_minor, src)}."
        )
    credited = convert_minor(debited, src, dst)
    if credited <= 0:
        raise ToolError(
            f"{fmt(debited, src)} converts to less than the smallest {dst.code} unit; transfer a larger amount."
        )
    source.balance_minor -= debited
    target.balance_minor += credited
    rate = quoted_rate(src, dst)
    transfer = Transfer(
        id=next_id(db, Transfer.id, "TRF"),
        customer_id=source.customer_id,
        from_wallet_id=source.id,
        to_wallet_id=target.id,
        debited_minor=debited,
        credited_minor=credited,
        rate=str(rate),
        transferred_on=kit.today,
    )
    db.add(transfer)
    db.flush()
    return {
        "transfer_id": transfer.id,
        "from_wallet_id": source.id,
        "debited": major(debited, src),
        "from_currency": src.code,
        "to_wallet_id": target.id,
        "credited": major(credited, dst),
        "to_currency": dst.code,
        "rate": float(rate),
        "from_new_balance": major(source.balance_minor, src),
        "to_new_balance": major(target.balance_minor, dst),
    }
