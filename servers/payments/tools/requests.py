"""Payments tools for payment requests: one customer asks another for money, who pays it once or declines."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_status, next_id
from gym_mcp.servers.payments.models import (
    REQUEST_STATUSES,
    REQUEST_TTL_DAYS,
    Customer,
    PaymentRequest,
    Wallet,
    convert_minor,
    quoted_rate,
)
from gym_mcp.servers.payments.tools.common import (
    fmt,
    kit,
    load_currency,
    load_customer,
    load_request,
    load_wallet,
    major,
    request_view,
    to_minor,
    wallets_hint,
)

ROLES = ("all", "incoming", "outgoing")
MEMO_SAMPLES = ("Dinner split", "Concert tickets", "Rent share", "Taxi to the airport", "Groceries", "Ski trip")


@kit.tool(
    write=False,
    intent="List the[ {status}][ {role}] payment requests of customer {customer_id}",
    samples={"role": ("incoming", "outgoing", "all"), "status": REQUEST_STATUSES},
)
def list_payment_requests(
    db: Session, customer_id: str, role: str = "all", status: str | None = None
) -> list[dict[str, Any]]:
    """List payment requests a customer sent (outgoing) or must pay (incoming), newest first.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        customer_id: Customer id, e.g. "CUS-1001".
        role: "incoming" (the customer is asked to pay), "outgoing" (the customer asked) or "all".
        status: Only this status: pending, paid, declined or expired.
    """
    customer = load_customer(db, customer_id)
    which = role.strip().lower()
    if which not in ROLES:
        raise ToolError(f"role must be one of {', '.join(ROLES)}; got {role!r}")
    stmt = select(PaymentRequest)
    if which == "incoming":
        stmt = stmt.where(PaymentRequest.payer_id == customer.id)
    elif which == "outgoing":
        stmt = stmt.where(PaymentRequest.requester_id == customer.id)
    else:
        stmt = stmt.where(or_(PaymentRequest.payer_id == customer.id, PaymentRequest.requester_id == customer.id))
    if status is not None:
        wanted = status.strip().lower()
        if wanted not in REQUEST_STATUSES:
            raise ToolError(f"status must be one of {', '.join(REQUEST_STATUSES)}; got {status!r}")
        stmt = stmt.where(PaymentRequest.status == wanted)
    rows = db.scalars(stmt.order_by(PaymentRequest.requested_on.desc(), PaymentRequest.id.desc()))
    return [request_view(db, r) for r in rows]


@kit.tool(
    write=True,
    intent="Have customer {requester_id} request {amount} {currency} from customer {payer_id}[ for '{memo}']",
    samples={"memo": MEMO_SAMPLES},
)
def create_payment_request(
    db: Session, requester_id: str, payer_id: str, amount: float, currency: str, memo: str | None = None
) -> dict[str, Any]:
    """Send a payment request: one customer asks another for an amount in a currency.

    The request stays pending for 14 days; the payer pays it once with pay_payment_request (from
    any of their wallets, converted at the fixed rates) or declines it.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        requester_id: Customer asking for the money (who receives it), e.g. "CUS-1001".
        payer_id: Customer asked to pay, e.g. "CUS-1002".
        amount: Amount requested, e.g. 25.00 (whole numbers for JPY).
        currency: Currency code of the request, e.g. "EUR".
        memo: What it is for, up to 120 characters, e.g. "Dinner split".
    """
    requester = load_customer(db, requester_id, "requester_id")
    payer = load_customer(db, payer_id, "payer_id")
    if requester.id == payer.id:
        raise ToolError(
            f"requester_id and payer_id are both {requester.id}; a customer cannot request money from themselves."
        )
    cur = load_currency(db, currency)
    minor = to_minor(amount, cur, load_currency(db, "USD"))
    text = (memo or "").strip()
    if len(text) > 120:
        raise ToolError("memo must be at most 120 characters")
    request = PaymentRequest(
        id=next_id(db, PaymentRequest.id, "PRQ"),
        requester_id=requester.id,
        payer_id=payer.id,
        currency=cur.code,
        amount_minor=minor,
        memo=text,
        status="pending",
        requested_on=kit.today,
        expires_on=kit.today + timedelta(days=REQUEST_TTL_DAYS),
    )
    db.add(request)
    db.flush()
    return request_view(db, request)


def _check_pending(request: PaymentRequest, action: str) -> None:
    """Refuse to pay or decline a request that is no longer pending (the message says why)."""
    check_status(
        request,
        {
            "paid": f"Payment request {request.id} was already paid on {request.resolved_on} from wallet "
            f"{request.paid_from_wallet_id}; a request can be paid only once, so it cannot be {action}.",
            "declined": f"Payment request {request.id} was declined on {request.resolved_on}; only a pending "
            f"request can be {action}.",
            "expired": f"Payment request {request.id} expired on {request.expires_on}; only a pending request can "
            f"be {action}. The requester can send a new one (create_payment_request).",
        },
    )
    if request.expires_on < kit.today:
        raise ToolError(f"Payment request {request.id} expired on {request.expires_on}; it cannot be {action}.")


def _credit_wallet(db: Session, request: PaymentRequest) -> Wallet:
    """Where a paid request lands: the requester's wallet in its currency, else in their home currency."""
    wallets = list(db.scalars(select(Wallet).where(Wallet.customer_id == request.requester_id).order_by(Wallet.id)))
    requester = db.get(Customer, request.requester_id)
    home = requester.home_currency if requester else None
    for code in (request.currency, home):
        for wallet in wallets:
            if wallet.currency == code:
                return wallet
    if not wallets:
        raise ToolError(f"Requester {request.requester_id} has no wallet to receive the money.")
    return wallets[0]


@kit.tool(write=True, intent="Pay payment request {payment_request_id} from wallet {wallet_id}")
def pay_payment_request(db: Session, payment_request_id: str, wallet_id: str) -> dict[str, Any]:
    """Pay a pending payment request from one of the payer's wallets (a request is paid once).

    A wallet in another currency pays the converted amount (rounded half up, see
    convert_currency) and must hold all of it. The requester is credited in their wallet of the
    request's currency, or converted into their home-currency wallet.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        payment_request_id: Payment request id, e.g. "PRQ-1001".
        wallet_id: A wallet of the payer to pay from, e.g. "WAL-1001".
    """
    request = load_request(db, payment_request_id)
    wallet = load_wallet(db, wallet_id)
    _check_pending(request, "paid")
    if wallet.customer_id != request.payer_id:
        raise ToolError(
            f"Wallet {wallet.id} belongs to {wallet.customer_id}, not to {request.payer_id}, the payer of "
            f"{request.id}. Pay from one of {request.payer_id}'s wallets: {wallets_hint(db, request.payer_id)}."
        )
    req_cur = load_currency(db, request.currency)
    src = load_currency(db, wallet.currency)
    debit = convert_minor(request.amount_minor, req_cur, src)
    asked = fmt(request.amount_minor, req_cur)
    if debit > wallet.balance_minor:
        converted = "" if src.code == req_cur.code else f" ({asked} at {quoted_rate(req_cur, src)})"
        raise ToolError(
            f"Insufficient funds in wallet {wallet.id}: it holds {fmt(wallet.balance_minor, src)} but the request "
            f"needs {fmt(debit, src)}{converted}. {request.payer_id}'s wallets: "
            f"{wallets_hint(db, request.payer_id)}."
        )
    target = _credit_wallet(db, request)
    dst = load_currency(db, target.currency)
    credit = convert_minor(request.amount_minor, req_cur, dst)
    wallet.balance_minor -= debit
    target.balance_minor += credit
    request.status = "paid"
    request.resolved_on = kit.today
    request.paid_from_wallet_id = wallet.id
    return {
        **request_view(db, request),
        "debited": major(debit, src),
        "debited_currency": src.code,
        "wallet_new_balance": major(wallet.balance_minor, src),
        "credited_wallet_id": target.id,
        "credited": major(credit, dst),
        "credited_currency": dst.code,
    }


@kit.tool(
    write=True,
    intent="Decline payment request {payment_request_id}[ with the reason '{reason}']",
    samples={"reason": ("Already paid in cash", "Wrong amount", "I don't know this person", "Paid another way")},
)
def decline_payment_request(db: Session, payment_request_id: str, reason: str | None = None) -> dict[str, Any]:
    """Decline a pending payment request for the payer; it can then no longer be paid.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        payment_request_id: Payment request id, e.g. "PRQ-1001".
        reason: Optional note for the requester, up to 200 characters, e.g. "Already paid in cash".
    """
    request = load_request(db, payment_request_id)
    _check_pending(request, "declined")
    text = (reason or "").strip()
    if len(text) > 200:
        raise ToolError("reason must be at most 200 characters")
    request.status = "declined"
    request.resolved_on = kit.today
    request.decline_reason = text or None
    return request_view(db, request)
