"""Trading tools that read the market: the clock and exchange sessions, instruments and quotes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from gym_mcp.servers.kit import ToolError, check_limit, dollars, norm_id
from gym_mcp.servers.trading.data import SECTORS
from gym_mcp.servers.trading.models import INSTRUMENT_KINDS, Exchange, Instrument, Quote
from gym_mcp.servers.trading.tools.common import is_open, kit, load_instrument, now, quote_of, quote_view, session

EXCHANGE_SAMPLES = ("NYSE", "NASDAQ", "ARCA", "TSX", "LSE", "XETRA", "TSE")


def _exchange(db: Session, code: str) -> Exchange:
    exchange = db.get(Exchange, norm_id(code))
    if exchange is None:
        codes = ", ".join(db.scalars(select(Exchange.code).order_by(Exchange.code)))
        raise ToolError(f"Unknown exchange {code!r}; use one of {codes}.")
    return exchange


@kit.tool(
    write=False,
    intent="Check which exchanges are open right now[, looking only at {exchange}]",
    samples={"exchange": EXCHANGE_SAMPLES},
)
def get_market_clock(db: Session, exchange: str | None = None) -> dict[str, Any]:
    """Get the current time and which exchanges are open (the clock is fixed for the session).

    Market orders are accepted only on an open exchange; limit orders on a closed one wait for
    its next open. Each exchange shows its local time, its session hours, its status, and when it
    closes (open) or next opens (closed).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        exchange: Only this exchange, e.g. "LSE"; omit for all of them.
    """
    if exchange is not None:
        rows = [_exchange(db, exchange)]
    else:
        rows = list(db.scalars(select(Exchange).order_by(Exchange.utc_offset_minutes, Exchange.code)))
    return {"clock_utc": now().strftime("%Y-%m-%dT%H:%M"), "exchanges": [session(e) for e in rows]}


@kit.tool(
    write=False,
    intent=(
        "Search for instruments[ matching '{query}'][ in the {sector} sector][ listed on {exchange}]"
        "[ of kind {kind}][, showing at most {limit}]"
    ),
    samples={
        "query": ("Keel", "Energy", "Software", "Therapeutics", "Bancorp", "Mining", "Northwind", "Summit"),
        "sector": ("Technology", "Healthcare", "Financials", "Energy", "Consumer", "Industrials", "Diversified"),
        "exchange": EXCHANGE_SAMPLES,
        "kind": ("stock", "etf", "stock"),
    },
)
def search_instruments(
    db: Session,
    query: str | None = None,
    sector: str | None = None,
    exchange: str | None = None,
    kind: str | None = None,
    limit: int = 20,
) -> list[dict[str, Any]]:
    """Find stocks and ETFs by symbol or name, sector, exchange or kind; use it to get a symbol.

    Filters combine; with none, lists instruments by symbol. Returns {symbol, name, kind, sector,
    exchange, last, status} per instrument; status "halted" means no orders are accepted.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        query: Part of the symbol or the name, case-insensitive, e.g. "northwind" or "KT".
        sector: Exact sector, e.g. "Technology" (also Healthcare, Financials, Energy, Consumer,
            Industrials, Utilities, Materials, Communication, Real Estate, Diversified, Fixed
            Income, Commodities).
        exchange: Exchange code, e.g. "NYSE" (also NASDAQ, ARCA, TSX, LSE, XETRA, TSE).
        kind: "stock" or "etf".
        limit: Maximum number of instruments to return, 1 to 100.
    """
    check_limit(limit)
    stmt = select(Instrument)
    if query is not None:
        text = query.strip().lower()
        if not text:
            raise ToolError("query is empty; pass part of a name or symbol such as 'energy', or omit it")
        stmt = stmt.where(
            or_(
                func.lower(Instrument.name).contains(text, autoescape=True),
                func.lower(Instrument.symbol).contains(text, autoescape=True),
            )
        )
    if sector is not None:
        known = sorted({*SECTORS, "Diversified", "Fixed Income", "Commodities"})
        match = next((s for s in known if s.lower() == sector.strip().lower()), None)
        if match is None:
            raise ToolError(f"Unknown sector {sector!r}; use one of {', '.join(known)}.")
        stmt = stmt.where(Instrument.sector == match)
    if exchange is not None:
        stmt = stmt.where(Instrument.exchange == _exchange(db, exchange).code)
    if kind is not None:
        value = kind.strip().lower()
        if value not in INSTRUMENT_KINDS:
            raise ToolError(f"kind must be 'stock' or 'etf', got {kind!r}")
        stmt = stmt.where(Instrument.kind == value)
    out = []
    for inst in db.scalars(stmt.order_by(Instrument.symbol).limit(limit)):
        quote = db.get(Quote, inst.symbol)
        out.append(
            {
                "symbol": inst.symbol,
                "name": inst.name,
                "kind": inst.kind,
                "sector": inst.sector,
                "exchange": inst.exchange,
                "last": dollars(quote.last_cents) if quote else None,
                "status": inst.status,
            }
        )
    return out


@kit.tool(write=False, intent="Show the details of instrument {symbol}")
def get_instrument(db: Session, symbol: str) -> dict[str, Any]:
    """Get an instrument's details: name, kind, sector, exchange and its session, lot size, trading status.

    Orders must be a whole number of lots (lot_size shares; 100 on the Tokyo exchange, 1 elsewhere).
    A halted instrument accepts no orders.

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        symbol: Ticker symbol, e.g. "FJS" (Tokyo listings are four digits, e.g. "7604").
    """
    inst = load_instrument(db, symbol)
    _, market = is_open(db, inst)
    out: dict[str, Any] = {
        "symbol": inst.symbol,
        "name": inst.name,
        "kind": inst.kind,
        "sector": inst.sector,
        "exchange": inst.exchange,
        "lot_size": inst.lot_size,
        "status": inst.status,
        "market": {k: v for k, v in market.items() if k != "exchange"},
        "currency": "USD",
    }
    if inst.halt_reason:
        out["halt_reason"] = inst.halt_reason
    return out


@kit.tool(write=False, intent="Get the current quote for {symbol}")
def get_quote(db: Session, symbol: str) -> dict[str, Any]:
    """Get the quote of an instrument: bid, ask, last, previous close, change and volume, in US dollars.

    A market buy fills at the ask and a market sell at the bid. Also says whether its exchange is
    open now (market orders need it open).

    Args:
        db: Session of this call, supplied by the server (not a tool argument).
        symbol: Ticker symbol, e.g. "FJS".
    """
    inst = load_instrument(db, symbol)
    open_now, market = is_open(db, inst)
    return {
        "symbol": inst.symbol,
        **quote_view(quote_of(db, inst)),
        "exchange": inst.exchange,
        "market_open": open_now,
        "status": inst.status,
        "as_of": now().strftime("%Y-%m-%dT%H:%M") + " UTC",
        **({"next_open": market["next_open"]} if not open_now else {}),
    }
