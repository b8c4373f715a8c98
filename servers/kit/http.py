"""Serving over HTTP: the listening socket, uvicorn, a private folder per run, the bearer token.

`ServerKit.serve`, the filesystem server's command line, ``gym-mcp serve`` and the sessions host
all serve this way: the port is bound first (`listen_socket`), so a port another process holds
ends the run with one line before anything says it is serving; `http_token` refuses a
non-loopback host without a token, since the bundled servers hold write tools.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import hmac
import ipaddress
import os
import re
import shutil
import signal
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from pydantic import AnyHttpUrl

__all__ = [
    "SCRATCH_MARKER",
    "TOKEN_ENV",
    "PortUnavailableError",
    "StaticTokenVerifier",
    "add_token_arguments",
    "auth_headers",
    "bearer_auth",
    "bearer_token",
    "http_token",
    "is_loopback",
    "listen_socket",
    "marked_folder",
    "serve_http",
    "serving_folder",
    "url_host",
]

TOKEN_ENV = "GYM_MCP_TOKEN"
"""Environment variable holding the bearer token an HTTP server requires when ``--token`` is absent."""


def url_host(host: str) -> str:
    """``host`` as it goes in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


class PortUnavailableError(OSError):
    """The HTTP port cannot be listened on: another process holds it, or the address is not this host's."""


def listen_socket(host: str, port: int) -> socket.socket:
    """Bind ``host:port`` and listen, so that a server says it is serving only once it is.

    The socket is made as uvicorn makes its own (IPv6 when ``host`` holds a colon, and
    ``SO_REUSEADDR``, so a server restarted at once can bind while old connections linger);
    `serve_http` hands it to uvicorn.

    Args:
        host: The interface (``127.0.0.1``, ``::1``, ``0.0.0.0``, a name).
        port: The TCP port.

    Returns:
        The bound, listening socket; the caller closes it.

    Raises:
        PortUnavailableError: The port is in use, or the address cannot be bound (one line
            that says which and why).
    """
    bare = host.strip("[]")
    family = socket.AF_INET6 if ":" in bare else socket.AF_INET
    # IPPROTO_TCP, not the default 0: asyncio sets TCP_NODELAY only on sockets whose proto says
    # TCP, and accepted connections inherit it. Without it every response waited ~40 ms for the
    # client's delayed ACK (Nagle), 48 ms a call instead of 4 (benchmarks/bench_step.py, http).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((bare, port))
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortUnavailableError(
                f"port {port} on {host} is already in use; stop what holds it or choose another with --port"
            ) from None
        reason = exc.strerror or str(exc)
        raise PortUnavailableError(f"cannot listen on {url_host(host)}:{port}: {reason}") from None
    sock.set_inheritable(True)
    return sock


def serve_http(app: Any, sock: socket.socket, *, log_level: str = "warning") -> None:
    """Serve an ASGI app with uvicorn on a socket `listen_socket` bound, until interrupted.

    Args:
        app: The ASGI application (e.g. an MCP server's ``streamable_http_app()``).
        sock: The listening socket.
        log_level: uvicorn's log level.
    """
    import uvicorn

    uvicorn.Server(uvicorn.Config(app, log_level=log_level)).run(sockets=[sock])


# The marker file of the gym's scratch folders (`marked_folder`): the sweep in
# gym_mcp/live/scratch.py removes only folders that hold it.
SCRATCH_MARKER = ".gym-mcp-scratch"


def marked_folder(prefix: str) -> Path:
    """A new folder whose name starts with ``prefix`` in the temp dir, its marker file already inside.

    It is made under a staging name (``.`` + the name), the marker written, then renamed into
    place, so a folder under the gym's name always holds the marker (a staging folder left by a
    process killed in between holds it too). The gym's scratch sweep removes only marked folders.
    """
    for _ in range(100):
        staging = Path(tempfile.mkdtemp(prefix=f".{prefix}"))
        (staging / SCRATCH_MARKER).write_text(f"gym-mcp scratch folder of process {os.getpid()}\n")
        folder = staging.with_name(staging.name[1:])
        if not os.path.lexists(folder):
            with contextlib.suppress(OSError):
                staging.rename(folder)
                return folder
        shutil.rmtree(staging, ignore_errors=True)
    raise OSError(f"no free name for a folder {prefix}* in {tempfile.gettempdir()}")


_ENDING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def serving_folder(name: str) -> Iterator[Path]:
    """A private temporary folder for one serving run, removed however the run ends.

    It is removed when the block ends (normally or by an exception) and on SIGTERM or SIGHUP:
    the folder goes, then the handler that was there before runs (the default one ends the
    process with the signal, so the exit status is what it would have been).

    Args:
        name: A short name for the folder (the server's), safe for a file name.

    Yields:
        The folder, ``gym-mcp-<pid>-<name>-<random>`` in the temporary directory: named as the
        gym's own scratch folders are, and holding their marker file, so one left by a killed
        process (SIGKILL, where nothing can run) is swept by the next gym-mcp process that makes
        one.
    """
    folder = marked_folder(f"gym-mcp-{os.getpid()}-{name}-")
    previous: dict[int, Any] = {}

    def remove_then_pass_on(signum: int, frame: FrameType | None) -> None:
        shutil.rmtree(folder, ignore_errors=True)
        before = previous.get(signum, signal.SIG_DFL)
        signal.signal(signum, before)
        if callable(before):
            before(signum, frame)
        elif before == signal.SIG_DFL:
            os.kill(os.getpid(), signum)

    with contextlib.suppress(ValueError):  # handlers can only be set from the main thread
        for sig in _ENDING_SIGNALS:
            previous[sig] = signal.signal(sig, remove_then_pass_on)
    try:
        yield folder
    finally:
        for sig, before in previous.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(sig, before if before is not None else signal.SIG_DFL)
        shutil.rmtree(folder, ignore_errors=True)


def add_token_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--token`` and ``--allow-no-token``, the bearer-token options of HTTP serving."""
    parser.add_argument(
        "--token",
        default=None,
        help=(
            "HTTP only: require 'Authorization: Bearer TOKEN' on every request, others get 401 "
            f"(default: ${TOKEN_ENV}, which unlike the flag stays out of the process list)"
        ),
    )
    parser.add_argument(
        "--allow-no-token",
        action="store_true",
        help="serve HTTP on a non-loopback --host without a token (refused otherwise)",
    )


# -- bearer-token authentication -------------------------------------------------------------

_TOKEN_CHARS = re.compile(r"[\x21-\x7e]+")
_BEARER = re.compile(r"(?i:bearer) ([\x21-\x7e]+)")
_CLIENT_ID = "gym-mcp"


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header value, or None when it is not one.

    The one parse of the header every HTTP face of ours uses (an MCP endpoint's
    `StaticTokenVerifier`, a sessions server's control channel), so a credential one accepts
    the other accepts too. The scheme is matched without regard to case (RFC 9110 11.1); one
    space separates it from the token, as every client sends it and as the MCP SDK reads it
    (``Bearer  TOKEN``, with two, is refused everywhere); the token is visible ASCII without
    spaces, the only tokens `http_token` lets a server have.

    Args:
        authorization: The header's value (None: no header).
    """
    if authorization is None:
        return None
    found = _BEARER.fullmatch(authorization)
    return found.group(1) if found is not None else None


def auth_headers(token: str) -> dict[str, str]:
    """The HTTP headers a client sends to a server that requires ``token``.

    Args:
        token: The server's bearer token.

    Returns:
        ``{"Authorization": "Bearer <token>"}``, e.g. for ``httpx.AsyncClient(headers=...)``.
    """
    return {"Authorization": f"Bearer {token}"}


class StaticTokenVerifier:
    """An MCP `TokenVerifier` that accepts exactly one static bearer token.

    The comparison takes constant time (`hmac.compare_digest`), so a wrong guess reveals
    nothing through timing about how much of it was right.

    Args:
        token: The one token to accept (visible ASCII, no spaces).
    """

    def __init__(self, token: str) -> None:
        self._token = _checked_token(token).encode()

    def __repr__(self) -> str:
        return "StaticTokenVerifier(token=***)"

    async def verify_token(self, token: str) -> AccessToken | None:
        """Accept ``token`` when it is the static token, else None (the request gets 401)."""
        # The SDK hands over what follows "Bearer " in the header; parsing the header again with
        # `bearer_token` keeps the one rule (a second space makes the token start with a space).
        given = bearer_token(f"Bearer {token}")
        if given is not None and hmac.compare_digest(given.encode(), self._token):
            return AccessToken(token=token, client_id=_CLIENT_ID, scopes=[])
        return None


def bearer_auth(token: str) -> dict[str, Any]:
    """The MCP SDK's auth options that make an HTTP server require one static bearer token.

    Pass them to `MCPServer(...)` or to a low-level `Server.streamable_http_app(...)`: the SDK's
    bearer middleware then answers a request to the MCP endpoint that lacks
    ``Authorization: Bearer <token>`` with 401 and a JSON error, before any MCP processing.

    Args:
        token: The token every request must carry.

    Returns:
        ``{"token_verifier": StaticTokenVerifier, "auth": AuthSettings}``.
    """
    # AuthSettings is OAuth-shaped: it requires the URL of an authorization server. Nothing here
    # serves or advertises it (no auth provider, no resource metadata), so a placeholder is inert.
    settings = AuthSettings(issuer_url=AnyHttpUrl("http://127.0.0.1"), resource_server_url=None)
    return {"token_verifier": StaticTokenVerifier(token), "auth": settings}


def http_token(token: str | None, *, host: str, allow_no_token: bool = False) -> str | None:
    """The bearer token an HTTP server on ``host`` requires: ``token``, else ``$GYM_MCP_TOKEN``.

    Args:
        token: The token given (``--token``); it wins over the environment variable.
        host: The interface the server binds.
        allow_no_token: Allow a non-loopback ``host`` without a token.

    Returns:
        The token, or None when neither is set (or the variable is empty).

    Raises:
        ValueError: The token is empty or not visible ASCII, or ``host`` is not loopback and
            there is no token nor ``allow_no_token``: the bundled servers hold write tools,
            which nobody else on the network should reach by accident.
    """
    if token is None:
        token = os.environ.get(TOKEN_ENV) or None
    if token is not None:
        return _checked_token(token)
    if not allow_no_token and not is_loopback(host):
        raise ValueError(
            f"refusing to serve HTTP on non-loopback host {host!r} without a token: "
            f"set --token or ${TOKEN_ENV}, or pass --allow-no-token"
        )
    return None


def _checked_token(token: str) -> str:
    """``token`` when it can travel in an ``Authorization`` header, else ValueError (never echoing it)."""
    if not token:
        raise ValueError("the token is empty")
    if not _TOKEN_CHARS.fullmatch(token):
        raise ValueError("the token must be visible ASCII characters without spaces")
    return token


def is_loopback(host: str) -> bool:
    """Whether ``host`` names a loopback interface (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
