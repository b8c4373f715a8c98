"""Banking tools for payees: list, add and remove them, and pay them."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.banking.models import BANK_NAME, Account, Customer, Payee
from gym_mcp.servers.banking.tools.common import (
    check_can_receive,
    check_can_send,
    kit,
    load_account,
    load_customer,
    load_payee,
    payee_view,
    post_transaction,
)
from gym_mcp.servers.kit import ToolError, check_length, dollars, next_id, to_cents

_EXTERNAL_NUMBER = re.compile(r"^\d{6,17}$")

_INTERNAL_NUMBER = re.compile(r"^ACC-\d+$")


@kit.tool(write=False, intent="List the saved payees of customer {customer_id}")
def list_payees(db: Session, customer_id: str) -> list[dict[str, Any]]:
    """List a customer's saved payees (people and billers they can pay with pay_payee).

    Payees at this bank have an ACC- account number; others have a digits-only number.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
    """
    customer = load_customer(db, customer_id)
    rows = db.scalars(select(Payee).where(Payee.customer_id == customer.id).order_by(Payee.id))
    return [payee_view(p) for p in rows]


@kit.tool(
    write=True,
    intent=(
        "Add {payee_name} as a payee of customer {customer_id} with account number {account_number}[ at {bank_name}]"
    ),
    samples={
        "payee_name": (
            "City Power & Light",
            "Metro Water Utility",
            "Northwind Telecom",
            "Riverside Gym",
            "Lakeside Dental",
            "Hana Chen",
            "Kwame Davis",
        ),
        # digits need a bank_name (an optional argument); ACC- ids (active in seed 0) are payees at this bank
        "account_number": ("123456789", "987654321", "7730019245", "ACC-1030", "ACC-1040", "ACC-1070", "ACC-1080"),
        "bank_name": (
            "First National Bank",
            "Pacific Credit Union",
            "Union Commerce Bank",
            "Granite State Bank",
            "Coastal Savings Bank",
        ),
    },
)
def add_payee(
    db: Session, customer_id: str, payee_name: str, account_number: str, bank_name: str | None = None
) -> dict[str, Any]:
    """Save a new payee for a customer so they can pay it with pay_payee.

    For someone banking here, give their account id as account_number (bank_name is then not
    needed); for another bank give the digits-only account number and the bank's name. The same
    account number cannot be saved twice for one customer, and a customer's own accounts are not
    payees (use transfer_funds between them).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer who adds the payee, e.g. "CUS-1001".
        payee_name: Name of the person or biller, 1 to 60 characters, e.g. "City Power & Light".
        account_number: "ACC-1042" for an account at this bank, or 6 to 17 digits, e.g. "123456789".
        bank_name: Bank of an external account, e.g. "First National Bank".
    """
    customer = load_customer(db, customer_id)
    name = check_length(payee_name.strip(), "payee_name", 1, 60, ", e.g. 'City Power & Light'")
    number = account_number.strip().upper()
    if _INTERNAL_NUMBER.match(number):
        target = load_account(db, number)
        if target.customer_id == customer.id:
            raise ToolError(
                f"{target.id} is {customer.id}'s own account; own accounts are not payees. "
                "Use transfer_funds to move money between them."
            )
        if target.status == "closed":
            raise ToolError(f"{target.id} is closed and cannot receive payments; ask for another account number.")
        bank = BANK_NAME
    else:
        number = re.sub(r"[\s-]", "", number)
        if not _EXTERNAL_NUMBER.match(number):
            raise ToolError(
                f"account_number {account_number!r} is not valid: use an account id like 'ACC-1042' for this "
                "bank, or 6 to 17 digits (spaces and dashes allowed) for another bank."
            )
        bank = (bank_name or "").strip()
        if not bank:
            raise ToolError("bank_name is required for an account at another bank, e.g. 'First National Bank'.")
        if bank.lower() == BANK_NAME.lower():
            raise ToolError(
                f"Accounts at {BANK_NAME} are identified by their account id (like 'ACC-1042'), not digits; "
                "pass that id as account_number."
            )
    existing = db.scalar(select(Payee).where(Payee.customer_id == customer.id, Payee.account_number == number))
    if existing is not None:
        raise ToolError(
            f"{customer.id} already has payee {existing.id} ({existing.name}) with account number {number}; "
            f"use {existing.id} instead of adding it again."
        )
    payee = Payee(
        id=next_id(db, Payee.id, "PAY"),
        customer_id=customer.id,
        name=name,
        bank_name=bank,
        account_number=number,
    )
    db.add(payee)
    db.flush()
    return {"customer_id": customer.id, **payee_view(payee)}


@kit.tool(write=True, intent="Remove payee {payee_id}", confirm="always")
def remove_payee(db: Session, payee_id: str) -> dict[str, Any]:
    """Delete a saved payee. Past payments stay on the statements.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        payee_id: Payee id, e.g. "PAY-1001".
    """
    payee = load_payee(db, payee_id)
    db.delete(payee)
    return {"removed": payee.id, "customer_id": payee.customer_id, "name": payee.name}


@kit.tool(
    write=True,
    intent="Pay ${amount} to payee {payee_id} from account {from_account_id}[ with the memo '{memo}']",
    confirm="amount >= 100",
    samples={
        "memo": ("January bill", "Invoice 2291", "Dinner", "Thanks!", "Monthly payment"),
    },
)
def pay_payee(db: Session, from_account_id: str, payee_id: str, amount: float, memo: str = "") -> dict[str, Any]:
    """Pay one of the account owner's saved payees (a bill or a person).

    The account must be active with enough funds and the payee must belong to the same customer.
    A payee at this bank is credited immediately. Returns the payment transaction and new balance.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        from_account_id: Account to pay from, e.g. "ACC-1001".
        payee_id: Payee id from list_payees, e.g. "PAY-1001".
        amount: Dollars, greater than 0 with at most 2 decimals, e.g. 89.99.
        memo: Optional note, e.g. "January bill".
    """
    source = load_account(db, from_account_id)
    payee = load_payee(db, payee_id)
    if payee.customer_id != source.customer_id:
        raise ToolError(
            f"Payee {payee.id} belongs to {payee.customer_id}, not to {source.customer_id} who owns "
            f"{source.id}. "
            f"Use list_payees with customer_id {source.customer_id!r} to see their payees."
        )
    cents = to_cents(amount)
    check_can_send(source, cents)
    target = db.get(Account, payee.account_number) if payee.bank_name == BANK_NAME else None
    if target is not None:
        if target.status == "closed":
            raise ToolError(
                f"Payee {payee.id}'s account {target.id} is closed; nothing was paid. "
                "Remove the payee (remove_payee) and add their new account."
            )
        check_can_receive(target, cents)
    note = f" - {memo.strip()}" if memo.strip() else ""
    txn = post_transaction(db, source, "payment", -cents, f"Payment to {payee.name}{note}", payee.id)
    if target is not None:
        owner = db.get(Customer, source.customer_id)
        sender = owner.name if owner else source.customer_id
        post_transaction(db, target, "transfer_in", cents, f"Payment from {sender}{note}", source.id)
    return {
        "transaction_id": txn.id,
        "from_account_id": source.id,
        "payee_id": payee.id,
        "payee_name": payee.name,
        "amount": dollars(cents),
        "new_balance": dollars(source.balance_cents),
    }
