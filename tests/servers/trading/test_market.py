"""The trading server, driven through a real MCP client on an in-memory database: clock, instruments, quotes."""

from __future__ import annotations

from tests.helpers import LiveServer
from tests.servers.helpers import one
from tests.servers.trading.common import CLOSED_EXCHANGES, OPEN_EXCHANGES, closed_symbol, open_symbol, quote


def test_get_market_clock(ro: LiveServer) -> None:
    out = ro.ok("get_market_clock")
    assert out["clock_utc"] == "2026-01-15T17:00"
    status = {e["exchange"]: e["status"] for e in out["exchanges"]}
    assert status == {**dict.fromkeys(OPEN_EXCHANGES, "open"), **dict.fromkeys(CLOSED_EXCHANGES, "closed")}
    tokyo = ro.ok("get_market_clock", exchange="tse")["exchanges"]
    assert tokyo == [
        {
            "exchange": "TSE",
            "name": "Tokyo Stock Exchange",
            "city": "Tokyo",
            "local_time": "2026-01-16T02:00",
            "session": "09:00-15:00 local time, Monday-Friday",
            "status": "closed",
            "next_open": "2026-01-16T09:00",
        }
    ]
    assert ro.ok("get_market_clock", exchange="NYSE")["exchanges"][0]["closes_at"] == "2026-01-15T16:00"
    assert ro.ok("get_market_clock", exchange="LSE")["exchanges"][0]["next_open"] == "2026-01-16T08:00"
    err = ro.error("get_market_clock", exchange="NYMEX")
    assert "Unknown exchange" in err
    assert "NASDAQ" in err


def test_search_instruments(ro: LiveServer) -> None:
    etfs = ro.ok("search_instruments", kind="ETF", limit=100)
    assert len(etfs) == ro.query("SELECT count(*) FROM instruments WHERE kind = 'etf'")[0][0]
    assert {e["exchange"] for e in etfs} == {"ARCA"}
    keel = ro.ok("search_instruments", query="keel tech")
    assert [i["symbol"] for i in keel] == ["KTEC"]
    tokyo_tech = ro.ok("search_instruments", exchange="tse", sector="industrials")
    assert tokyo_tech
    assert all(i["exchange"] == "TSE" and i["sector"] == "Industrials" for i in tokyo_tech)
    halted = one(ro, "SELECT symbol FROM instruments WHERE status = 'halted' ORDER BY symbol")[0]
    assert ro.ok("search_instruments", query=halted)[0]["status"] == "halted"
    assert len(ro.ok("search_instruments", limit=5)) == 5
    assert ro.ok("search_instruments", query="no such company") == []
    assert "Unknown sector" in ro.error("search_instruments", sector="Crypto")
    assert "'stock' or 'etf'" in ro.error("search_instruments", kind="bond")
    assert "Unknown exchange" in ro.error("search_instruments", exchange="ASX")
    assert "query is empty" in ro.error("search_instruments", query="  ")
    assert "limit must be" in ro.error("search_instruments", limit=101)


def test_get_instrument(ro: LiveServer) -> None:
    symbol, _, _ = closed_symbol(ro, "TSE")
    out = ro.ok("get_instrument", symbol=symbol)
    assert out["lot_size"] == 100
    assert out["exchange"] == "TSE"
    assert out["market"]["status"] == "closed"
    halted, reason = one(ro, "SELECT symbol, halt_reason FROM instruments WHERE status = 'halted' ORDER BY symbol")
    detail = ro.ok("get_instrument", symbol=halted.lower())
    assert detail["status"] == "halted"
    assert detail["halt_reason"] == reason
    err = ro.error("get_instrument", symbol="ZZZZ")
    assert "Unknown symbol 'ZZZZ'" in err
    assert "search_instruments" in err


def test_get_quote(ro: LiveServer) -> None:
    symbol, bid, ask = open_symbol(ro)
    out = ro.ok("get_quote", symbol=symbol)
    last = quote(ro, symbol)[2]
    assert (out["bid"], out["ask"], out["last"]) == (bid / 100, ask / 100, last / 100)
    assert out["market_open"] is True
    assert "next_open" not in out
    closed, _, _ = closed_symbol(ro, "XETRA")
    out = ro.ok("get_quote", symbol=closed)
    assert out["market_open"] is False
    assert out["next_open"] == "2026-01-16T09:00"
    assert "search_instruments" in ro.error("get_quote", symbol="NOPE1")
