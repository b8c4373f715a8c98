"""Fixtures the live-server tests share."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from gym_mcp import BundledSource, SQLiteState


@pytest.fixture
def bank_db(tmp_path: Path) -> Path:
    """A banking database file holding seed 0's data (a template state for external servers)."""
    source = BundledSource("banking")
    path = tmp_path / "bank.db"
    state = SQLiteState(path, volatile=source.kit.volatile_columns)
    state.restore(source.initial_snapshot(0))
    state.close()
    return path


@pytest.fixture
def listener() -> Iterator[int]:
    """A loopback TCP server that greets each connection; yields its port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    sock.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except TimeoutError:
                continue
            with conn:
                conn.sendall(b"hello from the host\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield int(sock.getsockname()[1])
    stop.set()
    thread.join()
    sock.close()
