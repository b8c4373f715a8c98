"""Trading tools for positions: what an account holds, valued at the last price."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import dollars
from gym_mcp.servers.trading.models import Position
from gym_mcp.servers.trading.tools.common import (
    account_summary,
    kit,
    load_account,
    load_instrument,
    position_view,
    quote_of,
)


@kit.tool(write=False, intent="List the positions held in account {account_id}")
def list_positions(db: Session, account_id: str) -> dict[str, Any]:
    """List what an account holds: each position's quantity, average cost and value at the last price.

    available_to_sell is the quantity less shares reserved by open sell orders. Also returns the
    account's cash, buying power and total value.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
    """
    account = load_account(db, account_id)
    positions = list(db.scalars(select(Position).where(Position.account_id == account.id).order_by(Position.symbol)))
    return {**account_summary(db, account, positions), "positions": [position_view(db, p) for p in positions]}


@kit.tool(write=False, intent="Show the position in {symbol} held by account {account_id}")
def get_position(db: Session, account_id: str, symbol: str) -> dict[str, Any]:
    """Get an account's position in one instrument: quantity, available to sell, average cost, value and P&L.

    When the account holds none of it, returns held false and quantity 0 (it cannot sell any).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
        symbol: Ticker symbol, e.g. "FJS".
    """
    account = load_account(db, account_id)
    inst = load_instrument(db, symbol)
    position = db.scalar(select(Position).where(Position.account_id == account.id, Position.symbol == inst.symbol))
    if position is None:
        return {
            "account_id": account.id,
            "symbol": inst.symbol,
            "held": False,
            "quantity": 0,
            "last": dollars(quote_of(db, inst).last_cents),
        }
    return {"account_id": account.id, "held": True, **position_view(db, position), "opened_on": position.opened_on}
