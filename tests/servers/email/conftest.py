"""Fixtures of the email server's tests.

Seeding takes a few hundred milliseconds, so the seed-0 database is built once per session and
each test gets a fresh in-memory copy of it (SQLite's backup API) behind its own live server.
"""

from __future__ import annotations

import sqlite3

import pytest

from gym_mcp.servers.email import kit
from tests.helpers import LiveServer


@pytest.fixture(scope="session")
def seeded() -> sqlite3.Connection:
    """The seed-0 database, built once; tests never write to it."""
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    kit.init_database(conn, seed=0)
    return conn


@pytest.fixture
def mail(seeded: sqlite3.Connection) -> LiveServer:
    """A live email server on a fresh copy of the seed-0 database."""
    server = LiveServer.__new__(LiveServer)
    server.kit = kit
    server.conn = sqlite3.connect(":memory:", check_same_thread=False)
    seeded.backup(server.conn)
    server.server = kit.create_server(server.conn)
    return server
