"""Banking tools that move money: deposits, cash withdrawals and transfers between accounts."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.banking.models import Payee
from gym_mcp.servers.banking.tools.common import (
    check_can_receive,
    check_can_send,
    kit,
    load_account,
    post_transaction,
    withdrawn_today,
)
from gym_mcp.servers.kit import ToolError, dollars, format_dollars, to_cents


@kit.tool(
    write=True,
    intent="Deposit ${amount} into account {account_id}[ with the description '{description}']",
    samples={
        "description": ("Paycheck", "Cash deposit", "Check deposit", "Birthday gift", "Tax refund"),
    },
)
def deposit(db: Session, account_id: str, amount: float, description: str = "Deposit") -> dict[str, Any]:
    """Deposit money into an account (cash or check); into a credit account it is a payment.

    Works on active and frozen accounts, not closed ones; a payment into a credit account cannot
    exceed the amount owed. Returns the transaction id and the new balance.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account to credit, e.g. "ACC-1001".
        amount: Dollars, greater than 0 with at most 2 decimals, e.g. 250.00.
        description: Short note shown on the statement, e.g. "Paycheck".
    """
    account = load_account(db, account_id)
    cents = to_cents(amount)
    check_can_receive(account, cents)
    txn = post_transaction(db, account, "deposit", cents, description.strip() or "Deposit")
    return {
        "transaction_id": txn.id,
        "account_id": account.id,
        "amount": dollars(cents),
        "new_balance": dollars(account.balance_cents),
    }


@kit.tool(
    write=True,
    intent="Withdraw ${amount} in cash from account {account_id}",
    samples={"amount": (10, 20, 40, 60, 100, 200)},
)
def withdraw(db: Session, account_id: str, amount: float) -> dict[str, Any]:
    """Withdraw cash from a checking or savings account.

    The account must be active, hold enough money, and stay within its daily withdrawal limit
    (get_account shows what remains today). Credit accounts cannot withdraw cash.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account to debit, e.g. "ACC-1001".
        amount: Dollars, greater than 0 with at most 2 decimals, e.g. 100.00.
    """
    account = load_account(db, account_id)
    cents = to_cents(amount)
    if account.type == "credit":
        raise ToolError(
            f"{account.id} is a credit account; cash withdrawals are only possible from checking or savings "
            "accounts (list_accounts shows them)."
        )
    check_can_send(account, cents)
    withdrawn = withdrawn_today(db, account)
    limit = account.daily_withdrawal_limit_cents
    if withdrawn + cents > limit:
        raise ToolError(
            f"Daily withdrawal limit exceeded for {account.id}: the limit is {format_dollars(limit)}, "
            f"{format_dollars(withdrawn)} was already withdrawn today, so at most "
            f"{format_dollars(max(limit - withdrawn, 0))} more can be withdrawn today (asked {format_dollars(cents)})."
        )
    txn = post_transaction(db, account, "withdrawal", -cents, "Cash withdrawal")
    return {
        "transaction_id": txn.id,
        "account_id": account.id,
        "amount": dollars(cents),
        "new_balance": dollars(account.balance_cents),
        "withdrawal_remaining_today": dollars(limit - withdrawn - cents),
    }


@kit.tool(
    write=True,
    intent="Transfer ${amount} from account {from_account_id} to account {to_account_id}[ with the memo '{memo}']",
    confirm="amount >= 100",
    samples={
        "memo": ("Rent share", "Groceries", "Savings top-up", "Trip refund", "Card payment"),
    },
)
def transfer_funds(
    db: Session, from_account_id: str, to_account_id: str, amount: float, memo: str = ""
) -> dict[str, Any]:
    """Move money from one account to another account at this bank.

    The destination must belong to the same customer, or be the ACC- account of one of the
    sender's payees (add_payee first). The source must be active with enough funds; a transfer
    into a credit account pays it down and cannot exceed the amount owed. Creates a transfer_out
    and a transfer_in transaction.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        from_account_id: Account to debit, e.g. "ACC-1001".
        to_account_id: Account to credit, e.g. "ACC-1002".
        amount: Dollars, greater than 0 with at most 2 decimals, e.g. 500.00.
        memo: Optional note for both statements, e.g. "Rent share".
    """
    source = load_account(db, from_account_id)
    target = load_account(db, to_account_id)
    if source.id == target.id:
        raise ToolError(
            f"from_account_id and to_account_id are both {source.id}; a transfer needs two different accounts."
        )
    cents = to_cents(amount)
    if target.customer_id != source.customer_id:
        payee = db.scalar(
            select(Payee).where(Payee.customer_id == source.customer_id, Payee.account_number == target.id)
        )
        if payee is None:
            raise ToolError(
                f"{target.id} belongs to another customer and is not one of {source.customer_id}'s payees. "
                f"Add it with add_payee (account_number {target.id!r}), then transfer again or use pay_payee."
            )
    check_can_send(source, cents)
    check_can_receive(target, cents)
    note = f" - {memo.strip()}" if memo.strip() else ""
    out_txn = post_transaction(db, source, "transfer_out", -cents, f"Transfer to {target.id}{note}", target.id)
    in_txn = post_transaction(db, target, "transfer_in", cents, f"Transfer from {source.id}{note}", source.id)
    result: dict[str, Any] = {
        "amount": dollars(cents),
        "from_account_id": source.id,
        "from_new_balance": dollars(source.balance_cents),
        "to_account_id": target.id,
        "transaction_ids": [out_txn.id, in_txn.id],
    }
    if target.customer_id == source.customer_id:
        result["to_new_balance"] = dollars(target.balance_cents)
    return result
