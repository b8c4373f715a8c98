"""The socket `listen_socket` binds for uvicorn: connections it accepts send without Nagle's delay."""

from __future__ import annotations

import asyncio
import socket

from gym_mcp.servers.kit import listen_socket


def test_accepted_connections_get_tcp_nodelay() -> None:
    """asyncio sets TCP_NODELAY only on sockets whose proto is TCP (accepted ones inherit it).

    Without it a response written in two parts (headers, then body) waited for the client's
    delayed ACK: an HTTP tool call took 48 ms instead of about 4.
    """
    sock = listen_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    seen: list[int] = []

    async def run() -> None:
        def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            raw = writer.get_extra_info("socket")
            seen.append(raw.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(accepted, sock=sock)
        async with server:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            for _ in range(100):
                if seen:
                    break
                await asyncio.sleep(0.01)
            writer.close()

    asyncio.run(run())
    assert seen and seen[0] != 0, "the accepted connection has TCP_NODELAY off"
