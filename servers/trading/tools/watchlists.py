"""Trading tools for watchlists: named lists of symbols an account follows."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_length, dollars, next_id
from gym_mcp.servers.trading.models import Quote, Watchlist, WatchlistItem
from gym_mcp.servers.trading.tools.common import kit, load_account, load_instrument, load_watchlist

MAX_WATCHLISTS = 10
"""Most watchlists one account may have."""

MAX_SYMBOLS = 50
"""Most symbols on one watchlist."""


def _items(db: Session, watchlist: Watchlist) -> list[WatchlistItem]:
    return list(
        db.scalars(select(WatchlistItem).where(WatchlistItem.watchlist_id == watchlist.id).order_by(WatchlistItem.rank))
    )


def _view(db: Session, watchlist: Watchlist) -> dict[str, Any]:
    symbols = []
    for item in _items(db, watchlist):
        quote = db.get(Quote, item.symbol)
        symbols.append({"symbol": item.symbol, "last": dollars(quote.last_cents) if quote else None})
    return {
        "watchlist_id": watchlist.id,
        "account_id": watchlist.account_id,
        "name": watchlist.name,
        "symbols": symbols,
    }


@kit.tool(write=False, intent="List the watchlists of account {account_id}")
def list_watchlists(db: Session, account_id: str) -> list[dict[str, Any]]:
    """List an account's watchlists with their symbols (in list order) and last prices.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
    """
    account = load_account(db, account_id)
    rows = db.scalars(select(Watchlist).where(Watchlist.account_id == account.id).order_by(Watchlist.id))
    return [_view(db, w) for w in rows]


@kit.tool(
    write=True,
    intent="Create a watchlist named '{watchlist_name}' for account {account_id}",
    samples={
        "watchlist_name": (
            "Swing Trades",
            "Retirement Core",
            "Value Picks",
            "Growth Leaders",
            "Canada",
            "Income",
            "Tech Watch",
        )
    },
)
def create_watchlist(db: Session, account_id: str, watchlist_name: str) -> dict[str, Any]:
    """Create an empty watchlist for an account; fill it with add_to_watchlist.

    Names are unique per account (ignoring case) and an account has at most 10 watchlists.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        account_id: Account id, e.g. "ACC-1001".
        watchlist_name: Name of the list, 1 to 40 characters, e.g. "Dividend Ideas".
    """
    account = load_account(db, account_id)
    label = check_length(" ".join(watchlist_name.split()), "watchlist_name", 1, 40, ", e.g. 'Dividend Ideas'")
    existing = list(db.scalars(select(Watchlist).where(Watchlist.account_id == account.id).order_by(Watchlist.id)))
    clash = next((w for w in existing if w.name.lower() == label.lower()), None)
    if clash is not None:
        raise ToolError(
            f"{account.id} already has a watchlist named {clash.name!r} ({clash.id}); watchlist names are unique per "
            "account. Use that one (add_to_watchlist) or choose another name."
        )
    if len(existing) >= MAX_WATCHLISTS:
        raise ToolError(
            f"{account.id} already has {MAX_WATCHLISTS} watchlists, the maximum; delete one first (delete_watchlist)."
        )
    watchlist = Watchlist(id=next_id(db, Watchlist.id, "WL"), account_id=account.id, name=label)
    db.add(watchlist)
    db.flush()
    return _view(db, watchlist)


@kit.tool(write=True, intent="Add {symbol} to watchlist {watchlist_id}")
def add_to_watchlist(db: Session, watchlist_id: str, symbol: str) -> dict[str, Any]:
    """Add a symbol to the end of a watchlist; a symbol can be on a watchlist only once (at most 50 symbols).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        watchlist_id: Watchlist id, e.g. "WL-1001".
        symbol: Ticker symbol, e.g. "FJS".
    """
    watchlist = load_watchlist(db, watchlist_id)
    inst = load_instrument(db, symbol)
    items = _items(db, watchlist)
    if any(i.symbol == inst.symbol for i in items):
        raise ToolError(f"{inst.symbol} is already on watchlist {watchlist.id} ({watchlist.name}); nothing changed.")
    if len(items) >= MAX_SYMBOLS:
        raise ToolError(f"Watchlist {watchlist.id} already holds {MAX_SYMBOLS} symbols, the maximum; remove one first.")
    top = db.scalar(select(func.max(WatchlistItem.rank)).where(WatchlistItem.watchlist_id == watchlist.id)) or 0
    db.add(WatchlistItem(watchlist_id=watchlist.id, symbol=inst.symbol, rank=top + 1))
    db.flush()
    return _view(db, watchlist)


@kit.tool(write=True, intent="Remove {symbol} from watchlist {watchlist_id}")
def remove_from_watchlist(db: Session, watchlist_id: str, symbol: str) -> dict[str, Any]:
    """Remove a symbol from a watchlist (the others keep their order).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        watchlist_id: Watchlist id, e.g. "WL-1001".
        symbol: Ticker symbol on that watchlist, e.g. "FJS".
    """
    watchlist = load_watchlist(db, watchlist_id)
    wanted = symbol.strip().upper()
    item = db.get(WatchlistItem, (watchlist.id, wanted))
    if item is None:
        on = ", ".join(i.symbol for i in _items(db, watchlist)) or "no symbols"
        raise ToolError(f"{wanted} is not on watchlist {watchlist.id} ({watchlist.name}), which holds {on}.")
    db.delete(item)
    db.flush()
    return _view(db, watchlist)


@kit.tool(write=True, intent="Delete watchlist {watchlist_id}", confirm="always")
def delete_watchlist(db: Session, watchlist_id: str) -> dict[str, Any]:
    """Delete a watchlist and its symbols for good (orders and positions are not affected).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        watchlist_id: Watchlist id, e.g. "WL-1001".
    """
    watchlist = load_watchlist(db, watchlist_id)
    items = _items(db, watchlist)
    for item in items:
        db.delete(item)
    db.delete(watchlist)
    db.flush()
    return {
        "deleted": watchlist.id,
        "account_id": watchlist.account_id,
        "name": watchlist.name,
        "symbols_removed": len(items),
    }
