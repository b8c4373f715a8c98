"""What the trading server's tests share: seed-data queries and small helpers."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import one, scalar

TABLES = (
    "exchanges",
    "instruments",
    "quotes",
    "accounts",
    "positions",
    "orders",
    "trades",
    "cash_movements",
    "watchlists",
    "watchlist_items",
)
OPEN_EXCHANGES = ("NYSE", "NASDAQ", "ARCA", "TSX")
CLOSED_EXCHANGES = ("LSE", "XETRA", "TSE")


def cash(server: LiveServer, account_id: str) -> int:
    return scalar(server, "SELECT cash_cents FROM accounts WHERE id = ?", account_id)


def held(server: LiveServer, account_id: str, symbol: str) -> tuple[int, int] | None:
    """(quantity, cost basis) of a position, or None."""
    rows = server.query(
        "SELECT quantity, cost_basis_cents FROM positions WHERE account_id = ? AND symbol = ?", account_id, symbol
    )
    return rows[0] if rows else None


def reserved(server: LiveServer, account_id: str) -> int:
    return scalar(
        server,
        "SELECT coalesce(sum(quantity * limit_price_cents), 0) FROM orders "
        "WHERE account_id = ? AND status = 'open' AND side = 'buy'",
        account_id,
    )


def quote(server: LiveServer, symbol: str) -> tuple[int, int, int]:
    """(bid, ask, last) in cents."""
    return one(server, "SELECT bid_cents, ask_cents, last_cents FROM quotes WHERE symbol = ?", symbol)


def open_symbol(server: LiveServer, *, max_ask: int = 20_000) -> tuple[str, int, int]:
    """(symbol, bid, ask) of an active lot-1 stock on an open exchange with an ask of at most ``max_ask`` cents."""
    return one(
        server,
        f"""SELECT i.symbol, q.bid_cents, q.ask_cents FROM instruments i JOIN quotes q ON q.symbol = i.symbol
            WHERE i.status = 'active' AND i.kind = 'stock' AND i.exchange IN {OPEN_EXCHANGES}
              AND q.ask_cents <= ? ORDER BY i.symbol""",
        max_ask,
    )


def closed_symbol(server: LiveServer, exchange: str = "LSE") -> tuple[str, int, int]:
    """(symbol, bid, ask) of an active instrument on a closed exchange."""
    return one(
        server,
        "SELECT i.symbol, q.bid_cents, q.ask_cents FROM instruments i JOIN quotes q ON q.symbol = i.symbol "
        "WHERE i.status = 'active' AND i.exchange = ? ORDER BY i.symbol",
        exchange,
    )


def rich_account(server: LiveServer) -> str:
    """An account with at least $5,000 of buying power."""
    return scalar(
        server,
        """SELECT a.id FROM accounts a WHERE a.cash_cents - (SELECT coalesce(sum(quantity * limit_price_cents), 0)
           FROM orders o WHERE o.account_id = a.id AND o.status = 'open' AND o.side = 'buy') > 500000 ORDER BY a.id""",
    )


def sellable_position(server: LiveServer) -> tuple[str, str, int, int]:
    """(account, symbol, quantity, free quantity) of a position on an open exchange with no open sell order."""
    return one(
        server,
        f"""SELECT p.account_id, p.symbol, p.quantity, p.quantity FROM positions p
            JOIN instruments i ON i.symbol = p.symbol
            WHERE i.exchange IN {OPEN_EXCHANGES} AND i.status = 'active' AND p.quantity >= 2
              AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.account_id = p.account_id AND o.symbol = p.symbol
                              AND o.status = 'open' AND o.side = 'sell')
            ORDER BY p.id""",
    )


def order_with(server: LiveServer, status: str, side: str | None = None) -> str:
    if side is None:
        return scalar(server, "SELECT id FROM orders WHERE status = ? ORDER BY id", status)
    return scalar(server, "SELECT id FROM orders WHERE status = ? AND side = ? ORDER BY id", status, side)
